// OpClass: what kind of computation an operation is, as far as cost is concerned. TVM's func_name
// ("tvmgen_default_fused_nn_dense_4", "..._nn_contrib_conv2d_NCHWc_add_nn_relu") is reduced to an anchor
// class (the op that dominates the cost: GEMM-like > pooling / softmax / reduction > elementwise) plus the
// classes of the fused elementwise tail. Names TVM truncated (fused names over 80 characters end in a
// hash) are read up to the cut.
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
  Conv2d,          // conv1d / conv2d / conv3d in any layout (NCHW, NHWC, NCHWc ...): an implicit GEMM
  Conv2dTranspose, // conv{1,2,3}d_transpose: a GEMM per input pixel, its results scattered (col2im)
  Attention,       // fused attention (ir/fusion/attention.h): QK^T, scale/mask, softmax, AV as one op
  Pool,            // max / avg / global / adaptive pooling, 1d to 3d
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
  // Added for CNNs and encoders (issue 15). Several Relay ops share a class where they cost the same
  // (ir/op_class.cc lists every spelling and its class).
  LogSoftmax,
  BatchNorm,      // nn.batch_norm left whole (1 or 3 outputs: the running mean and variance pass through)
  LayerNorm,      // layer_norm, group_norm, instance_norm, l2_normalize: two passes over a group
  Lrn,            // local response normalisation across channels
  Pad,            // nn.pad, nn.mirror_pad: a copy into a larger tensor
  Resize,         // image.resize1d/2d/3d, nn.upsampling(3d), crop_and_resize, grid_sample
  Clip,           // clip (ReLU6 and hard-sigmoid/swish lower to it)
  Maximum,        // elementwise maximum / minimum of two tensors
  Elementwise,    // other one-instruction elementwise ops: abs, floor, round, comparisons, logic, shifts
  Transcendental, // log, log2, log10 and the trigonometric / hyperbolic functions
  Max,            // reductions by comparison: max, min, argmax, argmin, all, any
  Variance,       // variance, std (of data about a given mean)
  Cumsum,         // cumsum, cumprod: a scan along one axis
  Fill,           // full, zeros, ones (and *_like), arange, one_hot: writes its output from (almost) nothing
  Copy,           // copy, __copy, broadcast_to, tile, repeat: moves data into a new (maybe larger) tensor
  // Collectives across a device group (TVM Disco's ccl.allreduce / ccl.allgather; attrs.num_workers is
  // the group's size). Costed on the machine's links by ir/cost/collectives.h, never by a unit's
  // arithmetic model; never fused.
  AllReduce,
  ReduceScatter,
  AllGather,
  Opaque, // an op lightsim does not know, admitted by --unknown-op=cpu: costed as elementwise on CPUs
  Count_  // not a class: the number of classes
};

inline constexpr std::size_t kNumOpClasses = static_cast<std::size_t>(OpClass::Count_);

// "dense", "batch_matmul", ... (the config key).
std::string_view op_class_name(OpClass c);
std::optional<OpClass> parse_op_class(std::string_view name);

// True for the classes whose cost is a matrix product (dense, batch_matmul, conv2d, conv2d_transpose).
bool is_gemm_like(OpClass c);
// True for all_reduce, reduce_scatter and all_gather.
bool is_collective(OpClass c);

// The result of reading a TVM func_name.
struct Classification {
  OpClass anchor;
  std::vector<OpClass> tail; // fused elementwise ops after the anchor, in func_name order
};

// Classifies a TVM func_name; nullopt when any `_`-token of it is not part of a known op name (the caller
// reports it as unknown). `__nop` is Nop, `__copy` (a device copy) is Copy. The `tvmgen_<module>_fused_` /
// `fused_` prefix and trailing numeric tokens (`_4`) are ignored; the rest is read as a sequence of Relay
// op names by longest match (`nn_contrib_conv2d_NCHWc`, `nn_relu`, `add`, ...; reshape / squeeze /
// expand_dims / dropout are Nop). A name TVM truncated (`fused_` + 74 characters, then `_<hex hash>_`,
// maybe `_<n>`) is read up to the cut: a last op cut short counts when its prefix names one class only,
// and ops cut off entirely are not seen (the caller cannot cost what the name does not say). The anchor
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
