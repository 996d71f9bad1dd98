// ExprGraph: the Relay-like expression DAG that lightsim-graph builds for a model before it is lowered to
// TVM graph-executor nodes. An Expr is a function input (input_ids, past_k_0 ...), a bound constant (a
// weight or a literal: TVM names them p0, p1 ... in visit order), or a call of one primitive op (by its
// Relay name with `.` spelled `_`: "nn_dense", "add", "__nop" for reshapes) with ordered arguments and
// one or more typed outputs.
//
// It is not the TVM JSON itself: ir/graphgen/tvm_lower.h orders, names and plans storage for it as TVM's
// graph-executor codegen does, and ir/graphgen/tvm_writer.h writes it.
#pragma once

#include "ir/dtype.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lightsim::ir::graphgen {

struct TensorType {
  std::vector<std::int64_t> shape;
  DType dtype = DType::Float32;
};

// One output of one expression.
struct ExprRef {
  std::int32_t expr = -1;
  std::int32_t index = 0;
};

enum class ExprKind : std::uint8_t { Input, Constant, Call };

struct Expr {
  ExprKind kind = ExprKind::Call;
  std::string name;  // Input: its name; Call: the op ("add", "nn_dense", "__nop"); Constant: empty
  std::string attrs; // Call: what tells two variants of an op apart beyond types ("axes=0,2,1,3")
  // Call: attributes written into its TVM node's attrs besides TVM's own (a collective's num_workers).
  std::vector<std::pair<std::string, std::string>> node_attrs;
  std::vector<ExprRef> args;
  std::vector<TensorType> outputs;
};

class ExprGraph {
public:
  // Every tensor's byte size is checked: a shape whose bytes overflow 64 bits throws InputError.
  ExprRef input(std::string name, TensorType type);
  ExprRef constant(TensorType type);
  ExprRef call(std::string op, std::vector<ExprRef> args, TensorType out, std::string attrs = {});
  std::vector<ExprRef> call_multi(std::string op, std::vector<ExprRef> args, std::vector<TensorType> outs,
                                  std::string attrs = {});

  void add_output(ExprRef r) { outputs_.push_back(r); }
  void add_node_attr(ExprRef r, std::string key, std::string value) {
    exprs_[static_cast<std::size_t>(r.expr)].node_attrs.emplace_back(std::move(key), std::move(value));
  }

  const TensorType& type(ExprRef r) const;
  const std::vector<Expr>& exprs() const { return exprs_; }
  const std::vector<ExprRef>& outputs() const { return outputs_; }

private:
  std::vector<Expr> exprs_;
  std::vector<ExprRef> outputs_;
};

// Bytes of a tensor of this type, as TVM's storage planner counts them; nullopt-free: throws InputError
// naming `what` when the count overflows 64 bits or a dimension is not positive.
std::uint64_t checked_bytes(const TensorType& type, const std::string& what);

} // namespace lightsim::ir::graphgen
