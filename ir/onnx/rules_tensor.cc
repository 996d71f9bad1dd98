// Shape rules of the data-movement and shape ops (ir/onnx/shape_rules.h); the reductions, rearrangements,
// scatters and generators are in rules_reduce.cc.
#include "ir/onnx/shape_rules.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <onnx/onnx_pb.h>

namespace lightsim::ir::onnxio {

std::int64_t checked_element_count(const NodeContext& ctx, const Shape& s) {
  const std::optional<std::int64_t> n = element_count(s);
  if (!n) ctx.fail("shape " + shape_text(s) + " has more than 2^63 elements or a negative dim");
  return *n;
}

std::vector<std::int64_t> attr_or_input(const NodeContext& ctx, int input_since, const char* attr,
                                        std::size_t input, bool& given) {
  if (ctx.version() < input_since) {
    given = ctx.attr(attr) != nullptr;
    return ctx.attr_ints(attr);
  }
  given = ctx.has(input);
  return given ? ctx.ints(input, attr) : std::vector<std::int64_t>{};
}

void same_shape_op(const NodeContext& ctx, const OpRule& rule, NodePlan& plan, Shape out,
                   std::vector<int> data, std::optional<DType> dtype) {
  plan.outputs.assign(ctx.num_outputs(), {std::move(out), dtype.value_or(ctx.dtype(0))});
  single_op(rule, plan, std::move(data));
}

namespace {

using C = OpClass;

void reshape(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(ctx.version() >= 5 ? 2 : 1, ctx.version() >= 5 ? 2 : 1);
  const std::vector<std::int64_t> target = ctx.version() >= 5 ? ctx.ints(1, "shape") : ctx.attr_ints("shape");
  const bool allow_zero = ctx.attr_int("allowzero", 0) != 0;
  const Shape& in = ctx.shape(0);
  Shape out;
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    std::int64_t d = target[i];
    if (d == 0 && !allow_zero) {
      if (i >= in.size()) ctx.fail("shape[" + std::to_string(i) + "] is 0 (copy) beyond the input's rank");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) ctx.fail("shape " + shape_text(target) + " has more than one -1");
      infer = static_cast<int>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0) ctx.fail("shape " + shape_text(target) + " has a negative dim");
    out.push_back(d);
    if (__builtin_mul_overflow(known, d, &known)) ctx.fail("shape " + shape_text(target) + " overflows");
  }
  const std::int64_t total = checked_element_count(ctx, in);
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      ctx.fail("cannot reshape " + shape_text(in) + " to " + shape_text(target));
    out[static_cast<std::size_t>(infer)] = total / known;
  } else if (known != total) {
    ctx.fail("cannot reshape " + shape_text(in) + " (" + std::to_string(total) + " elements) to " +
             shape_text(out));
  }
  same_shape_op(ctx, rule, plan, out, {0});
}

void flatten(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  const Shape& in = ctx.shape(0);
  const std::int64_t a = ctx.attr_int("axis", 1);
  const std::size_t axis =
      a == static_cast<std::int64_t>(in.size()) ? in.size() : ctx.axis(a, in.size(), "axis");
  const Shape outer(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(axis));
  const Shape inner(in.begin() + static_cast<std::ptrdiff_t>(axis), in.end());
  same_shape_op(ctx, rule, plan, {checked_element_count(ctx, outer), checked_element_count(ctx, inner)}, {0});
}

void squeeze(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, ctx.version() >= 13 ? 2 : 1);
  bool given = false;
  const std::vector<std::int64_t> a = attr_or_input(ctx, 13, "axes", 1, given);
  const Shape& in = ctx.shape(0);
  const std::vector<std::size_t> axes = ctx.axes(a, in.size(), "axes");
  Shape out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const bool named = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (named && in[d] != 1) ctx.fail("axis " + std::to_string(d) + " of " + shape_text(in) + " is not 1");
    if (!named && !(a.empty() && in[d] == 1)) out.push_back(in[d]);
  }
  same_shape_op(ctx, rule, plan, out, {0});
}

void unsqueeze(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(ctx.version() >= 13 ? 2 : 1, ctx.version() >= 13 ? 2 : 1);
  bool given = false;
  const std::vector<std::int64_t> a = attr_or_input(ctx, 13, "axes", 1, given);
  if (a.empty()) ctx.fail("axes are missing");
  const Shape& in = ctx.shape(0);
  const std::vector<std::size_t> axes = ctx.axes(a, in.size() + a.size(), "axes");
  Shape out;
  auto next = in.begin();
  for (std::size_t d = 0; d < in.size() + a.size(); ++d)
    out.push_back(std::find(axes.begin(), axes.end(), d) != axes.end() ? 1 : *next++);
  same_shape_op(ctx, rule, plan, out, {0});
}

void identity(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, rule.op_type == "Dropout" ? 3 : 1);
  plan.outputs.assign(ctx.num_outputs(), {ctx.shape(0), DType::Bool}); // Dropout's mask
  plan.outputs[0] = ctx.in(0);
  plan.side_outputs_from = 1;
  single_op(rule, plan, {0});
}

void transpose(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  const Shape& in = ctx.shape(0);
  std::vector<std::int64_t> perm = ctx.attr_ints("perm");
  if (perm.empty())
    for (std::size_t d = in.size(); d-- > 0;)
      perm.push_back(static_cast<std::int64_t>(d));
  if (perm.size() != in.size())
    ctx.fail("perm " + shape_text(perm) + " does not fit rank " + std::to_string(in.size()));
  Shape out;
  for (std::size_t p : ctx.axes(perm, in.size(), "perm"))
    out.push_back(in[p]);
  same_shape_op(ctx, rule, plan, out, {0});
}

void concat(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, SIZE_MAX);
  Shape out = ctx.shape(0);
  if (out.empty()) ctx.fail("inputs must not be scalars");
  const std::size_t axis = ctx.axis(ctx.attr_int("axis", 1), out.size(), "axis");
  for (std::size_t i = 1; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.shape(i);
    bool same = s.size() == out.size();
    for (std::size_t d = 0; same && d < s.size(); ++d)
      same = d == axis || s[d] == out[d];
    if (!same)
      ctx.fail("input " + std::to_string(i) + " " + shape_text(s) + " does not fit " +
               shape_text(ctx.shape(0)) + " along axis " + std::to_string(axis));
    if (__builtin_add_overflow(out[axis], s[axis], &out[axis])) ctx.fail("concatenated dim overflows");
  }
  same_shape_op(ctx, rule, plan, out, present_inputs(ctx, ctx.num_inputs()));
}

void split(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 2);
  const Shape& in = ctx.shape(0);
  const std::size_t axis = ctx.axis(ctx.attr_int("axis", 0), in.size(), "axis");
  const auto outputs = static_cast<std::int64_t>(ctx.num_outputs());
  std::vector<std::int64_t> sizes;
  if (ctx.version() >= 13 || (ctx.version() < 2 && ctx.has(1))) {
    if (ctx.has(1)) sizes = ctx.ints(1, "split");
  } else {
    sizes = ctx.attr_ints("split");
  }
  const std::int64_t dim = in[axis];
  if (sizes.empty()) {
    const std::int64_t parts =
        ctx.version() >= 18 && ctx.attr("num_outputs") ? ctx.attr_int("num_outputs", 0) : outputs;
    if (parts != outputs || parts <= 0)
      ctx.fail("num_outputs " + std::to_string(parts) + " differs from the " + std::to_string(outputs) +
               " outputs");
    const std::int64_t chunk = ctx.version() >= 18 ? (dim + parts - 1) / parts : dim / parts;
    if (ctx.version() < 18 && dim % parts != 0)
      ctx.fail("dim " + std::to_string(dim) + " does not split into " + std::to_string(parts) +
               " equal parts");
    for (std::int64_t k = 0; k < parts; ++k)
      sizes.push_back(std::max<std::int64_t>(0, std::min(chunk, dim - k * chunk)));
  }
  std::int64_t total = 0;
  for (std::int64_t s : sizes)
    if (s < 0 || __builtin_add_overflow(total, s, &total)) ctx.fail("split sizes must be non-negative");
  if (static_cast<std::int64_t>(sizes.size()) != outputs || total != dim)
    ctx.fail("split " + shape_text(sizes) + " does not divide dim " + std::to_string(dim) + " into " +
             std::to_string(outputs) + " outputs");
  for (std::int64_t s : sizes) {
    Shape out = in;
    out[axis] = s;
    plan.outputs.push_back({out, ctx.dtype(0)});
  }
  single_op(rule, plan, {0});
}

// NumPy slicing of one dim: the elements from `start` to `end` by `step`.
std::int64_t slice_length(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step) {
  const auto clamp = [](std::int64_t v, std::int64_t lo, std::int64_t hi) {
    return std::max(lo, std::min(v, hi));
  };
  if (start < 0) start = start < -dim ? -dim - 1 : start + dim;
  if (end < 0) end = end < -dim ? -dim - 1 : end + dim;
  if (step > 0) {
    start = clamp(start, 0, dim);
    end = clamp(end, 0, dim);
    return end > start ? (end - start - 1) / step + 1 : 0;
  }
  start = clamp(start, -1, dim - 1);
  end = clamp(end, -1, dim - 1);
  return start > end ? (start - end - 1) / (-step) + 1 : 0;
}

void slice(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  const bool inputs = ctx.version() >= 10;
  ctx.arity(inputs ? 3 : 1, inputs ? 5 : 1);
  const Shape& in = ctx.shape(0);
  const std::vector<std::int64_t> starts = inputs ? ctx.ints(1, "starts") : ctx.attr_ints("starts");
  const std::vector<std::int64_t> ends = inputs ? ctx.ints(2, "ends") : ctx.attr_ints("ends");
  std::vector<std::int64_t> axes =
      inputs ? (ctx.has(3) ? ctx.ints(3, "axes") : std::vector<std::int64_t>{}) : ctx.attr_ints("axes");
  std::vector<std::int64_t> steps = inputs && ctx.has(4) ? ctx.ints(4, "steps") : std::vector<std::int64_t>{};
  if (axes.empty())
    for (std::size_t d = 0; d < starts.size(); ++d)
      axes.push_back(static_cast<std::int64_t>(d));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    ctx.fail("starts, ends, axes and steps differ in length");
  Shape out = in;
  const std::vector<std::size_t> ax = ctx.axes(axes, in.size(), "axes");
  for (std::size_t i = 0; i < ax.size(); ++i) {
    if (steps[i] == 0 || steps[i] == INT64_MIN) ctx.fail("steps must not be 0");
    out[ax[i]] = slice_length(in[ax[i]], starts[i], ends[i], steps[i]);
  }
  same_shape_op(ctx, rule, plan, out, {0});
}

void gather(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(2, 2);
  const Shape &data = ctx.shape(0), &idx = ctx.shape(1);
  if (data.empty()) ctx.fail("data must not be a scalar");
  if (rule.op_type == "GatherElements") {
    ctx.axis(ctx.attr_int("axis", 0), data.size(), "axis");
    if (idx.size() != data.size()) ctx.fail("indices and data differ in rank");
    return same_shape_op(ctx, rule, plan, idx, {0, 1});
  }
  if (rule.op_type == "GatherND") {
    const auto b = static_cast<std::size_t>(std::max<std::int64_t>(0, ctx.attr_int("batch_dims", 0)));
    if (idx.empty() || b + static_cast<std::size_t>(std::max<std::int64_t>(idx.back(), 0)) > data.size() ||
        b >= idx.size())
      ctx.fail("indices " + shape_text(idx) + " do not index data " + shape_text(data));
    Shape out(idx.begin(), idx.end() - 1);
    out.insert(out.end(),
               data.begin() + static_cast<std::ptrdiff_t>(b + static_cast<std::size_t>(idx.back())),
               data.end());
    return same_shape_op(ctx, rule, plan, out, {0, 1});
  }
  const std::size_t axis = ctx.axis(ctx.attr_int("axis", 0), data.size(), "axis");
  Shape out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.end());
  same_shape_op(ctx, rule, plan, out, {0, 1});
}

void pad(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  const bool inputs = ctx.version() >= 11;
  ctx.arity(inputs ? 2 : 1, inputs ? (ctx.version() >= 18 ? 4 : 3) : 1);
  const Shape& in = ctx.shape(0);
  std::vector<std::int64_t> pads =
      inputs ? ctx.ints(1, "pads") : ctx.attr_ints(ctx.version() < 2 ? "paddings" : "pads");
  std::vector<std::size_t> axes(in.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (ctx.version() >= 18 && ctx.has(3)) axes = ctx.axes(ctx.ints(3, "axes"), in.size(), "axes");
  if (pads.size() != 2 * axes.size())
    ctx.fail("pads " + shape_text(pads) + " need two values per padded axis (" + std::to_string(axes.size()) +
             ")");
  Shape out = in;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::int64_t d = out[axes[i]];
    if (__builtin_add_overflow(d, pads[i], &d) || __builtin_add_overflow(d, pads[i + axes.size()], &d) ||
        d < 0)
      ctx.fail("pads " + shape_text(pads) + " make axis " + std::to_string(axes[i]) +
               " negative or too large");
    out[axes[i]] = d;
  }
  same_shape_op(ctx, rule, plan, out, {0});
}

void expand(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(2, 2);
  const Shape target = ctx.ints(1, "shape");
  for (std::int64_t d : target)
    if (d < 0) ctx.fail("shape " + shape_text(target) + " has a negative dim");
  same_shape_op(ctx, rule, plan, broadcast(ctx, {&ctx.shape(0), &target}), {0});
}

void tile(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(2, ctx.version() >= 6 ? 2 : 3);
  Shape out = ctx.shape(0);
  std::vector<std::int64_t> repeats = ctx.ints(1, "repeats");
  if (ctx.version() < 6) { // Tile-1: tiles times along one axis
    const std::vector<std::int64_t> axis = ctx.ints(2, "axis");
    if (repeats.size() != 1 || axis.size() != 1) ctx.fail("tiles and axis must be scalars");
    std::vector<std::int64_t> all(out.size(), 1);
    all[ctx.axis(axis[0], out.size(), "axis")] = repeats[0];
    repeats = all;
  }
  if (repeats.size() != out.size())
    ctx.fail("repeats " + shape_text(repeats) + " do not fit rank " + std::to_string(out.size()));
  for (std::size_t d = 0; d < out.size(); ++d)
    if (repeats[d] < 0 || __builtin_mul_overflow(out[d], repeats[d], &out[d]))
      ctx.fail("repeats must be non-negative");
  same_shape_op(ctx, rule, plan, out, {0});
}

} // namespace

std::vector<OpRule> tensor_rules() {
  return {
      {"Reshape", 1, C::Nop, "reshape", reshape},
      {"Flatten", 1, C::Nop, "nn_batch_flatten", flatten},
      {"Squeeze", 1, C::Nop, "squeeze", squeeze},
      {"Unsqueeze", 1, C::Nop, "expand_dims", unsqueeze},
      {"Identity", 1, C::Nop, "reshape", identity},
      {"Dropout", 1, C::Nop, "nn_dropout", identity},
      {"Transpose", 1, C::Transpose, "transpose", transpose},
      {"Concat", 1, C::Concatenate, "concatenate", concat},
      {"Split", 1, C::Split, "split", split},
      {"Slice", 1, C::StridedSlice, "strided_slice", slice},
      {"Gather", 1, C::Take, "take", gather},
      {"GatherElements", 11, C::Take, "gather", gather},
      {"GatherND", 11, C::Take, "gather_nd", gather},
      {"Pad", 1, C::Pad, "nn_pad", pad},
      {"Expand", 8, C::Copy, "broadcast_to", expand},
      {"Tile", 1, C::Copy, "tile", tile},
  };
}

} // namespace lightsim::ir::onnxio
