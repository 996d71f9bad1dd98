// OnnxImporter's second half (ir/onnx/onnx_importer.h): classify, infer and fold every node, check the
// declared types, keep what the graph's outputs need and build the ir::Graph.
#include "ir/error.h"
#include "ir/onnx/onnx_importer.h"

#include <map>

namespace lightsim::ir::onnxio {
namespace {

constexpr std::string_view kLightsimDomain = "ai.lightsim";
constexpr std::string_view kFuncPrefix = "tvmgen_default_fused_";

bool standard_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

} // namespace

void OnnxImporter::classify_nodes() {
  std::map<std::string, std::vector<std::size_t>> unknown; // "domain.op" -> nodes
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    NodeState& s = nodes_[n];
    const ::onnx::NodeProto& node = *s.node;
    if (standard_domain(node.domain())) s.rule = find_rule(node.op_type());
    if (node.domain() == kLightsimDomain) {
      if (const std::optional<Classification> c =
              classify_func_name(std::string(kFuncPrefix) + node.op_type());
          c && c->tail.empty()) {
        s.lightsim_domain = true;
        s.unknown_class = c->anchor;
      }
    }
    if (s.rule || s.lightsim_domain) continue;
    unknown[(node.domain().empty() ? "" : node.domain() + ".") + node.op_type()].push_back(n);
  }
  if (unknown.empty()) return;
  std::string list;
  for (const auto& [op, where] : unknown) {
    list.append(list.empty() ? "" : ", ")
        .append("'" + op + "' (first at node " + std::to_string(where.front()) + " '" +
                nodes_[where.front()].node->name() + "'" +
                (where.size() > 1 ? ", " + std::to_string(where.size()) + " nodes" : "") + ")");
    if (options_.unknown_ops == UnknownOpPolicy::Cpu) {
      result_.warnings.push_back(node_place(where.front()) + ": unknown op (" + std::to_string(where.size()) +
                                 " nodes): treated as opaque, elementwise cost on CPUs only");
      for (std::size_t n : where)
        nodes_[n].unknown_class = OpClass::Opaque;
    }
  }
  if (options_.unknown_ops == UnknownOpPolicy::Error)
    throw InputError(source_, std::to_string(unknown.size()) + " unknown op type" +
                                  (unknown.size() > 1 ? "s: " : ": ") + list +
                                  "; --unknown-op=cpu runs them as opaque CPU ops");
}

// The type value_info or the graph's outputs declare for `name`, when it is complete (every dim a number or
// a bound name).
std::optional<TensorType> OnnxImporter::declared_type(const std::string& name) const {
  const auto it = declared_.find(name);
  if (it == declared_.end() || !it->second->type().has_tensor_type()) return std::nullopt;
  const ::onnx::TypeProto_Tensor& tt = it->second->type().tensor_type();
  const std::optional<DType> dtype = dtype_of_onnx(tt.elem_type());
  if (!dtype || !tt.has_shape()) return std::nullopt;
  TensorType t{{}, *dtype};
  for (const ::onnx::TensorShapeProto_Dimension& d : tt.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0)
      t.shape.push_back(d.dim_value());
    else if (const auto b = options_.dims.find(d.dim_param()); d.has_dim_param() && b != options_.dims.end())
      t.shape.push_back(b->second);
    else
      return std::nullopt;
  }
  return t;
}

const Values* OnnxImporter::resolve(int id) {
  if (id < 0) return nullptr;
  Value& v = values_[static_cast<std::size_t>(id)];
  if (v.values) return &*v.values;
  if (v.kind != Value::Initializer || !v.foldable) return nullptr;
  const std::int64_t n = element_count(v.type.shape).value_or(0);
  if (n > fold_budget_) return nullptr;
  fold_budget_ -= n;
  v.values = tensor_values(*v.init, v.type.dtype, v.type.shape); // data checked on reading
  return v.values ? &*v.values : nullptr;
}

void OnnxImporter::infer(std::size_t n) {
  NodeState& s = nodes_[n];
  const ::onnx::NodeProto& node = *s.node;
  if (s.rule) {
    if (opset_ > kNewestKnownOpset)
      fail_node(n, "the model's opset " + std::to_string(opset_) +
                       " is newer than the newest lightsim knows (" + std::to_string(kNewestKnownOpset) +
                       "): the op's semantics there are unknown");
    if (opset_ < s.rule->since)
      fail_node(n, "the op first appears in opset " + std::to_string(s.rule->since) +
                       ", the model's opset is " + std::to_string(opset_));
    if (s.rule->until && opset_ > s.rule->until)
      fail_node(n, "the op was removed after opset " + std::to_string(s.rule->until) +
                       ", the model's opset is " + std::to_string(opset_));
    std::vector<InputView> views;
    for (std::size_t k = 0; k < s.inputs.size(); ++k) {
      const int id = s.inputs[k];
      views.push_back(id < 0 ? InputView{}
                             : InputView{&values_[static_cast<std::size_t>(id)].type, id,
                                         node.input(static_cast<int>(k))});
    }
    const NodeContext ctx(
        node, opset_, std::move(views), [this, n] { return node_place(n); },
        [this](int id) { return resolve(id); });
    s.rule->infer(ctx, *s.rule, s.plan);
  } else { // an ai.lightsim op or an unknown op admitted as opaque: the declared shapes
    for (std::size_t k = 0; k < s.outputs.size(); ++k) {
      const std::optional<TensorType> t = node.output(static_cast<int>(k)).empty()
                                              ? std::optional<TensorType>(TensorType{})
                                              : declared_type(node.output(static_cast<int>(k)));
      if (!t)
        fail_node(n,
                  "output '" + node.output(static_cast<int>(k)) +
                      "' has no complete declared type (value_info), which an op lightsim has no shape rule "
                      "for needs");
      s.plan.outputs.push_back(*t);
    }
    std::vector<int> data;
    for (std::size_t k = 0; k < s.inputs.size(); ++k)
      if (s.inputs[k] >= 0) data.push_back(static_cast<int>(k));
    PlannedOp op{
        *s.unknown_class, s.lightsim_domain ? node.op_type() : node.op_type(), data, {}, nullptr, ""};
    for (std::size_t k = 0; k < s.outputs.size(); ++k)
      op.outputs.push_back(static_cast<int>(k));
    s.plan.ops.push_back(std::move(op));
  }
  if (s.plan.outputs.size() != s.outputs.size())
    fail_node(n, "has " + std::to_string(s.outputs.size()) + " outputs, the op gives " +
                     std::to_string(s.plan.outputs.size()));
  for (std::size_t k = 0; k < s.outputs.size(); ++k) {
    if (s.outputs[k] < 0) continue;
    Value& v = values_[static_cast<std::size_t>(s.outputs[k])];
    v.type = s.plan.outputs[k];
    v.typed = true;
    if (!element_count(v.type.shape))
      fail_node(n, "output '" + v.name + "' would have shape " + shape_text(v.type.shape) +
                       " (a negative dim or more than 2^63 elements)");
  }
  fold_node(n);
}

void OnnxImporter::fold_node(std::size_t n) {
  NodeState& s = nodes_[n];
  if (!s.rule) return;
  const bool source = s.rule->op_class == OpClass::Input; // Constant, Shape, Size: never ops
  std::vector<Operand> in;
  for (int id : s.inputs) {
    if (id < 0) {
      in.push_back({nullptr, DType::Float32, nullptr});
      continue;
    }
    const Value& v = values_[static_cast<std::size_t>(id)];
    if (!source && !v.foldable && !v.values) return; // an input known only at run time
    in.push_back({&v.type.shape, v.type.dtype, nullptr});
  }
  std::int64_t produced = 0;
  std::vector<std::pair<const Shape*, DType>> out;
  for (const TensorType& t : s.plan.outputs) {
    out.emplace_back(&t.shape, t.dtype);
    produced += element_count(t.shape).value_or(kMaxFoldElements + 1);
  }
  std::vector<Values> results;
  bool ok = produced <= fold_budget_;
  for (std::size_t k = 0; ok && k < in.size(); ++k)
    if (in[k].shape && s.rule->op_type != "Shape" && s.rule->op_type != "Size") {
      in[k].values = resolve(s.inputs[k]);
      ok = in[k].values != nullptr;
    }
  try {
    ok = ok && fold(*s.node, opset_, in, out, results);
  } catch (const InputError& e) {
    fail_node(n, e.what());
  }
  if (!ok && !source) return;
  s.folded = true;
  if (ok) fold_budget_ -= produced;
  for (std::size_t k = 0; k < s.outputs.size(); ++k) {
    if (s.outputs[k] < 0) continue;
    Value& v = values_[static_cast<std::size_t>(s.outputs[k])];
    v.constant = true;
    if (ok && k < results.size()) {
      v.values = std::move(results[k]);
      v.foldable = true;
    }
  }
}

void OnnxImporter::check_declared_types() {
  for (const auto& [name, info] : declared_) {
    const int id = value_id(name);
    if (id < 0 || !info->type().has_tensor_type()) continue;
    const Value& v = values_[static_cast<std::size_t>(id)];
    if (!v.typed) continue;
    const ::onnx::TypeProto_Tensor& tt = info->type().tensor_type();
    std::string problem;
    if (tt.elem_type() != 0 && dtype_of_onnx(tt.elem_type()) != v.type.dtype)
      problem = "element type " + std::to_string(tt.elem_type());
    if (problem.empty() && tt.has_shape()) {
      bool same = tt.shape().dim_size() == static_cast<int>(v.type.shape.size());
      for (int d = 0; same && d < tt.shape().dim_size(); ++d) {
        const ::onnx::TensorShapeProto_Dimension& dim = tt.shape().dim(d);
        const std::int64_t got = v.type.shape[static_cast<std::size_t>(d)];
        if (dim.has_dim_value())
          same = dim.dim_value() == got;
        else if (const auto b = options_.dims.find(dim.dim_param());
                 dim.has_dim_param() && b != options_.dims.end())
          same = b->second == got;
      }
      if (!same) {
        problem = "shape [";
        for (int d = 0; d < tt.shape().dim_size(); ++d) {
          const ::onnx::TensorShapeProto_Dimension& dim = tt.shape().dim(d);
          problem +=
              (d ? ", " : "") + (dim.has_dim_value() ? std::to_string(dim.dim_value()) : dim.dim_param());
        }
        problem += "]";
      }
    }
    if (problem.empty()) continue;
    const std::string what = "'" + name + "' is declared with " + problem + " but is " +
                             std::string(dtype_name(v.type.dtype)) + " " + shape_text(v.type.shape);
    if (v.producer >= 0) fail_node(static_cast<std::size_t>(v.producer), "output " + what);
    throw InputError(source_, what);
  }
}

void OnnxImporter::mark_live() {
  for (const ::onnx::ValueInfoProto& out : graph_.output())
    values_[static_cast<std::size_t>(value_id(out.name()))].needed = true;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    NodeState& s = nodes_[*it];
    if (s.folded) continue;
    for (int id : s.outputs)
      s.live = s.live || (id >= 0 && values_[static_cast<std::size_t>(id)].needed);
    if (!s.live) continue;
    for (const PlannedOp& op : s.plan.ops)
      for (int ref : op.inputs)
        if (ref >= 0 && s.inputs[static_cast<std::size_t>(ref)] >= 0)
          values_[static_cast<std::size_t>(s.inputs[static_cast<std::size_t>(ref)])].needed = true;
  }
}

} // namespace lightsim::ir::onnxio
