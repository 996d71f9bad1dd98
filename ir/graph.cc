#include "ir/graph.h"

#include "ir/error.h"
#include "ir/op_shapes.h"

#include <algorithm>
#include <span>

namespace lightsim::ir {
namespace {

OpFeatures compute_features(const Graph& g, const Op& op) {
  OpFeatures f;
  for (TensorId id : op.inputs) {
    const Tensor& t = g.tensors[static_cast<std::size_t>(id)];
    f.elements_in += static_cast<double>(t.elements);
    f.bytes_in += static_cast<double>(t.bytes);
    const std::uint64_t read = bytes_read_from(g, op, id);
    f.bytes_read += static_cast<double>(read);
    f.elements_read +=
        static_cast<double>(read == t.bytes ? t.elements : read / dtype_storage_bytes(t.dtype));
    for (std::int64_t d : t.shape)
      f.max_dim = std::max(f.max_dim, static_cast<double>(d));
  }
  for (TensorId id : op.outputs) {
    const Tensor& t = g.tensors[static_cast<std::size_t>(id)];
    f.elements_out += static_cast<double>(t.elements);
    f.bytes_out += static_cast<double>(t.bytes);
  }
  if (is_gemm_like(op.op_class)) {
    const GemmView v = gemm_view(g, op);
    f.gemm_batch = v.batch;
    f.gemm_m = v.m;
    f.gemm_n = v.n;
    f.gemm_k = v.k;
    f.gemm_dtype = g.tensors[static_cast<std::size_t>(op.inputs[0])].dtype;
    f.macs = static_cast<double>(v.batch) * static_cast<double>(v.m) * static_cast<double>(v.n) *
             static_cast<double>(v.k);
    f.im2col_extra_bytes = v.im2col_extra_bytes;
  } else if (op.op_class == OpClass::Pool) {
    check_pool(g, op);
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
  for (std::size_t i = 0; i < ops.size(); ++i) {
    try {
      ops[i].features = compute_features(*this, ops[i]);
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
  const bool gather = op.op_class == OpClass::Take || op.op_class == OpClass::StridedSlice;
  if (!gather || op.inputs.empty() || op.inputs[0] != t || op.outputs.empty()) return in.bytes;
  const Tensor& out = graph.tensors[static_cast<std::size_t>(op.outputs[0])];
  return std::min(in.bytes, out.elements * dtype_storage_bytes(in.dtype));
}

} // namespace lightsim::ir
