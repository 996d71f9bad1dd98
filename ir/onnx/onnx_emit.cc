// OnnxImporter::build (ir/onnx/onnx_importer.h): the ir::Graph of the live nodes. Per-run inputs first,
// then the constants the ops read (initializers, folded shape computations) as bound parameters, then every
// live node's ops in topological order.
//
// A small constant (at most kPerUseConstantBytes) that several ops read is given to each op as its own
// bound constant, placed just before it: exporters share one initializer across layers (PyTorch's
// deduplicates equal ones: a LayerNorm weight read by all 25 of GPT-2's norms, an attention scale, the
// causal mask), and one tensor read by every layer ties the placement of all of them together, beyond what
// the exact solver's tables hold. A weight that large is shared as it is (a tied embedding).
#include "ir/error.h"
#include "ir/onnx/onnx_importer.h"

namespace lightsim::ir::onnxio {
namespace {

constexpr std::uint64_t kPerUseConstantBytes = 64 * 1024;

} // namespace

void OnnxImporter::build() {
  Graph& g = result_.graph;
  g.source = source_;
  std::vector<TensorId> tensor_of(values_.size(), -1);
  // `place()` names the tensor in a message (built only for one).
  const auto add_tensor = [&](const TensorType& t, const auto& place) {
    Tensor tensor;
    tensor.shape = t.shape;
    tensor.dtype = t.dtype;
    const std::optional<std::int64_t> n = element_count(t.shape);
    if (!n) throw InputError(place(), "shape " + shape_text(t.shape) + " has more than 2^63 elements");
    tensor.elements = static_cast<std::uint64_t>(*n);
    const std::optional<std::uint64_t> bytes = dtype_tensor_bytes(t.dtype, tensor.elements);
    if (!bytes) throw InputError(place(), "shape " + shape_text(t.shape) + " is more than 2^64 bytes");
    tensor.bytes = *bytes;
    tensor.producer = static_cast<OpId>(g.ops.size() - 1);
    tensor.output_index = static_cast<std::int32_t>(g.ops.back().outputs.size());
    g.tensors.push_back(std::move(tensor));
    const auto id = static_cast<TensorId>(g.tensors.size() - 1);
    g.ops.back().outputs.push_back(id);
    return id;
  };
  // An Input op for `v` (a bound constant when `param`) and its tensor.
  const auto value_op = [&](const Value& v, bool param) {
    Op op;
    op.name = v.name;
    op.op_class = OpClass::Input;
    op.is_param = param;
    g.ops.push_back(std::move(op));
    return add_tensor(v.type, [&] { return source_ + ": '" + v.name + "'"; });
  };
  const auto input_op = [&](int id, bool param) {
    tensor_of[static_cast<std::size_t>(id)] = value_op(values_[static_cast<std::size_t>(id)], param);
  };
  for (std::size_t id = 0; id < values_.size(); ++id)
    if (values_[id].kind == Value::Input) input_op(static_cast<int>(id), false);
  // Reads of each constant by the ops.
  std::vector<int> reads(values_.size(), 0);
  for (std::size_t n : order_)
    if (nodes_[n].live)
      for (const PlannedOp& p : nodes_[n].plan.ops)
        for (int ref : p.inputs)
          if (ref >= 0 && nodes_[n].inputs[static_cast<std::size_t>(ref)] >= 0)
            ++reads[static_cast<std::size_t>(nodes_[n].inputs[static_cast<std::size_t>(ref)])];
  std::vector<bool> is_head(values_.size(), false); // a graph output keeps its one tensor
  for (const ::onnx::ValueInfoProto& out : graph_.output())
    is_head[static_cast<std::size_t>(value_id(out.name()))] = true;
  const auto per_use = [&](int id) {
    const Value& v = values_[static_cast<std::size_t>(id)];
    if (is_head[static_cast<std::size_t>(id)]) return false;
    const std::optional<std::int64_t> n = element_count(v.type.shape);
    return v.constant && reads[static_cast<std::size_t>(id)] > 1 && n &&
           static_cast<std::uint64_t>(*n) * dtype_storage_bytes(v.type.dtype) <= kPerUseConstantBytes;
  };
  for (std::size_t id = 0; id < values_.size(); ++id)
    if (values_[id].kind == Value::Initializer && values_[id].needed && !per_use(static_cast<int>(id)))
      input_op(static_cast<int>(id), true);
  for (std::size_t n : order_) {
    NodeState& s = nodes_[n];
    const ::onnx::NodeProto& node = *s.node;
    if (s.folded) {
      for (int id : s.outputs)
        if (id >= 0 && values_[static_cast<std::size_t>(id)].needed && !per_use(id)) input_op(id, true);
      continue;
    }
    if (!s.live) continue;
    const std::string base = node.name().empty() ? node.op_type() + "_" + std::to_string(n) : node.name();
    std::vector<TensorId> temps(s.plan.temps.size(), -1);
    for (std::size_t i = 0; i < s.plan.ops.size(); ++i) {
      const PlannedOp& p = s.plan.ops[i];
      Op op;
      op.name = i + 1 == s.plan.ops.size() ? base : base + p.suffix;
      op.op_class = p.op_class;
      op.func_name =
          s.unknown_class == OpClass::Opaque ? p.relay : std::string("tvmgen_default_fused_") + p.relay;
      op.attrs = p.attrs;
      op.node_index = static_cast<std::int32_t>(n);
      for (int ref : p.inputs) {
        const int id = ref < 0 ? -1 : s.inputs[static_cast<std::size_t>(ref)];
        if (id >= 0 && per_use(id)) { // this op's own copy of a small shared constant
          op.inputs.push_back(value_op(values_[static_cast<std::size_t>(id)], true));
          continue;
        }
        op.inputs.push_back(ref < 0 ? temps[static_cast<std::size_t>(-ref - 1)]
                                    : tensor_of[static_cast<std::size_t>(id)]);
      }
      g.ops.push_back(std::move(op));
      for (int ref : p.outputs) {
        if (ref < 0) {
          temps[static_cast<std::size_t>(-ref - 1)] =
              add_tensor(s.plan.temps[static_cast<std::size_t>(-ref - 1)], [&] { return node_place(n); });
          continue;
        }
        const int id = s.outputs[static_cast<std::size_t>(ref)];
        if (id < 0) continue; // an optional output the node leaves unnamed
        if (static_cast<std::size_t>(ref) >= s.plan.side_outputs_from &&
            !values_[static_cast<std::size_t>(id)].needed)
          continue;
        tensor_of[static_cast<std::size_t>(id)] =
            add_tensor(values_[static_cast<std::size_t>(id)].type, [&] { return node_place(n); });
      }
    }
  }
  for (const ::onnx::ValueInfoProto& out : graph_.output())
    g.heads.push_back(tensor_of[static_cast<std::size_t>(value_id(out.name()))]);
  for (const Op& op : g.ops)
    for (TensorId t : op.inputs)
      if (t < 0)
        throw InputError(source_, "internal: op '" + op.name + "' reads a tensor that was not built");
  g.finalize();
}

} // namespace lightsim::ir::onnxio
