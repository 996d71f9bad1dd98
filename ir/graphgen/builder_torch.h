// TorchOps: the Relay that TVM's PyTorch front end (python/tvm/relay/frontend/pytorch.py, its last Relay
// revisions) emits for the aten ops of CNN and encoder layers, as relay.build at opt_level 0 leaves it:
// SimplifyInference has decomposed batch_norm / layer_norm and removed dropout; SimplifyExpr has turned
// x / sqrt(y) into x * rsqrt(y), dropped multiplications by a scalar 1 and merged back-to-back transposes
// and reshapes; FoldConstant (level 2) has not run, so computations on weights stay ops. Each helper emits
// the calls its aten op converts to, in the front end's argument order (which fixes TVM's node order).
// Internal to ir/graphgen.
//
// It is not a PyTorch tracer: the builders (resnet / mobilenet / bert / vit) call these in the order of
// the reference modules' forward().
#pragma once

#include "ir/graphgen/builder_ops.h"

#include <string>
#include <vector>

namespace lightsim::ir::graphgen::detail {

class TorchOps {
public:
  explicit TorchOps(BuilderOps& b) : b_(b) {}
  BuilderOps& base() { return b_; }

  // aten::_convolution, square kernel: nn.conv2d (+ nn.bias_add). A depthwise weight [C, 1, k, k] first
  // goes through the front end's reshape to (groups, multiplier, k, k) (a __nop on the weight).
  ExprRef conv2d(ExprRef x, std::int64_t out_channels, std::int64_t kernel, std::int64_t stride,
                 std::int64_t pad, std::int64_t groups = 1, bool bias = false);
  // aten::batch_norm (eval): scale = rsqrt(var + eps) * gamma, shift = -mean * scale + beta, both
  // expand_dims'd to [C, 1, 1]; x * scale + shift.
  ExprRef batch_norm(ExprRef x, double eps = 1e-5);
  ExprRef relu(ExprRef x);
  ExprRef clip(ExprRef x, double lo, double hi); // aten::hardtanh (ReLU6)
  ExprRef max_pool2d(ExprRef x, std::int64_t kernel, std::int64_t stride, std::int64_t pad);
  ExprRef adaptive_avg_pool2d_1x1(ExprRef x);
  // torch.flatten(x, 1) on [N, C, 1, 1]: reshape to [0, -1, 1, 1] (same shape) then squeeze axes 2, 3.
  ExprRef flatten_1x1(ExprRef x);
  // aten::linear: a 2-D input is nn.dense (+ nn.bias_add); otherwise matmul(x, transpose(w)) + bias_add.
  ExprRef linear(ExprRef x, std::int64_t out_features, bool bias = true);
  // aten::matmul / aten::bmm with both operands of rank >= 3 (or a 2-D right operand): broadcast_to both
  // to the common batch shape, reshape to 3-D, nn.batch_matmul (transpose_b = 0), reshape back, squeeze
  // (of no axis: an identity __nop).
  ExprRef matmul(ExprRef a, ExprRef b);
  // aten::layer_norm over the last axis: mean, variance(x, mean), (x - mean) * rsqrt(var + eps), * gamma,
  // + beta.
  ExprRef layer_norm(ExprRef x, double eps);
  // aten::gelu (exact): x * (0.5 + erf(x * 0.7071...) * 0.5).
  ExprRef gelu(ExprRef x);
  // aten::embedding: take(table, cast(ids, int32), axis 0).
  ExprRef embedding(ExprRef table, ExprRef ids);
  // aten::select(x, axis, index): take(x, index, axis, mode wrap) with a scalar int32 index constant.
  ExprRef select(ExprRef x, std::int64_t axis);
  ExprRef broadcast_to(ExprRef x, Shape shape);
  ExprRef squeeze(ExprRef x, Shape shape);     // a __nop to `shape`
  ExprRef expand_dims(ExprRef x, Shape shape); // a __nop to `shape`
  ExprRef repeat(ExprRef x, std::int64_t repeats, std::int64_t axis);
  ExprRef cast(ExprRef x, DType to);
  ExprRef scalar_op(const std::string& op, ExprRef x); // x <op> a scalar constant of x's dtype
  ExprRef strided_slice(ExprRef x, Shape end);         // begin 0, stride 1, up to `end`

private:
  ExprGraph& g() { return b_.graph(); }
  BuilderOps& b_;
};

} // namespace lightsim::ir::graphgen::detail
