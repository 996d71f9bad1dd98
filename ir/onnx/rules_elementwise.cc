// Shape rules of the elementwise ops, activations, softmaxes and normalisations (ir/onnx/shape_rules.h).
#include "ir/onnx/shape_rules.h"

#include <onnx/onnx_pb.h>

namespace lightsim::ir::onnxio {
namespace {

// out = in, same dtype (or `out_dtype`).
void unary(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  plan.outputs.assign(ctx.num_outputs(), ctx.in(0));
  single_op(rule, plan, {0});
}

void unary_bool(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  plan.outputs.assign(ctx.num_outputs(), {ctx.shape(0), DType::Bool});
  single_op(rule, plan, {0});
}

// Binary ops: NumPy broadcasting from opset 7; before it, B is broadcast onto A when attribute broadcast
// is 1 (the output has A's shape) and the shapes must be equal otherwise.
Shape binary_shape(const NodeContext& ctx) {
  ctx.arity(2, 2);
  if (ctx.version() < 7) {
    if (ctx.attr_int("broadcast", 0) != 0) return ctx.shape(0);
    if (ctx.shape(0) != ctx.shape(1))
      ctx.fail("shapes " + shape_text(ctx.shape(0)) + " and " + shape_text(ctx.shape(1)) +
               " differ and attribute broadcast is 0");
    return ctx.shape(0);
  }
  return broadcast(ctx, {&ctx.shape(0), &ctx.shape(1)});
}

void binary(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  plan.outputs.assign(ctx.num_outputs(), {binary_shape(ctx), ctx.dtype(0)});
  single_op(rule, plan, {0, 1});
}

void compare(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  plan.outputs.assign(ctx.num_outputs(), {binary_shape(ctx), DType::Bool});
  single_op(rule, plan, {0, 1});
}

// PRelu: the slope broadcasts onto X.
void prelu(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(2, 2);
  if (ctx.version() >= 7 && broadcast(ctx, {&ctx.shape(0), &ctx.shape(1)}) != ctx.shape(0))
    ctx.fail("slope " + shape_text(ctx.shape(1)) + " does not broadcast onto X " + shape_text(ctx.shape(0)));
  plan.outputs.assign(ctx.num_outputs(), ctx.in(0));
  single_op(rule, plan, {0, 1});
}

// Sum, Mean, Max, Min: any number of inputs, broadcast together.
void variadic(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, SIZE_MAX);
  std::vector<const Shape*> shapes;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i)
    shapes.push_back(&ctx.shape(i));
  plan.outputs.assign(ctx.num_outputs(), {broadcast(ctx, shapes), ctx.dtype(0)});
  single_op(rule, plan, present_inputs(ctx, ctx.num_inputs()));
}

void where(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(3, 3);
  if (ctx.dtype(0) != DType::Bool) ctx.fail("condition must be bool");
  plan.outputs.assign(ctx.num_outputs(),
                      {broadcast(ctx, {&ctx.shape(0), &ctx.shape(1), &ctx.shape(2)}), ctx.dtype(1)});
  single_op(rule, plan, {0, 1, 2});
}

// Clip: min and max are attributes before opset 11, scalar inputs (Relay attributes) after.
void clip(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, ctx.version() >= 11 ? 3 : 1);
  for (std::size_t i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.has(i) && !ctx.shape(i).empty() && !(ctx.shape(i).size() == 1 && ctx.shape(i)[0] == 1))
      ctx.fail("min and max must be scalars, input " + std::to_string(i) + " is " + shape_text(ctx.shape(i)));
  plan.outputs.assign(ctx.num_outputs(), ctx.in(0));
  single_op(rule, plan, {0});
}

void cast(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  const ::onnx::AttributeProto* to = ctx.attr("to");
  if (!to) ctx.fail("attribute 'to' is missing");
  std::optional<DType> t;
  if (to->type() == ::onnx::AttributeProto::STRING) // Cast-1 named the type ("FLOAT")
    for (int code = 1; code <= 16 && !t; ++code)
      if (::onnx::TensorProto_DataType_IsValid(code) &&
          ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(code)) == to->s())
        t = dtype_of_onnx(code);
  if (to->type() != ::onnx::AttributeProto::STRING)
    t = dtype_of_onnx(static_cast<int>(ctx.attr_int("to", 0)));
  if (!t) ctx.fail("attribute 'to' names a type lightsim does not model (strings, complex, 8-bit floats)");
  plan.outputs.assign(ctx.num_outputs(), {ctx.shape(0), *t});
  single_op(rule, plan, {0});
}

void cast_like(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(2, 2);
  plan.outputs.assign(ctx.num_outputs(), {ctx.shape(0), ctx.dtype(1)});
  single_op(rule, plan, {0});
}

void softmax(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 1);
  if (ctx.rank(0) > 0) ctx.axis(ctx.attr_int("axis", ctx.version() >= 13 ? -1 : 1), ctx.rank(0), "axis");
  plan.outputs.assign(ctx.num_outputs(), ctx.in(0));
  single_op(rule, plan, {0});
}

// A per-channel parameter (scale, bias, mean, var) of `channels` elements.
void check_channel_param(const NodeContext& ctx, std::size_t i, std::int64_t channels) {
  if (!ctx.has(i)) return;
  const std::optional<std::int64_t> n = element_count(ctx.shape(i));
  if (!n || *n != channels)
    ctx.fail("input " + std::to_string(i) + " " + shape_text(ctx.shape(i)) +
             " must hold one value per channel (" + std::to_string(channels) + ")");
}

void batch_norm(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(5, 5);
  if (ctx.rank(0) < 2) ctx.fail("X must have rank >= 2, has " + shape_text(ctx.shape(0)));
  for (std::size_t i = 1; i < 5; ++i)
    check_channel_param(ctx, i, ctx.shape(0)[1]);
  plan.outputs.assign(ctx.num_outputs(), ctx.in(1)); // running mean / var (training outputs): per channel
  if (!plan.outputs.empty()) plan.outputs[0] = ctx.in(0);
  plan.side_outputs_from = 1;
  single_op(rule, plan, {0, 1, 2, 3, 4});
}

// LayerNormalization: Y like X; Mean and InvStdDev keep the dims before `axis` and are 1 after it.
void layer_norm(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(2, 3);
  const std::size_t axis = ctx.axis(ctx.attr_int("axis", -1), ctx.rank(0), "axis");
  Shape normalized(ctx.shape(0).begin() + static_cast<std::ptrdiff_t>(axis), ctx.shape(0).end());
  for (std::size_t i = 1; i < 3; ++i)
    if (ctx.has(i) && broadcast(ctx, {&normalized, &ctx.shape(i)}) != normalized)
      ctx.fail("input " + std::to_string(i) + " " + shape_text(ctx.shape(i)) +
               " does not broadcast onto the normalised dims " + shape_text(normalized));
  Shape stat = ctx.shape(0);
  for (std::size_t d = axis; d < stat.size(); ++d)
    stat[d] = 1;
  const std::optional<DType> stash = dtype_of_onnx(static_cast<int>(ctx.attr_int("stash_type", 1)));
  plan.outputs.assign(ctx.num_outputs(), {stat, stash.value_or(DType::Float32)});
  if (!plan.outputs.empty()) plan.outputs[0] = ctx.in(0);
  plan.side_outputs_from = 1;
  single_op(rule, plan, present_inputs(ctx, 3));
}

// InstanceNormalization, GroupNormalization, LpNormalization, MeanVarianceNormalization: Y like X.
void normalization(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 3);
  if (rule.op_type == "InstanceNormalization" || rule.op_type == "GroupNormalization") {
    if (ctx.rank(0) < 2) ctx.fail("X must have rank >= 2, has " + shape_text(ctx.shape(0)));
    if (rule.op_type == "GroupNormalization") {
      const std::int64_t groups = ctx.attr_int("num_groups", 0);
      if (groups <= 0 || ctx.shape(0)[1] % groups != 0)
        ctx.fail("num_groups " + std::to_string(groups) + " does not divide the " +
                 std::to_string(ctx.shape(0)[1]) + " channels");
    }
  }
  plan.outputs.assign(ctx.num_outputs(), ctx.in(0));
  single_op(rule, plan, present_inputs(ctx, 3));
}

} // namespace

std::vector<OpRule> elementwise_rules() {
  using C = OpClass;
  return {
      // Activations and unary math.
      {"Relu", 1, C::Relu, "nn_relu", unary},
      {"LeakyRelu", 1, C::Relu, "nn_leaky_relu", unary},
      {"ThresholdedRelu", 10, C::Relu, "nn_relu", unary},
      {"PRelu", 1, C::Relu, "nn_prelu", prelu},
      {"Elu", 1, C::Exp, "exp", unary},
      {"Selu", 1, C::Exp, "exp", unary},
      {"Celu", 12, C::Exp, "exp", unary},
      {"Sigmoid", 1, C::Sigmoid, "sigmoid", unary},
      {"HardSigmoid", 1, C::Clip, "clip", unary},
      {"HardSwish", 14, C::Clip, "clip", unary},
      {"Tanh", 1, C::Tanh, "tanh", unary},
      {"Mish", 18, C::Tanh, "tanh", unary},
      {"Erf", 9, C::Erf, "erf", unary},
      {"Gelu", 20, C::Erf, "erf", unary},
      {"Exp", 1, C::Exp, "exp", unary},
      {"Log", 1, C::Transcendental, "log", unary},
      {"Softplus", 1, C::Transcendental, "log", unary},
      {"Softsign", 1, C::Divide, "divide", unary},
      {"Sqrt", 1, C::Sqrt, "sqrt", unary},
      {"Reciprocal", 1, C::Divide, "divide", unary},
      {"Neg", 1, C::Negative, "negative", unary},
      {"Abs", 1, C::Elementwise, "abs", unary},
      {"Sign", 9, C::Elementwise, "sign", unary},
      {"Floor", 1, C::Elementwise, "floor", unary},
      {"Ceil", 1, C::Elementwise, "ceil", unary},
      {"Round", 11, C::Elementwise, "round", unary},
      {"Shrink", 9, C::Where, "where", unary},
      {"BitwiseNot", 18, C::Elementwise, "bitwise_not", unary},
      {"Not", 1, C::Elementwise, "logical_not", unary_bool},
      {"IsNaN", 9, C::Elementwise, "isnan", unary_bool},
      {"IsInf", 10, C::Elementwise, "isinf", unary_bool},
      {"Sin", 7, C::Transcendental, "sin", unary},
      {"Cos", 7, C::Transcendental, "cos", unary},
      {"Tan", 7, C::Transcendental, "tan", unary},
      {"Asin", 7, C::Transcendental, "asin", unary},
      {"Acos", 7, C::Transcendental, "acos", unary},
      {"Atan", 7, C::Transcendental, "atan", unary},
      {"Sinh", 9, C::Transcendental, "sinh", unary},
      {"Cosh", 9, C::Transcendental, "cosh", unary},
      {"Asinh", 9, C::Transcendental, "asinh", unary},
      {"Acosh", 9, C::Transcendental, "acosh", unary},
      {"Atanh", 9, C::Transcendental, "atanh", unary},
      {"Clip", 1, C::Clip, "clip", clip},
      {"Cast", 1, C::Cast, "cast", cast},
      {"CastLike", 15, C::Cast, "cast_like", cast_like},
      // Binary arithmetic, comparisons and logic.
      {"Add", 1, C::Add, "add", binary},
      {"Sub", 1, C::Subtract, "subtract", binary},
      {"Mul", 1, C::Multiply, "multiply", binary},
      {"Div", 1, C::Divide, "divide", binary},
      {"Pow", 1, C::Power, "power", binary},
      {"Mod", 10, C::Elementwise, "floor_mod", binary},
      {"BitShift", 11, C::Elementwise, "left_shift", binary},
      {"BitwiseAnd", 18, C::Elementwise, "bitwise_and", binary},
      {"BitwiseOr", 18, C::Elementwise, "bitwise_or", binary},
      {"BitwiseXor", 18, C::Elementwise, "bitwise_xor", binary},
      {"And", 1, C::Elementwise, "logical_and", compare},
      {"Or", 1, C::Elementwise, "logical_or", compare},
      {"Xor", 1, C::Elementwise, "logical_xor", compare},
      {"Equal", 1, C::Elementwise, "equal", compare},
      {"Greater", 1, C::Elementwise, "greater", compare},
      {"GreaterOrEqual", 12, C::Elementwise, "greater_equal", compare},
      {"LessOrEqual", 12, C::Elementwise, "less_equal", compare},
      {"Less", 1, C::Less, "less", compare},
      {"Sum", 1, C::Add, "add", variadic},
      {"Mean", 1, C::Add, "add", variadic},
      {"Max", 1, C::Maximum, "maximum", variadic},
      {"Min", 1, C::Maximum, "minimum", variadic},
      {"Where", 9, C::Where, "where", where},
      // Softmaxes and normalisations.
      {"Softmax", 1, C::Softmax, "nn_softmax", softmax},
      {"LogSoftmax", 1, C::LogSoftmax, "nn_log_softmax", softmax},
      {"Hardmax", 1, C::Max, "argmax", softmax},
      {"BatchNormalization", 1, C::BatchNorm, "nn_batch_norm", batch_norm},
      {"LayerNormalization", 17, C::LayerNorm, "nn_layer_norm", layer_norm},
      {"InstanceNormalization", 1, C::LayerNorm, "nn_instance_norm", normalization},
      {"GroupNormalization", 18, C::LayerNorm, "nn_group_norm", normalization},
      {"LpNormalization", 1, C::LayerNorm, "nn_l2_normalize", normalization},
      {"MeanVarianceNormalization", 9, C::LayerNorm, "nn_layer_norm", normalization},
      {"LRN", 1, C::Lrn, "nn_lrn", unary},
  };
}

} // namespace lightsim::ir::onnxio
