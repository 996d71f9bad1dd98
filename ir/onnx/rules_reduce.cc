// Shape rules of the reduction, rearrangement, scatter and generator ops, and of the ops whose values
// lightsim computes at import (ir/onnx/shape_rules.h).
#include "ir/onnx/shape_rules.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <onnx/onnx_pb.h>

namespace lightsim::ir::onnxio {
namespace {

using C = OpClass;

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
      checked_element_count(ctx, t.shape);
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
  checked_element_count(ctx, t.shape);
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

std::vector<OpRule> reduction_rules() {
  return {
      {"DepthToSpace", 1, C::Transpose, "nn_depth_to_space", space_depth},
      {"SpaceToDepth", 1, C::Transpose, "nn_space_to_depth", space_depth},
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
