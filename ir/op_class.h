// OpClass: what kind of computation an operation is, as far as cost is concerned. TVM's func_name
// ("tvmgen_default_fused_nn_dense_4", "..._nn_contrib_conv2d_NCHWc_add_nn_relu") is reduced to an anchor
// class (the op that dominates the cost: GEMM-like > pooling / softmax / reduction > elementwise) plus the
// classes of the fused elementwise tail.
//
// It is not a cost model: costs per class live in ir/cost/cost_model.h and come from the hardware config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::ir {

// Keep in step with kOpClassNames in op_class.cc; the snake_case names are the keys used in configs.
enum class OpClass : std::uint8_t {
  Input, // a graph input or weight ("null" node): a tensor resident in memory
  Nop,   // __nop / reshape / squeeze / expand_dims: a view, no data moved
  Dense,
  BatchMatmul,
  Conv2d,    // conv2d in any layout (NCHW, NHWC, NCHWc)
  Attention, // fused attention (ir/fusion/attention.h): QK^T, scale/mask, softmax, AV as one op
  Pool,      // max / avg / global pooling
  LayoutTransform,
  Add,
  Subtract,
  Multiply,
  Divide,
  Power,
  Negative,
  Sqrt,
  Rsqrt,
  Exp,
  Erf,
  Relu,
  Sigmoid,
  Tanh,
  Cast,
  Less,
  Where,
  Mean,
  Sum,
  Softmax,
  Transpose,
  Take,
  Split,
  Concatenate,
  StridedSlice,
  Opaque, // an op lightsim does not know, admitted by --unknown-op=cpu: costed as elementwise on CPUs
  Count_  // not a class: the number of classes
};

inline constexpr std::size_t kNumOpClasses = static_cast<std::size_t>(OpClass::Count_);

// "dense", "batch_matmul", ... (the config key).
std::string_view op_class_name(OpClass c);
std::optional<OpClass> parse_op_class(std::string_view name);

// True for the classes whose cost is a matrix product (dense, batch_matmul, conv2d).
bool is_gemm_like(OpClass c);

// The result of reading a TVM func_name.
struct Classification {
  OpClass anchor;
  std::vector<OpClass> tail; // fused elementwise ops after the anchor, in func_name order
};

// Classifies a TVM func_name; nullopt when any `_`-token of it is not part of a known op name (the caller
// reports it as unknown). `__nop` is Nop. The `tvmgen_<module>_fused_` / `fused_` prefix and trailing
// numeric tokens (`_4`) are ignored; the rest is read as a sequence of Relay op names by longest match
// (`nn_contrib_conv2d_NCHWc`, `nn_relu`, `add`, ...; reshape / squeeze / expand_dims are Nop). The anchor
// is the first op of the highest priority; the tail is every other op in order, Nops left out. A function
// that holds a batch_matmul, later a softmax and later another batch_matmul is fused attention (the
// anchor is Attention, the tail the ops between the two products, as ir/fusion writes it).
std::optional<Classification> classify_func_name(std::string_view func_name);

// The anchor and tail of a function made of `ops` in func_name order (what classify_func_name does once
// it has read the names).
Classification classify_ops(const std::vector<OpClass>& ops);

// The Relay op names of a func_name, `_`-joined, without the `tvmgen_<module>_fused_` / `fused_` prefix
// and trailing numeric tokens ("tvmgen_default_fused_nn_dense_add_4" -> "nn_dense_add"; "__nop" ->
// "reshape").
std::string_view relay_ops_of(std::string_view func_name);

} // namespace lightsim::ir
