#include "ir/error.h"
#include "ir/onnx/shape_rules.h"

#include <algorithm>
#include <onnx/onnx_pb.h>
#include <unordered_map>

namespace lightsim::ir::onnxio {

std::size_t NodeContext::num_outputs() const {
  return static_cast<std::size_t>(node_.output_size());
}

const TensorType& NodeContext::in(std::size_t i) const {
  if (!has(i)) fail("input " + std::to_string(i) + " is missing");
  return *inputs_[i].type;
}

const Values& NodeContext::values(std::size_t i, const char* what) const {
  in(i);
  const Values* v = resolve_ ? resolve_(inputs_[i].id) : nullptr;
  if (!v)
    fail("input " + std::to_string(i) + " '" + std::string(inputs_[i].name) + "' (" + what +
         ") is not known at import time: it is computed from data, not from shapes and constants");
  return *v;
}

std::vector<std::int64_t> NodeContext::ints(std::size_t i, const char* what) const {
  const Values& v = values(i, what);
  if (v.is_float)
    fail("input " + std::to_string(i) + " '" + std::string(inputs_[i].name) + "' (" + what +
         ") must be integers");
  return v.ints;
}

std::vector<double> NodeContext::numbers(std::size_t i, const char* what) const {
  const Values& v = values(i, what);
  std::vector<double> out(v.size());
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = v.number(k);
  return out;
}

const ::onnx::AttributeProto* NodeContext::attr(std::string_view name) const {
  for (const ::onnx::AttributeProto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t NodeContext::attr_int(std::string_view name, std::int64_t fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (!a) return fallback;
  if (a->type() != ::onnx::AttributeProto::INT && !(a->type() == 0 && a->has_i()))
    fail("attribute '" + std::string(name) + "' must be an integer");
  return a->i();
}

float NodeContext::attr_float(std::string_view name, float fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (!a) return fallback;
  if (a->type() != ::onnx::AttributeProto::FLOAT && !(a->type() == 0 && a->has_f()))
    fail("attribute '" + std::string(name) + "' must be a float");
  return a->f();
}

std::string NodeContext::attr_string(std::string_view name, const std::string& fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (!a) return fallback;
  if (a->type() != ::onnx::AttributeProto::STRING && !(a->type() == 0 && a->has_s()))
    fail("attribute '" + std::string(name) + "' must be a string");
  return a->s();
}

std::vector<std::int64_t> NodeContext::attr_ints(std::string_view name) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (!a) return {};
  if (a->type() != ::onnx::AttributeProto::INTS && !(a->type() == 0 && a->ints_size() > 0))
    fail("attribute '" + std::string(name) + "' must be a list of integers");
  return {a->ints().begin(), a->ints().end()};
}

std::vector<float> NodeContext::attr_floats(std::string_view name) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (!a) return {};
  if (a->type() != ::onnx::AttributeProto::FLOATS && !(a->type() == 0 && a->floats_size() > 0))
    fail("attribute '" + std::string(name) + "' must be a list of floats");
  return {a->floats().begin(), a->floats().end()};
}

std::size_t NodeContext::axis(std::int64_t a, std::size_t rank, const std::string& what) const {
  const auto r = static_cast<std::int64_t>(rank);
  if (a < -r || a >= r)
    fail(what + " " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
  return static_cast<std::size_t>(a < 0 ? a + r : a);
}

std::vector<std::size_t> NodeContext::axes(const std::vector<std::int64_t>& a, std::size_t rank,
                                           const char* what) const {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const std::size_t x = axis(a[k], rank, std::string(what) + "[" + std::to_string(k) + "]");
    if (std::find(out.begin(), out.end(), x) != out.end())
      fail(std::string(what) + " names axis " + std::to_string(x) + " twice");
    out.push_back(x);
  }
  return out;
}

void NodeContext::arity(std::size_t min, std::size_t max) const {
  std::size_t n = inputs_.size();
  while (n > 0 && !inputs_[n - 1].type)
    --n; // trailing optional inputs left empty
  if (n < min || inputs_.size() > max)
    fail("has " + std::to_string(inputs_.size()) + " inputs, expected " +
         (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)));
  for (std::size_t i = 0; i < min; ++i)
    if (!has(i)) fail("input " + std::to_string(i) + " is missing");
}

void NodeContext::fail(const std::string& reason) const {
  throw InputError(place_(), reason);
}

std::string shape_text(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text.append(i ? ", " : "").append(std::to_string(shape[i]));
  return text + "]";
}

Shape broadcast(const NodeContext& ctx, const std::vector<const Shape*>& shapes) {
  std::size_t rank = 0;
  for (const Shape* s : shapes)
    rank = std::max(rank, s->size());
  Shape out(rank, 1);
  for (const Shape* s : shapes)
    for (std::size_t k = 0; k < s->size(); ++k) {
      std::int64_t& o = out[rank - s->size() + k];
      const std::int64_t d = (*s)[k];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string list;
      for (const Shape* t : shapes)
        list.append(list.empty() ? "" : " and ").append(shape_text(*t));
      ctx.fail("shapes " + list + " do not broadcast");
    }
  return out;
}

void single_op(const OpRule& rule, NodePlan& plan, std::vector<int> data, OpClass op_class,
               std::string_view relay) {
  (void)rule;
  PlannedOp op;
  op.op_class = op_class;
  op.relay = relay;
  op.inputs = std::move(data);
  for (std::size_t k = 0; k < plan.outputs.size(); ++k)
    op.outputs.push_back(static_cast<int>(k));
  plan.ops.push_back(std::move(op));
}

std::vector<int> present_inputs(const NodeContext& ctx, std::size_t n) {
  std::vector<int> out;
  for (std::size_t i = 0; i < std::min(n, ctx.num_inputs()); ++i)
    if (ctx.has(i)) out.push_back(static_cast<int>(i));
  return out;
}

namespace {

const std::unordered_map<std::string_view, OpRule>& rule_index() {
  static const auto index = [] {
    static std::vector<OpRule> rules;
    for (auto part : {elementwise_rules(), nn_rules(), tensor_rules(), reduction_rules()})
      rules.insert(rules.end(), part.begin(), part.end());
    std::unordered_map<std::string_view, OpRule> map;
    for (const OpRule& r : rules)
      map.emplace(r.op_type, r);
    return map;
  }();
  return index;
}

} // namespace

const OpRule* find_rule(std::string_view op_type) {
  const auto& index = rule_index();
  const auto it = index.find(op_type);
  return it == index.end() ? nullptr : &it->second;
}

std::vector<const OpRule*> all_rules() {
  std::vector<const OpRule*> out;
  for (const auto& [name, rule] : rule_index())
    out.push_back(&rule);
  std::sort(out.begin(), out.end(), [](const OpRule* a, const OpRule* b) { return a->op_type < b->op_type; });
  return out;
}

} // namespace lightsim::ir::onnxio
