#include "ir/partition/micro_batches.h"

#include "ir/error.h"

#include <vector>

namespace lightsim::ir {

Graph replicate_micro_batches(Graph graph, int copies, const std::string& flag) {
  if (copies < 1)
    throw InputError(graph.source, flag + " " + std::to_string(copies) + ": must be at least 1");
  if (copies == 1) return graph;
  const std::size_t n_ops = graph.ops.size(), n_tensors = graph.tensors.size(), n_heads = graph.heads.size();
  std::vector<bool> shared(n_tensors, false); // a bound parameter's output: one for every copy
  for (const Op& op : graph.ops)
    if (op.op_class == OpClass::Input && op.is_param)
      for (TensorId t : op.outputs)
        shared[static_cast<std::size_t>(t)] = true;
  for (int k = 1; k < copies; ++k) {
    const std::string suffix = ":mb" + std::to_string(k);
    std::vector<OpId> op_copy(n_ops, -1); // a bound parameter is not copied
    for (std::size_t id = 0, next = graph.ops.size(); id < n_ops; ++id)
      if (!(graph.ops[id].op_class == OpClass::Input && graph.ops[id].is_param))
        op_copy[id] = static_cast<OpId>(next++);
    std::vector<TensorId> tensor_copy(n_tensors);
    for (std::size_t t = 0; t < n_tensors; ++t) {
      if (shared[t]) {
        tensor_copy[t] = static_cast<TensorId>(t);
        continue;
      }
      tensor_copy[t] = static_cast<TensorId>(graph.tensors.size());
      Tensor copy = graph.tensors[t];
      if (copy.producer >= 0) copy.producer = op_copy[static_cast<std::size_t>(copy.producer)];
      graph.tensors.push_back(std::move(copy));
    }
    for (std::size_t id = 0; id < n_ops; ++id) {
      if (op_copy[id] < 0) continue;
      Op op = graph.ops[id];
      op.name += suffix;
      op.micro_batch = k;
      for (TensorId& t : op.inputs)
        t = tensor_copy[static_cast<std::size_t>(t)];
      for (TensorId& t : op.outputs)
        t = tensor_copy[static_cast<std::size_t>(t)];
      graph.ops.push_back(std::move(op));
    }
    for (std::size_t h = 0; h < n_heads; ++h)
      graph.heads.push_back(tensor_copy[static_cast<std::size_t>(graph.heads[h])]);
  }
  graph.finalize();
  return graph;
}

} // namespace lightsim::ir
