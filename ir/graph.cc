#include "ir/graph.h"

#include "ir/error.h"
#include "ir/model_state.h"
#include "ir/op_shapes.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace lightsim::ir {
namespace {

using Shape = std::vector<std::int64_t>;

// Product of shape[begin, end); dims are validated non-negative and their product fits 64 bits.
std::int64_t product(const Shape& shape, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i)
    p *= shape[i];
  return p;
}

// Fused attention: Q = input 0 (batch x m x k elements), K = input 1 (batch x n x k), V = the last input
// (any layouts), O = output 0 [.., m, value_dim]; the inputs between are the scale and mask operands.
void attention_features(const Graph& g, const Op& op, OpFeatures& f) {
  if (op.inputs.size() < 3 || op.outputs.empty())
    throw InputError("attention: needs Q, K and V inputs and an output, has " +
                     std::to_string(op.inputs.size()) + " inputs");
  const Tensor& q = g.tensors[static_cast<std::size_t>(op.inputs[0])];
  const Tensor& k = g.tensors[static_cast<std::size_t>(op.inputs[1])];
  const Tensor& out = g.tensors[static_cast<std::size_t>(op.outputs[0])];
  if (q.shape.size() < 2 || out.shape.size() < 2)
    throw InputError("attention: Q and the output must have rank >= 2 (Q " + shape_text(q.shape) +
                     ", output " + shape_text(out.shape) + ")");
  // The sizes come from the output and the operands' element counts, not their layouts: the attention
  // reads Q, K and V through strides, so the fused op's inputs may be them before a head split or transpose.
  const std::int64_t batch = product(out.shape, 0, out.shape.size() - 2);
  const std::int64_t m = out.shape[out.shape.size() - 2];
  const std::int64_t rows = batch * m;
  const std::int64_t head = rows > 0 && q.elements % static_cast<std::uint64_t>(rows) == 0
                                ? static_cast<std::int64_t>(q.elements) / rows
                                : 0;
  if (batch <= 0 || m <= 0 || head <= 0 || k.elements % static_cast<std::uint64_t>(batch * head) != 0)
    throw InputError("attention: Q " + shape_text(q.shape) + ", K " + shape_text(k.shape) + " and output " +
                     shape_text(out.shape) + " do not form batch x (m x k) x (k x n)");
  f.gemm_batch = batch;
  f.gemm_m = m;
  f.gemm_k = head;
  f.gemm_n = static_cast<std::int64_t>(k.elements / static_cast<std::uint64_t>(batch * head));
  f.attention_value_dim = out.shape.back();
  f.attention_element_bytes = dtype_element_bytes(q.dtype);
  f.gemm_dtype = q.dtype;
  const double scores = static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(f.gemm_n);
  f.macs = scores * static_cast<double>(head + f.attention_value_dim);
  for (std::size_t i = 2; i + 1 < op.inputs.size(); ++i) {
    const Tensor& side = g.tensors[static_cast<std::size_t>(op.inputs[i])];
    const Op* producer = side.producer >= 0 ? &g.ops[static_cast<std::size_t>(side.producer)] : nullptr;
    const bool constant = producer && producer->op_class == OpClass::Input && producer->is_param;
    if (!constant && side.elements > 1) f.attention_mask_bytes += scores * dtype_element_bytes(side.dtype);
    if (constant && side.elements > 1) f.attention_causal = true;
  }
  f.fused_ops = scores * static_cast<double>(op.features.fused_tail.size());
}

// OpFeatures::row_elements and row_passes_off_chip.
void row_features(const Graph& g, const Op& op, OpFeatures& f) {
  if (op.inputs.empty()) return;
  const Tensor& in = g.tensors[static_cast<std::size_t>(op.inputs[0])];
  if (in.shape.empty()) return;
  switch (op.op_class) {
  case OpClass::Softmax:
  case OpClass::LogSoftmax:
    f.row_passes_off_chip = 3;
    break;
  case OpClass::LayerNorm:
    f.row_passes_off_chip = 2;
    break;
  default:
    return;
  }
  f.row_elements = in.shape.back();
}

// OpFeatures::collective_*: one input and one output whose sizes agree with the collective and its group
// (all-reduce: equal; all-gather: the output num_workers times the input; reduce-scatter: the reverse).
// The reduction's arithmetic is not charged (ir/cost/collectives.h), so no elementwise_ops.
void collective_features(const Graph& g, const Op& op, OpFeatures& f) {
  const std::int64_t n = op.attrs ? op.attrs->num_workers : 0;
  if (n < 2)
    throw InputError("a collective needs attrs.num_workers, its group's size (2 or more), got " +
                     std::to_string(n));
  if (op.inputs.size() != 1 || op.outputs.size() != 1)
    throw InputError("a collective takes one tensor and gives one, got " + std::to_string(op.inputs.size()) +
                     " input(s) and " + std::to_string(op.outputs.size()) + " output(s)");
  const Tensor& in = g.tensors[static_cast<std::size_t>(op.inputs[0])];
  const Tensor& out = g.tensors[static_cast<std::size_t>(op.outputs[0])];
  const auto workers = static_cast<std::uint64_t>(n);
  const std::uint64_t want = op.op_class == OpClass::AllGather       ? in.elements * workers
                             : op.op_class == OpClass::ReduceScatter ? in.elements / workers
                                                                     : in.elements;
  if (out.elements != want || (op.op_class == OpClass::ReduceScatter && in.elements % workers != 0))
    throw InputError(std::string(op_class_name(op.op_class)) + " over " + std::to_string(n) + " workers of " +
                     std::to_string(in.elements) + " elements cannot give " + std::to_string(out.elements));
  f.collective_workers = n;
  f.collective_bytes = static_cast<double>(op.op_class == OpClass::AllGather ? out.bytes : in.bytes);
}

OpFeatures compute_features(const Graph& g, const Op& op) {
  OpFeatures f; // fused_tail: kept by finalize (set by the importer or the fusion pass, not derived)
  for (TensorId id : op.inputs) {
    const Tensor& t = g.tensors[static_cast<std::size_t>(id)];
    f.elements_in += static_cast<double>(t.elements);
    f.bytes_in += static_cast<double>(t.bytes);
    const std::uint64_t read = bytes_read_from(g, op, id);
    f.bytes_read += static_cast<double>(read);
    const Op* producer = t.producer >= 0 ? &g.ops[static_cast<std::size_t>(t.producer)] : nullptr;
    if (producer && producer->op_class == OpClass::Input && producer->is_param)
      f.param_bytes += static_cast<double>(read);
    f.elements_read += read == t.bytes ? static_cast<double>(t.elements)
                                       : std::floor(static_cast<double>(read) / dtype_element_bytes(t.dtype));
    for (std::int64_t d : t.shape)
      f.max_dim = std::max(f.max_dim, static_cast<double>(d));
  }
  for (TensorId id : op.outputs) {
    const Tensor& t = g.tensors[static_cast<std::size_t>(id)];
    f.elements_out += static_cast<double>(t.elements);
    f.bytes_out += static_cast<double>(t.bytes);
  }
  row_features(g, op, f);
  if (is_collective(op.op_class)) {
    collective_features(g, op, f);
    return f;
  }
  if (op.op_class == OpClass::Attention) {
    attention_features(g, op, f);
    f.elementwise_ops = f.fused_ops;
    return f;
  }
  GemmView v;
  if (op.fused) {
    v = {op.fused->gemm_batch, op.fused->gemm_m, op.fused->gemm_n, op.fused->gemm_k,
         op.fused->im2col_extra_bytes};
    f.gemm_dtype = op.fused->gemm_dtype;
  } else if (is_gemm_like(op.op_class)) {
    v = gemm_view(g, op);
    f.gemm_dtype = g.tensors[static_cast<std::size_t>(op.inputs[0])].dtype;
  } else if (op.op_class == OpClass::Pool) {
    check_pool(g, op);
  }
  f.gemm_batch = v.batch;
  f.gemm_m = v.m;
  f.gemm_n = v.n;
  f.gemm_k = v.k;
  f.im2col_extra_bytes = v.im2col_extra_bytes;
  f.macs = static_cast<double>(v.batch) * static_cast<double>(v.m) * static_cast<double>(v.n) *
           static_cast<double>(v.k);
  if (op.fused) {
    f.elementwise_ops = op.fused->elementwise_ops;
    f.fused_ops = op.fused->fused_ops;
    f.row_kernel = op.fused->row_kernel;
  } else {
    f.fused_ops = static_cast<double>(op.features.fused_tail.size()) * f.elements_out;
    f.elementwise_ops = (f.macs > 0 ? 0 : std::max(f.elements_read, f.elements_out)) + f.fused_ops;
  }
  return f;
}

std::string op_place(const Graph& g, const Op& op, std::size_t index) {
  std::string where = g.source.empty() ? std::string("graph") : g.source;
  if (op.node_index >= 0) return where + ": nodes[" + std::to_string(op.node_index) + "] '" + op.name + "'";
  return where + ": op " + std::to_string(index) + " '" + op.name + "'";
}

} // namespace

void Graph::finalize() {
  consumers.assign(tensors.size(), {});
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    for (std::span<const TensorId> ids :
         {std::span<const TensorId>(op.inputs), std::span<const TensorId>(op.outputs)})
      for (TensorId t : ids)
        if (t < 0 || static_cast<std::size_t>(t) >= tensors.size())
          throw InputError(op_place(*this, op, i), "tensor id " + std::to_string(t) + " out of range (" +
                                                       std::to_string(tensors.size()) + " tensors)");
    for (TensorId t : op.inputs) {
      std::vector<OpId>& readers = consumers[static_cast<std::size_t>(t)];
      if (readers.empty() || readers.back() != static_cast<OpId>(i)) readers.push_back(static_cast<OpId>(i));
    }
  }
  for (Op& op : ops)
    if (op.op_class == OpClass::Input && !op.is_param && op.outputs.size() == 1)
      op.is_state = is_model_state_input(op.name, tensors[static_cast<std::size_t>(op.outputs[0])].shape);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    try {
      OpFeatures f = compute_features(*this, ops[i]);
      f.fused_tail = std::move(ops[i].features.fused_tail);
      ops[i].features = std::move(f);
    } catch (const InputError& e) {
      throw InputError(op_place(*this, ops[i], i), e.what());
    }
  }
}

std::size_t Graph::num_compute_ops() const {
  return static_cast<std::size_t>(
      std::count_if(ops.begin(), ops.end(), [](const Op& op) { return op.op_class != OpClass::Input; }));
}

std::uint64_t bytes_read_from(const Graph& graph, const Op& op, TensorId t) {
  const Tensor& in = graph.tensors[static_cast<std::size_t>(t)];
  if (op.fused && op.fused->input_bytes_read.size() == op.inputs.size()) {
    const auto at = std::find(op.inputs.begin(), op.inputs.end(), t);
    if (at != op.inputs.end())
      return op.fused->input_bytes_read[static_cast<std::size_t>(at - op.inputs.begin())];
  }
  const auto is_gather = [](OpClass c) { return c == OpClass::Take || c == OpClass::StridedSlice; };
  const bool gather = is_gather(op.op_class) ||
                      std::any_of(op.features.fused_tail.begin(), op.features.fused_tail.end(), is_gather);
  if (!gather || op.inputs.empty() || op.inputs[0] != t || op.outputs.empty()) return in.bytes;
  const Tensor& out = graph.tensors[static_cast<std::size_t>(op.outputs[0])];
  return std::min(in.bytes, dtype_tensor_bytes(in.dtype, out.elements).value_or(in.bytes));
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text.append(i ? ", " : "").append(std::to_string(shape[i]));
  return text + "]";
}

} // namespace lightsim::ir
