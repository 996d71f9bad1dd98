// Shape rules of the convolutions, pools, matrix products and resizes (ir/onnx/shape_rules.h). The
// convolutions and pools also record their attributes in Relay's form (OpAttrs), so that Graph::finalize
// checks them against the shapes as it does for a TVM export that kept them.
#include "ir/onnx/shape_rules.h"

#include <algorithm>
#include <cmath>
#include <onnx/onnx_pb.h>

namespace lightsim::ir::onnxio {
namespace {

constexpr const char* kDataLayouts[] = {"NCW", "NCHW", "NCDHW"};

// Sizes from attributes (strides, pads, groups: any int64 in a file) combined with dims: a result beyond
// 64 bits is an error, not an overflow.
std::int64_t mul(const NodeContext& ctx, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    ctx.fail("sizes overflow 64 bits (" + std::to_string(a) + " x " + std::to_string(b) + ")");
  return r;
}
std::int64_t add(const NodeContext& ctx, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    ctx.fail("sizes overflow 64 bits (" + std::to_string(a) + " + " + std::to_string(b) + ")");
  return r;
}

// One attribute per spatial dim, `fallback` when absent.
std::vector<std::int64_t> per_dim(const NodeContext& ctx, const char* name, std::size_t n,
                                  std::int64_t fallback) {
  std::vector<std::int64_t> v = ctx.attr_ints(name);
  if (v.empty()) return std::vector<std::int64_t>(n, fallback);
  if (v.size() != n)
    ctx.fail("attribute '" + std::string(name) + "' has " + std::to_string(v.size()) + " values for " +
             std::to_string(n) + " spatial dims");
  for (std::int64_t x : v)
    if (x <= 0) ctx.fail("attribute '" + std::string(name) + "' must be positive");
  return v;
}

// The sliding-window geometry of a convolution or pool: output sizes and the padding actually applied
// (begin..., end...), from kernel_shape (or the weight), strides, pads, dilations, auto_pad and ceil_mode.
struct Window {
  std::vector<std::int64_t> kernel, strides, dilations, pads, out;
};

Window window(const NodeContext& ctx, const Shape& in, const std::vector<std::int64_t>& kernel,
              bool ceil_mode) {
  const std::size_t n = kernel.size();
  Window w;
  w.kernel = kernel;
  w.strides = per_dim(ctx, "strides", n, 1);
  w.dilations = per_dim(ctx, "dilations", n, 1);
  w.pads = ctx.attr_ints("pads");
  if (w.pads.empty()) w.pads.assign(2 * n, 0);
  if (w.pads.size() != 2 * n)
    ctx.fail("attribute 'pads' has " + std::to_string(w.pads.size()) + " values, expected " +
             std::to_string(2 * n));
  for (std::int64_t p : w.pads)
    if (p < 0) ctx.fail("attribute 'pads' must not be negative");
  const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  w.out.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t size = in[2 + i], k = w.kernel[i], s = w.strides[i];
    if (k <= 0) ctx.fail("kernel dim " + std::to_string(i) + " is " + std::to_string(k));
    const std::int64_t extent = add(ctx, mul(ctx, w.dilations[i], k - 1), 1);
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out[i] = add(ctx, size, s - 1) / s;
      const std::int64_t total =
          std::max<std::int64_t>(0, add(ctx, mul(ctx, w.out[i] - 1, s), extent) - size);
      const std::int64_t small = total / 2, large = total - small;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      w.pads[i + n] = auto_pad == "SAME_UPPER" ? large : small;
      continue;
    }
    if (auto_pad == "VALID")
      w.pads[i] = w.pads[i + n] = 0;
    else if (auto_pad != "NOTSET")
      ctx.fail("unknown auto_pad '" + auto_pad + "'");
    const std::int64_t padded = add(ctx, add(ctx, size, w.pads[i]), w.pads[i + n]);
    if (extent > padded)
      ctx.fail("kernel extent " + std::to_string(extent) + " exceeds the padded input " +
               std::to_string(padded) + " in spatial dim " + std::to_string(i));
    const std::int64_t span = padded - extent;
    w.out[i] = (ceil_mode ? add(ctx, span, s - 1) / s : span / s) + 1;
  }
  return w;
}

std::shared_ptr<OpAttrs> window_attrs(const Window& w, std::size_t spatial) {
  auto a = std::make_shared<OpAttrs>();
  a->strides = w.strides;
  a->padding = w.pads;
  a->dilation = w.dilations;
  a->data_layout = kDataLayouts[spatial - 1];
  return a;
}

std::size_t spatial_dims(const NodeContext& ctx, std::size_t input) {
  const std::size_t rank = ctx.rank(input);
  if (rank < 3 || rank > 5)
    ctx.fail("input " + std::to_string(input) + " " + shape_text(ctx.shape(input)) +
             " must be N x C x 1 to 3 spatial dims");
  return rank - 2;
}

void check_bias(const NodeContext& ctx, std::int64_t channels) {
  if (ctx.has(2) && (ctx.rank(2) != 1 || ctx.shape(2)[0] != channels))
    ctx.fail("bias " + shape_text(ctx.shape(2)) + " must be [" + std::to_string(channels) + "]");
}

// The operands of a convolution: X [N, C, 1 to 3 spatial dims] and a weight of X's rank; its group.
struct ConvOperands {
  std::size_t n; // spatial dims
  const Shape &x, &w;
  std::int64_t group;
};

ConvOperands conv_operands(const NodeContext& ctx) {
  ctx.arity(2, 3);
  const std::size_t n = spatial_dims(ctx, 0);
  const Shape &x = ctx.shape(0), &w = ctx.shape(1);
  if (w.size() != x.size())
    ctx.fail("weight " + shape_text(w) + " and input " + shape_text(x) + " differ in rank");
  return {n, x, w, ctx.attr_int("group", 1)};
}

void conv(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  const auto [n, x, w, group] = conv_operands(ctx);
  if (group <= 0 || x[1] != mul(ctx, w[1], group) || w[0] % group != 0)
    ctx.fail("input channels " + std::to_string(x[1]) + ", weight " + shape_text(w) + " and group " +
             std::to_string(group) + " do not agree");
  const std::vector<std::int64_t> kernel(w.begin() + 2, w.end());
  const std::vector<std::int64_t> named = ctx.attr_ints("kernel_shape");
  if (!named.empty() && named != kernel)
    ctx.fail("kernel_shape " + shape_text(named) + " differs from the weight's " + shape_text(kernel));
  check_bias(ctx, w[0]);
  const Window win = window(ctx, x, kernel, false);
  Shape out{x[0], w[0]};
  out.insert(out.end(), win.out.begin(), win.out.end());
  plan.outputs.assign(ctx.num_outputs(), {out, ctx.dtype(0)});
  static constexpr const char* kRelay[] = {"nn_conv1d", "nn_conv2d", "nn_conv3d"};
  single_op(rule, plan, present_inputs(ctx, 3), rule.op_class, kRelay[n - 1]);
  auto attrs = window_attrs(win, n);
  attrs->groups = group;
  attrs->kernel_size = kernel;
  attrs->kernel_layout = std::string("OI") + (kDataLayouts[n - 1] + 2);
  plan.ops.back().attrs = std::move(attrs);
}

// out = stride x (in - 1) + output_padding + dilation x (kernel - 1) + 1 - pads; output_shape (or
// auto_pad SAME: in x stride) sets the output and the padding follows.
void conv_transpose(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  const auto [n, x, w, group] = conv_operands(ctx);
  if (group <= 0 || x[1] != w[0] || x[1] % group != 0)
    ctx.fail("input channels " + std::to_string(x[1]) + ", weight " + shape_text(w) + " and group " +
             std::to_string(group) + " do not agree");
  const std::vector<std::int64_t> kernel(w.begin() + 2, w.end());
  const std::int64_t out_channels = mul(ctx, w[1], group);
  check_bias(ctx, out_channels);
  const std::vector<std::int64_t> strides = per_dim(ctx, "strides", n, 1),
                                  dil = per_dim(ctx, "dilations", n, 1);
  std::vector<std::int64_t> extra = ctx.attr_ints("output_padding");
  if (extra.empty()) extra.assign(n, 0);
  if (extra.size() != n) ctx.fail("attribute 'output_padding' needs one value per spatial dim");
  std::vector<std::int64_t> pads = ctx.attr_ints("pads");
  if (pads.empty()) pads.assign(2 * n, 0);
  if (pads.size() != 2 * n) ctx.fail("attribute 'pads' needs two values per spatial dim");
  std::vector<std::int64_t> target = ctx.attr_ints("output_shape");
  if (target.size() == n + 2) target.erase(target.begin(), target.begin() + 2);
  const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  if (target.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
    for (std::size_t i = 0; i < n; ++i)
      target.push_back(mul(ctx, x[2 + i], strides[i]));
  if (!target.empty() && target.size() != n)
    ctx.fail("attribute 'output_shape' needs one value per spatial dim");
  Shape out{x[0], out_channels};
  for (std::size_t i = 0; i < n; ++i) {
    if (extra[i] < 0 || extra[i] >= std::max(strides[i], dil[i]))
      ctx.fail("output_padding " + std::to_string(extra[i]) + " must be in [0, max(stride, dilation))");
    const std::int64_t full = add(ctx, add(ctx, mul(ctx, strides[i], x[2 + i] - 1), extra[i]),
                                  add(ctx, mul(ctx, dil[i], kernel[i] - 1), 1));
    if (!target.empty()) {
      if (target[i] <= 0) ctx.fail("output_shape must be positive");
      const std::int64_t total = full - target[i];
      pads[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[i + n] = total - pads[i];
    }
    if (pads[i] < 0 || pads[i + n] < 0 || pads[i] > full || pads[i + n] > full)
      ctx.fail("pads " + shape_text(pads) + " do not fit output spatial dim " + std::to_string(i));
    const std::int64_t size = full - pads[i] - pads[i + n];
    if (size <= 0) ctx.fail("output spatial dim " + std::to_string(i) + " would be " + std::to_string(size));
    out.push_back(size);
  }
  plan.outputs.assign(ctx.num_outputs(), {out, ctx.dtype(0)});
  static constexpr const char* kRelay[] = {"nn_conv1d_transpose", "nn_conv2d_transpose",
                                           "nn_conv3d_transpose"};
  single_op(rule, plan, present_inputs(ctx, 3), rule.op_class, kRelay[n - 1]);
  auto a = std::make_shared<OpAttrs>();
  a->strides = strides;
  a->padding = pads;
  a->dilation = dil;
  a->output_padding = extra;
  a->groups = group;
  a->kernel_size = kernel;
  a->data_layout = kDataLayouts[n - 1];
  a->kernel_layout = std::string("IO") + (kDataLayouts[n - 1] + 2);
  plan.ops.back().attrs = std::move(a);
}

void pool(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  const std::size_t n = spatial_dims(ctx, 0);
  const std::vector<std::int64_t> kernel = ctx.attr_ints("kernel_shape");
  if (kernel.size() != n) ctx.fail("attribute 'kernel_shape' needs one value per spatial dim");
  const bool ceil_mode = ctx.attr_int("ceil_mode", 0) != 0;
  const Window win = window(ctx, ctx.shape(0), kernel, ceil_mode);
  Shape out{ctx.shape(0)[0], ctx.shape(0)[1]};
  out.insert(out.end(), win.out.begin(), win.out.end());
  plan.outputs.assign(ctx.num_outputs(), {out, ctx.dtype(0)});
  if (plan.outputs.size() > 1) plan.outputs[1].dtype = DType::Int64; // MaxPool's Indices
  plan.side_outputs_from = 1;
  const bool max = rule.op_type == "MaxPool";
  static constexpr const char* kMax[] = {"nn_max_pool1d", "nn_max_pool2d", "nn_max_pool3d"};
  static constexpr const char* kAvg[] = {"nn_avg_pool1d", "nn_avg_pool2d", "nn_avg_pool3d"};
  single_op(rule, plan, {0}, rule.op_class, max ? kMax[n - 1] : kAvg[n - 1]);
  auto attrs = window_attrs(win, n);
  attrs->pool_size = kernel;
  attrs->ceil_mode = ceil_mode;
  plan.ops.back().attrs = std::move(attrs);
}

void global_pool(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  spatial_dims(ctx, 0);
  Shape out = ctx.shape(0);
  std::fill(out.begin() + 2, out.end(), 1);
  plan.outputs.assign(ctx.num_outputs(), {out, ctx.dtype(0)});
  single_op(rule, plan, {0});
}

// Gemm: A [M, K] (transA: [K, M]) x B [K, N] (transB: [N, K]) + C broadcast onto [M, N]. With transA, a
// transpose of A first, as TVM's front end writes it.
void gemm(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(ctx.version() >= 11 ? 2 : 3, 3);
  const Shape &a = ctx.shape(0), &b = ctx.shape(1);
  if (a.size() != 2 || b.size() != 2)
    ctx.fail("A " + shape_text(a) + " and B " + shape_text(b) + " must be matrices");
  const bool ta = ctx.attr_int("transA", 0) != 0, tb = ctx.attr_int("transB", 0) != 0;
  const std::int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  const std::int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (k != kb)
    ctx.fail("A " + shape_text(a) + " and B " + shape_text(b) + " do not share K (transA " +
             std::to_string(ta) + ", transB " + std::to_string(tb) + ")");
  const Shape out{m, n};
  if (ctx.has(2) && ctx.version() >= 7 && broadcast(ctx, {&out, &ctx.shape(2)}) != out)
    ctx.fail("C " + shape_text(ctx.shape(2)) + " does not broadcast onto [M, N] = " + shape_text(out));
  plan.outputs.assign(ctx.num_outputs(), {out, ctx.dtype(0)});
  std::vector<int> inputs = present_inputs(ctx, 3);
  if (ta) {
    plan.temps.push_back({{m, k}, ctx.dtype(0)});
    plan.ops.push_back({OpClass::Transpose, "transpose", {0}, {-1}, nullptr, "/transpose_a"});
    inputs[0] = -1;
  }
  single_op(rule, plan, std::move(inputs));
}

// MatMul with NumPy's rules: a vector operand gets a dim of 1 (removed again from the output), the batch
// dims broadcast. A 2-D (or vector) B is a dense; otherwise a batch_matmul.
void matmul(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(2, 2);
  Shape a = ctx.shape(0), b = ctx.shape(1);
  if (a.empty() || b.empty()) ctx.fail("operands must not be scalars");
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    ctx.fail("A " + shape_text(ctx.shape(0)) + " and B " + shape_text(ctx.shape(1)) + " do not share K");
  const Shape a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
  Shape out = broadcast(ctx, {&a_batch, &b_batch});
  out.push_back(a[a.size() - 2]);
  out.push_back(b.back());
  Shape final_out = out;
  if (b_vector) final_out.pop_back();
  if (a_vector) final_out.erase(final_out.end() - (b_vector ? 1 : 2));
  plan.outputs.assign(ctx.num_outputs(), {final_out, ctx.dtype(0)});
  const bool dense = b.size() == 2;
  std::vector<int> inputs{0, 1};
  if (!dense && a_vector) { // batch_matmul needs a matrix
    plan.temps.push_back({a, ctx.dtype(0)});
    plan.ops.push_back({OpClass::Nop, "reshape", {0}, {-1}, nullptr, "/reshape_a"});
    inputs[0] = -1;
  }
  if (!dense && b_vector) {
    plan.temps.push_back({b, ctx.dtype(1)});
    plan.ops.push_back(
        {OpClass::Nop, "reshape", {1}, {-static_cast<int>(plan.temps.size())}, nullptr, "/reshape_b"});
    inputs[1] = -static_cast<int>(plan.temps.size());
  }
  const OpClass c = dense ? OpClass::Dense : OpClass::BatchMatmul;
  const char* relay = dense ? "nn_dense" : "nn_batch_matmul";
  if (out == final_out || dense) { // a dense reads a vector A as one row; its output is the final shape
    if (dense && b_vector) {       // ... but writes a column for a vector B
      plan.temps.push_back({out, ctx.dtype(0)});
      const int t = -static_cast<int>(plan.temps.size());
      plan.ops.push_back({c, relay, inputs, {t}, nullptr, "/product"});
      plan.ops.push_back({OpClass::Nop, "reshape", {t}, {0}, nullptr, ""});
      return;
    }
    single_op(rule, plan, inputs, c, relay);
    return;
  }
  plan.temps.push_back({out, ctx.dtype(0)});
  const int t = -static_cast<int>(plan.temps.size());
  plan.ops.push_back({c, relay, inputs, {t}, nullptr, "/product"});
  plan.ops.push_back({OpClass::Nop, "reshape", {t}, {0}, nullptr, ""});
}

// Resize (opset 10: X, scales; 11+: X, roi, scales, sizes; 18+: axes, keep_aspect_ratio_policy) and
// Upsample (7: scales attribute; 9: scales input): out = floor(in x scale), or the given sizes.
void resize(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  const bool upsample = rule.op_type == "Upsample";
  const std::size_t rank = ctx.rank(0);
  std::vector<std::size_t> axes(rank);
  for (std::size_t i = 0; i < rank; ++i)
    axes[i] = i;
  if (!upsample && ctx.version() >= 18 && !ctx.attr_ints("axes").empty())
    axes = ctx.axes(ctx.attr_ints("axes"), rank, "axes");
  std::vector<double> scales;
  std::vector<std::int64_t> sizes;
  if (upsample && ctx.version() < 9) {
    ctx.arity(1, 1);
    for (float s : ctx.attr_floats("scales"))
      scales.push_back(s);
  } else if (upsample || ctx.version() < 11) {
    ctx.arity(2, 2);
    scales = ctx.numbers(1, "scales");
  } else {
    ctx.arity(1, 4);
    if (ctx.has(2) && !ctx.shape(2).empty() && ctx.shape(2)[0] > 0) scales = ctx.numbers(2, "scales");
    if (ctx.has(3) && !ctx.shape(3).empty() && ctx.shape(3)[0] > 0) sizes = ctx.ints(3, "sizes");
    if (scales.empty() == sizes.empty()) ctx.fail("exactly one of scales and sizes must be given");
  }
  const std::size_t given = scales.empty() ? sizes.size() : scales.size();
  if (given != axes.size())
    ctx.fail("has " + std::to_string(given) + " scales or sizes for " + std::to_string(axes.size()) +
             " axes");
  Shape out = ctx.shape(0);
  const std::string policy = ctx.attr_string("keep_aspect_ratio_policy", "stretch");
  if (!sizes.empty() && policy != "stretch") {
    double scale = policy == "not_larger" ? INFINITY : 0;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const double s =
          static_cast<double>(sizes[i]) / static_cast<double>(std::max<std::int64_t>(out[axes[i]], 1));
      scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
    }
    for (std::size_t i = 0; i < axes.size(); ++i)
      sizes[i] = static_cast<std::int64_t>(std::round(scale * static_cast<double>(out[axes[i]])));
  }
  for (std::size_t i = 0; i < axes.size(); ++i) {
    double size = sizes.empty() ? std::floor(static_cast<double>(out[axes[i]]) * scales[i])
                                : static_cast<double>(sizes[i]);
    if (!(size >= 0 && size < 9.2e18))
      ctx.fail("output dim " + std::to_string(axes[i]) + " would be " + std::to_string(size));
    out[axes[i]] = static_cast<std::int64_t>(size);
  }
  plan.outputs.assign(ctx.num_outputs(), {out, ctx.dtype(0)});
  single_op(rule, plan, {0});
}

} // namespace

void einsum(const NodeContext& ctx, const OpRule& rule, NodePlan& plan); // rules_einsum.cc

std::vector<OpRule> nn_rules() {
  using C = OpClass;
  return {
      {"Conv", 1, C::Conv2d, "nn_conv2d", conv},
      {"ConvTranspose", 1, C::Conv2dTranspose, "nn_conv2d_transpose", conv_transpose},
      {"MaxPool", 1, C::Pool, "nn_max_pool2d", pool},
      {"AveragePool", 1, C::Pool, "nn_avg_pool2d", pool},
      {"LpPool", 1, C::Pool, "nn_avg_pool2d", pool},
      {"GlobalAveragePool", 1, C::Pool, "nn_global_avg_pool2d", global_pool},
      {"GlobalMaxPool", 1, C::Pool, "nn_global_max_pool2d", global_pool},
      {"GlobalLpPool", 1, C::Pool, "nn_global_avg_pool2d", global_pool},
      {"Gemm", 1, C::Dense, "nn_dense", gemm},
      {"MatMul", 1, C::Dense, "nn_dense", matmul},
      {"Einsum", 12, C::BatchMatmul, "nn_batch_matmul", einsum},
      {"Resize", 10, C::Resize, "image_resize2d", resize},
      {"Upsample", 7, C::Resize, "nn_upsampling", resize, 9},
  };
}

} // namespace lightsim::ir::onnxio
