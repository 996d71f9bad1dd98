#include "ir/graphgen/builder_torch.h"

#include "ir/error.h"

#include <cassert>
#include <cstdio>

namespace lightsim::ir::graphgen::detail {
namespace {

std::string join(const Shape& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s.append(i ? "," : "").append(std::to_string(v[i]));
  return s;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::int64_t conv_out(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t pad) {
  return (in + 2 * pad - k) / stride + 1;
}

} // namespace

ExprRef TorchOps::conv2d(ExprRef x, std::int64_t out_channels, std::int64_t kernel, std::int64_t stride,
                         std::int64_t pad, std::int64_t groups, bool bias) {
  const Shape& s = b_.shape(x); // [N, C, H, W]
  assert(s.size() == 4 && s[1] % groups == 0 && out_channels % groups == 0);
  const std::int64_t in_per_group = s[1] / groups;
  ExprRef w = b_.weight({out_channels, in_per_group, kernel, kernel});
  if (groups > 1 && in_per_group == 1) // depthwise: the front end reshapes the weight to (groups, mult, k, k)
    w = b_.reshape(w, {groups, out_channels / groups, kernel, kernel});
  const Shape out{s[0], out_channels, conv_out(s[2], kernel, stride, pad),
                  conv_out(s[3], kernel, stride, pad)};
  if (out[2] <= 0 || out[3] <= 0)
    throw InputError("lightsim-graph", "a " + std::to_string(kernel) + "x" + std::to_string(kernel) +
                                           " convolution does not fit its " + std::to_string(s[2]) + "x" +
                                           std::to_string(s[3]) + " input");
  const std::string attrs = "strides=" + std::to_string(stride) + ";padding=" + std::to_string(pad) +
                            ";groups=" + std::to_string(groups) +
                            ";channels=" + std::to_string(out_channels) +
                            ";kernel_size=" + std::to_string(kernel);
  ExprRef y = g().call("nn_conv2d", {x, w}, {out, g().type(x).dtype}, attrs);
  if (bias) y = g().call("nn_bias_add", {y, b_.weight({out_channels})}, g().type(y), "axis=1");
  return y;
}

ExprRef TorchOps::batch_norm(ExprRef x, double eps) {
  const Shape& s = b_.shape(x);
  const std::int64_t c = s[1];
  const ExprRef gamma = b_.weight({c}), beta = b_.weight({c}), mean = b_.weight({c}), var = b_.weight({c});
  const ExprRef inv_std = b_.unary("rsqrt", b_.binary("add", var, b_.scalar()));
  (void)eps; // the value of the scalar constant; it does not change the graph
  const ExprRef scale = b_.binary("multiply", inv_std, gamma);
  const ExprRef shift = b_.binary("add", b_.binary("multiply", b_.unary("negative", mean), scale), beta);
  Shape bias_shape(s.size() - 1, 1);
  bias_shape[0] = c; // [C, 1, 1]: ExpandBiasToMatchAxis on axis 1
  const ExprRef y = b_.binary("multiply", x, expand_dims(scale, bias_shape));
  return b_.binary("add", y, expand_dims(shift, bias_shape));
}

ExprRef TorchOps::relu(ExprRef x) {
  return b_.unary("nn_relu", x);
}

ExprRef TorchOps::clip(ExprRef x, double lo, double hi) {
  return g().call("clip", {x}, g().type(x), "a_min=" + number(lo) + ";a_max=" + number(hi));
}

ExprRef TorchOps::max_pool2d(ExprRef x, std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
  const Shape& s = b_.shape(x);
  const Shape out{s[0], s[1], conv_out(s[2], kernel, stride, pad), conv_out(s[3], kernel, stride, pad)};
  return g().call("nn_max_pool2d", {x}, {out, g().type(x).dtype},
                  "pool_size=" + std::to_string(kernel) + ";strides=" + std::to_string(stride) +
                      ";padding=" + std::to_string(pad));
}

ExprRef TorchOps::adaptive_avg_pool2d_1x1(ExprRef x) {
  const Shape& s = b_.shape(x);
  return g().call("nn_adaptive_avg_pool2d", {x}, {{s[0], s[1], 1, 1}, g().type(x).dtype}, "output_size=1,1");
}

ExprRef TorchOps::flatten_1x1(ExprRef x) {
  const Shape s = b_.shape(x);
  return squeeze(b_.reshape(x, s), {s[0], s[1]});
}

ExprRef TorchOps::linear(ExprRef x, std::int64_t out_features, bool bias) {
  const Shape s = b_.shape(x);
  const std::int64_t in_features = s.back();
  const ExprRef w = b_.weight({out_features, in_features});
  ExprRef y;
  if (s.size() == 2) {
    y = b_.dense(x, w);
  } else {
    y = matmul(x, b_.transpose(w, {1, 0}));
  }
  if (!bias) return y;
  return g().call("nn_bias_add", {y, b_.weight({out_features})}, g().type(y), "axis=-1");
}

ExprRef TorchOps::matmul(ExprRef a, ExprRef b) {
  const Shape sa = b_.shape(a), sb = b_.shape(b);
  assert(sa.size() >= 3 && sb.size() >= 2 && sa.back() == sb[sb.size() - 2]);
  // The batch shape: a's leading dims, broadcast with b's.
  Shape batch(sa.begin(), sa.end() - 2);
  const std::size_t b_batch = sb.size() - 2;
  for (std::size_t i = 0; i < b_batch; ++i) {
    std::int64_t& d = batch[batch.size() - b_batch + i];
    d = std::max(d, sb[i]);
  }
  std::int64_t flat = 1;
  for (std::int64_t d : batch)
    flat = checked_mul(flat, d);
  const std::int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  Shape a_full = batch, b_full = batch;
  a_full.insert(a_full.end(), {m, k});
  b_full.insert(b_full.end(), {k, n});
  const ExprRef a3 = b_.reshape(broadcast_to(a, a_full), {flat, m, k});
  const ExprRef b3 = b_.reshape(broadcast_to(b, b_full), {flat, k, n});
  const ExprRef prod =
      g().call("nn_batch_matmul", {a3, b3}, {{flat, m, n}, g().type(a).dtype}, "transpose_b=0");
  Shape out = batch;
  out.insert(out.end(), {m, n});
  return squeeze(b_.reshape(prod, out), out);
}

ExprRef TorchOps::layer_norm(ExprRef x, double eps) {
  (void)eps;
  const std::int64_t d = b_.shape(x).back();
  const ExprRef mean = b_.mean_last(x);
  Shape reduced = b_.shape(x);
  reduced.back() = 1;
  const ExprRef var = g().call("variance", {x, mean}, {reduced, g().type(x).dtype}, "axis=-1,keepdims=1");
  const ExprRef normed = b_.binary("multiply", b_.binary("subtract", x, mean),
                                   b_.unary("rsqrt", b_.binary("add", var, b_.scalar())));
  return b_.binary("add", b_.binary("multiply", normed, b_.weight({d})), b_.weight({d}));
}

ExprRef TorchOps::gelu(ExprRef x) {
  const ExprRef erf = b_.unary("erf", b_.binary("multiply", x, b_.scalar()));
  return b_.binary("multiply", x, b_.binary("add", b_.scalar(), b_.binary("multiply", erf, b_.scalar())));
}

ExprRef TorchOps::embedding(ExprRef table, ExprRef ids) {
  return b_.take(table, cast(ids, DType::Int32));
}

ExprRef TorchOps::select(ExprRef x, std::int64_t axis) {
  Shape out = b_.shape(x);
  out.erase(out.begin() + axis);
  return g().call("take", {x, b_.constant({}, DType::Int32)}, {std::move(out), g().type(x).dtype},
                  "axis=" + std::to_string(axis) + ",mode=wrap");
}

ExprRef TorchOps::broadcast_to(ExprRef x, Shape shape) {
  const std::string attrs = "shape=" + join(shape);
  return g().call("broadcast_to", {x}, {std::move(shape), g().type(x).dtype}, attrs);
}

ExprRef TorchOps::squeeze(ExprRef x, Shape shape) {
  return b_.reshape(x, std::move(shape));
}

ExprRef TorchOps::expand_dims(ExprRef x, Shape shape) {
  return b_.reshape(x, std::move(shape));
}

ExprRef TorchOps::repeat(ExprRef x, std::int64_t repeats, std::int64_t axis) {
  Shape out = b_.shape(x);
  out[static_cast<std::size_t>(axis)] = checked_mul(out[static_cast<std::size_t>(axis)], repeats);
  return g().call("repeat", {x}, {std::move(out), g().type(x).dtype},
                  "repeats=" + std::to_string(repeats) + ",axis=" + std::to_string(axis));
}

ExprRef TorchOps::cast(ExprRef x, DType to) {
  return g().call("cast", {x}, {b_.shape(x), to}, "dtype=" + std::string(dtype_name(to)));
}

ExprRef TorchOps::scalar_op(const std::string& op, ExprRef x) {
  return b_.binary(op, x, b_.constant({}, g().type(x).dtype));
}

ExprRef TorchOps::strided_slice(ExprRef x, Shape end) {
  const std::string attrs = "begin=0;end=" + join(end);
  return g().call("strided_slice", {x}, {std::move(end), g().type(x).dtype}, attrs);
}

} // namespace lightsim::ir::graphgen::detail
