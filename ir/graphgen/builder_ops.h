// BuilderOps: small helpers shared by the model builders (GPT-2, Llama, CNNs, encoders): typed shorthands for
// the Relay ops (reshape as __nop, elementwise ops with broadcasting, dense, batch_matmul, transpose ...),
// each emitting one call in an ExprGraph. Internal to ir/graphgen.
//
// It is not a model builder: it knows no layer, block or hyper-parameter (gpt2_builder.cc and the other
// family builders compose these ops into models).
#pragma once

#include "ir/graphgen/expr_graph.h"
#include "ir/graphgen/model_spec.h"

#include <string>
#include <vector>

namespace lightsim::ir::graphgen::detail {

using Shape = std::vector<std::int64_t>;

// a * b, or InputError when the product of two sizes overflows 64 bits.
std::int64_t checked_mul(std::int64_t a, std::int64_t b);

class BuilderOps {
public:
  // `weight_type`: the parameters' dtype (mixed precision); unset: float_type.
  BuilderOps(ExprGraph& g, DType float_type, std::optional<DType> weight_type = std::nullopt)
      : g_(g), ft_(float_type), wt_(weight_type.value_or(float_type)) {}

  DType float_type() const { return ft_; }
  ExprGraph& graph() { return g_; }
  const Shape& shape(ExprRef x) const { return g_.type(x).shape; }

  ExprRef input(const std::string& name, Shape s, DType t) { return g_.input(name, {std::move(s), t}); }
  // The decode KV cache as inputs past_k_i, past_v_i (interleaved, as TVM numbers them), one pair per layer.
  struct KvCache {
    std::vector<ExprRef> k, v;
  };
  KvCache kv_cache_inputs(std::int64_t layers, const Shape& s, DType t) {
    KvCache cache;
    for (std::int64_t i = 0; i < layers; ++i) {
      cache.k.push_back(input("past_k_" + std::to_string(i), s, t));
      cache.v.push_back(input("past_v_" + std::to_string(i), s, t));
    }
    return cache;
  }
  ExprRef weight(Shape s) { return g_.constant({std::move(s), wt_}); }
  // The dtype of an op's result computed from an operand of dtype `t`: a weight's dtype gives the
  // activations' (a bias add, an embedding lookup or a concatenated class token is an activation).
  DType activation(DType t) const { return t == wt_ ? ft_ : t; }
  ExprRef constant(Shape s, DType t) { return g_.constant({std::move(s), t}); }
  ExprRef scalar() { return g_.constant({{}, ft_}); }

  ExprRef reshape(ExprRef x, Shape s);
  // Elementwise op with NumPy broadcasting; `out_dtype` defaults to the first argument's.
  ExprRef binary(const std::string& op, ExprRef a, ExprRef b);
  ExprRef compare(const std::string& op, ExprRef a, ExprRef b); // result uint1
  ExprRef unary(const std::string& op, ExprRef x);
  // All-reduce of x over a group of `workers` devices (TVM Disco's ccl.allreduce): x's type, attrs
  // num_workers.
  ExprRef all_reduce(ExprRef x, std::int64_t workers);
  ExprRef where(ExprRef cond, ExprRef a, ExprRef b);
  ExprRef take(ExprRef table, ExprRef ids);   // rows of table [V, D] -> ids.shape + [D]
  ExprRef dense(ExprRef x, ExprRef w);        // x [M, K], w [N, K] -> [M, N]
  ExprRef batch_matmul(ExprRef a, ExprRef b); // a [B, M, K], b [B, N, K] -> [B, M, N]
  ExprRef transpose(ExprRef x, const Shape& axes);
  ExprRef mean_last(ExprRef x); // keepdims over the last axis
  ExprRef softmax_last(ExprRef x);
  ExprRef strided_slice_last(ExprRef x, std::int64_t begin, std::int64_t end);
  ExprRef concatenate(const std::vector<ExprRef>& xs, std::int64_t axis);
  std::vector<ExprRef> split_last(ExprRef x, std::int64_t parts);
  // Parts of the given sizes along the last axis: one split when they are equal, else a strided slice each.
  std::vector<ExprRef> split_sections_last(ExprRef x, const std::vector<std::int64_t>& sizes);

private:
  ExprGraph& g_;
  DType ft_, wt_;
};

} // namespace lightsim::ir::graphgen::detail
