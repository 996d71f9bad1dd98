// Shape rules of the data-movement, shape, reduction and generator ops (ir/onnx/shape_rules.h).
#include "ir/onnx/shape_rules.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <onnx/onnx_pb.h>

namespace lightsim::ir::onnxio {
namespace {

using C = OpClass;

std::int64_t count(const NodeContext& ctx, const Shape& s) {
  const std::optional<std::int64_t> n = element_count(s);
  if (!n) ctx.fail("shape " + shape_text(s) + " has more than 2^63 elements or a negative dim");
  return *n;
}

// An operand that is an attribute up to opset `input_since` and an input from it on.
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
                   std::vector<int> data, std::optional<DType> dtype = std::nullopt) {
  plan.outputs.assign(ctx.num_outputs(), {std::move(out), dtype.value_or(ctx.dtype(0))});
  single_op(rule, plan, std::move(data));
}

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
  const std::int64_t total = count(ctx, in);
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
  same_shape_op(ctx, rule, plan, {count(ctx, outer), count(ctx, inner)}, {0});
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

// Reductions: axes (attribute; an input from opset 13 for ReduceSum, 18 for the others), keepdims.
void reduce(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  const int input_since = rule.op_type == "ReduceSum" ? 13 : 18;
  ctx.arity(1, ctx.version() >= input_since ? 2 : 1);
  bool given = false;
  const std::vector<std::int64_t> a = attr_or_input(ctx, input_since, "axes", 1, given);
  const Shape& in = ctx.shape(0);
  const bool noop = a.empty() && ctx.attr_int("noop_with_empty_axes", 0) != 0;
  std::vector<std::size_t> axes = ctx.axes(a, in.size(), "axes");
  if (a.empty() && !noop)
    for (std::size_t d = 0; d < in.size(); ++d)
      axes.push_back(d);
  const bool keep = ctx.attr_int("keepdims", 1) != 0;
  Shape out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced)
      out.push_back(in[d]);
    else if (keep)
      out.push_back(1);
  }
  same_shape_op(ctx, rule, plan, out, {0});
}

void arg_reduce(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  Shape out = ctx.shape(0);
  const std::size_t axis = ctx.axis(ctx.attr_int("axis", 0), out.size(), "axis");
  if (ctx.attr_int("keepdims", 1) != 0)
    out[axis] = 1;
  else
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  same_shape_op(ctx, rule, plan, out, {0}, DType::Int64);
}

void top_k(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(ctx.version() >= 10 ? 2 : 1, ctx.version() >= 10 ? 2 : 1);
  Shape out = ctx.shape(0);
  if (out.empty()) ctx.fail("X must not be a scalar");
  const std::size_t axis = ctx.axis(ctx.attr_int("axis", -1), out.size(), "axis");
  std::int64_t k = ctx.attr_int("k", -1);
  if (ctx.version() >= 10) {
    const std::vector<std::int64_t> kv = ctx.ints(1, "K");
    if (kv.size() != 1) ctx.fail("K must hold one value");
    k = kv[0];
  }
  if (k < 0 || k > out[axis])
    ctx.fail("K " + std::to_string(k) + " is not in [0, " + std::to_string(out[axis]) + "]");
  out[axis] = k;
  plan.outputs.assign(ctx.num_outputs(), {out, DType::Int64});
  plan.outputs[0].dtype = ctx.dtype(0);
  single_op(rule, plan, {0});
}

void space_depth(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  Shape s = ctx.shape(0);
  const std::int64_t b = ctx.attr_int("blocksize", 0);
  if (s.size() != 4 || b <= 0 || b > (std::int64_t{1} << 20))
    ctx.fail("needs a 4-D input and a blocksize in [1, 2^20]");
  std::int64_t grown = 0;
  if (__builtin_mul_overflow(s[2], b * b, &grown) || __builtin_mul_overflow(s[1], b * b, &grown))
    ctx.fail("sizes overflow 64 bits");
  if (rule.op_type == "DepthToSpace") {
    if (s[1] % (b * b) != 0)
      ctx.fail("channels " + std::to_string(s[1]) + " are not a multiple of blocksize^2");
    s = {s[0], s[1] / (b * b), s[2] * b, s[3] * b};
  } else {
    if (s[2] % b != 0 || s[3] % b != 0) ctx.fail("height and width must be multiples of blocksize");
    s = {s[0], s[1] * b * b, s[2] / b, s[3] / b};
  }
  same_shape_op(ctx, rule, plan, s, {0});
}

// Scatter*, CumSum, Trilu: the output has the data's shape.
void like_data(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 3);
  const bool all_data = rule.op_type.starts_with("Scatter");
  same_shape_op(ctx, rule, plan, ctx.shape(0), all_data ? present_inputs(ctx, 3) : std::vector<int>{0});
}

// Ops whose values the file holds or lightsim computes at import (never ops of the graph themselves).
void shape_op(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  (void)rule;
  ctx.arity(1, 1);
  const auto rank = static_cast<std::int64_t>(ctx.rank(0));
  if (rule.op_type == "Size") {
    plan.outputs.assign(ctx.num_outputs(), {{}, DType::Int64});
    return;
  }
  std::int64_t start = ctx.attr_int("start", 0), end = ctx.attr_int("end", rank);
  start = std::clamp(start < 0 ? start + rank : start, std::int64_t{0}, rank);
  end = std::clamp(end < 0 ? end + rank : end, std::int64_t{0}, rank);
  plan.outputs.assign(ctx.num_outputs(), {{std::max<std::int64_t>(0, end - start)}, DType::Int64});
}

void constant(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  (void)rule;
  ctx.arity(0, 0);
  for (const ::onnx::AttributeProto& a : ctx.node().attribute()) {
    const std::string& n = a.name();
    TensorType t;
    if (n == "value") {
      const std::optional<DType> d = dtype_of_onnx(a.t().data_type());
      if (!d) ctx.fail("value has a data type lightsim does not model (strings, complex, 8-bit floats)");
      t = {{a.t().dims().begin(), a.t().dims().end()}, *d};
      count(ctx, t.shape);
    } else if (n == "value_float" || n == "value_int") {
      t = {{}, n == "value_float" ? DType::Float32 : DType::Int64};
    } else if (n == "value_floats" || n == "value_ints") {
      t = {{n == "value_floats" ? a.floats_size() : a.ints_size()},
           n == "value_floats" ? DType::Float32 : DType::Int64};
    } else {
      ctx.fail("attribute '" + n + "' is not supported (sparse and string constants are not)");
    }
    plan.outputs.assign(ctx.num_outputs(), t);
    return;
  }
  ctx.fail("has no value attribute");
}

// Generators: the output's shape from values (ConstantOfShape, Range) or from an input's shape.
void generator(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  const std::string_view op = rule.op_type;
  TensorType t;
  const ::onnx::AttributeProto* value = ctx.attr("value");
  if (op == "ConstantOfShape") {
    ctx.arity(1, 1);
    t.shape = ctx.ints(0, "shape");
    t.dtype = value ? dtype_of_onnx(value->t().data_type()).value_or(DType::Float32) : DType::Float32;
  } else if (op == "Range") {
    ctx.arity(3, 3);
    const std::vector<double> start = ctx.numbers(0, "start"), limit = ctx.numbers(1, "limit"),
                              delta = ctx.numbers(2, "delta");
    if (start.size() != 1 || limit.size() != 1 || delta.size() != 1 || delta[0] == 0)
      ctx.fail("start, limit and delta must be scalars, delta not 0");
    const double n = std::max(0.0, std::ceil((limit[0] - start[0]) / delta[0]));
    if (!(n < 9.2e18)) ctx.fail("the range has too many elements");
    t = {{static_cast<std::int64_t>(n)}, ctx.dtype(0)};
  } else if (op == "OneHot") {
    ctx.arity(3, 3);
    const std::vector<std::int64_t> depth = ctx.ints(1, "depth");
    if (depth.size() != 1 || depth[0] < 0) ctx.fail("depth must be one non-negative value");
    t.shape = ctx.shape(0);
    const std::size_t axis = ctx.axis(ctx.attr_int("axis", -1), t.shape.size() + 1, "axis");
    t.shape.insert(t.shape.begin() + static_cast<std::ptrdiff_t>(axis), depth[0]);
    t.dtype = ctx.dtype(2);
  } else if (op.ends_with("Like")) { // EyeLike, RandomNormalLike, RandomUniformLike
    ctx.arity(1, 1);
    t = ctx.in(0);
    if (ctx.attr("dtype"))
      t.dtype = dtype_of_onnx(static_cast<int>(ctx.attr_int("dtype", 1))).value_or(t.dtype);
  } else { // RandomNormal, RandomUniform
    ctx.arity(0, 0);
    t = {ctx.attr_ints("shape"),
         dtype_of_onnx(static_cast<int>(ctx.attr_int("dtype", 1))).value_or(DType::Float32)};
  }
  for (std::int64_t d : t.shape)
    if (d < 0) ctx.fail("output shape " + shape_text(t.shape) + " has a negative dim");
  count(ctx, t.shape);
  plan.outputs.assign(ctx.num_outputs(), t);
  single_op(rule, plan, op == "OneHot" ? std::vector<int>{0} : std::vector<int>{});
}

void data_dependent(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  (void)plan;
  ctx.fail(std::string(rule.op_type) +
           "'s output shape depends on the values of its input, which lightsim does not "
           "compute");
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
      {"DepthToSpace", 1, C::Transpose, "nn_depth_to_space", space_depth},
      {"SpaceToDepth", 1, C::Transpose, "nn_space_to_depth", space_depth},
      {"Concat", 1, C::Concatenate, "concatenate", concat},
      {"Split", 1, C::Split, "split", split},
      {"Slice", 1, C::StridedSlice, "strided_slice", slice},
      {"Gather", 1, C::Take, "take", gather},
      {"GatherElements", 11, C::Take, "gather", gather},
      {"GatherND", 11, C::Take, "gather_nd", gather},
      {"Pad", 1, C::Pad, "nn_pad", pad},
      {"Expand", 8, C::Copy, "broadcast_to", expand},
      {"Tile", 1, C::Copy, "tile", tile},
      {"ScatterND", 11, C::Copy, "copy", like_data},
      {"ScatterElements", 11, C::Copy, "copy", like_data},
      {"Scatter", 9, C::Copy, "copy", like_data, 10},
      {"CumSum", 11, C::Cumsum, "cumsum", like_data},
      {"Trilu", 14, C::Where, "where", like_data},
      {"ReduceMean", 1, C::Mean, "mean", reduce},
      {"ReduceSum", 1, C::Sum, "sum", reduce},
      {"ReduceProd", 1, C::Sum, "prod", reduce},
      {"ReduceSumSquare", 1, C::Sum, "sum", reduce},
      {"ReduceL1", 1, C::Sum, "sum", reduce},
      {"ReduceL2", 1, C::Sum, "sum", reduce},
      {"ReduceLogSum", 1, C::Sum, "sum", reduce},
      {"ReduceLogSumExp", 1, C::Sum, "sum", reduce},
      {"ReduceMax", 1, C::Max, "max", reduce},
      {"ReduceMin", 1, C::Max, "min", reduce},
      {"ArgMax", 1, C::Max, "argmax", arg_reduce},
      {"ArgMin", 1, C::Max, "argmin", arg_reduce},
      {"TopK", 1, C::Max, "max", top_k},
      {"Shape", 1, C::Input, "", shape_op},
      {"Size", 1, C::Input, "", shape_op},
      {"Constant", 1, C::Input, "", constant},
      {"ConstantOfShape", 9, C::Fill, "full", generator},
      {"Range", 11, C::Fill, "arange", generator},
      {"OneHot", 9, C::Fill, "one_hot", generator},
      {"EyeLike", 9, C::Fill, "full", generator},
      {"RandomNormal", 1, C::Fill, "full", generator},
      {"RandomUniform", 1, C::Fill, "full", generator},
      {"RandomNormalLike", 1, C::Fill, "full", generator},
      {"RandomUniformLike", 1, C::Fill, "full", generator},
      {"NonZero", 9, C::Opaque, "", data_dependent},
      {"Compress", 9, C::Opaque, "", data_dependent},
      {"Unique", 11, C::Opaque, "", data_dependent},
      {"NonMaxSuppression", 10, C::Opaque, "", data_dependent},
  };
}

} // namespace lightsim::ir::onnxio
