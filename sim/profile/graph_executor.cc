#include "sim/profile/graph_executor.h"

#include "ir/error.h"

namespace lightsim::profile {
namespace {

using ir::OpClass;

std::size_t anchor_inputs(OpClass c, std::size_t available) {
  if (is_elementwise_kernel(c)) return elementwise_arity(c);
  switch (c) {
  case OpClass::Dense:
  case OpClass::BatchMatmul:
  case OpClass::Take:
    return 2;
  case OpClass::Concatenate:
    return available;
  case OpClass::Nop:
    return available == 0 ? 0 : 1;
  default:
    return 1;
  }
}

} // namespace

GraphExecutor::GraphExecutor(const ir::Graph& graph, std::uint64_t seed) : graph_(graph) {
  const std::size_t n_tensors = graph.tensors.size();
  // Packed sub-byte tensors (int4, int2) have no CPU kernel here: their elements are not addressable bytes.
  for (std::size_t t = 0; t < n_tensors; ++t)
    if (ir::dtype_packed(graph.tensors[t].dtype))
      throw InputError(
          graph.source + ": tensor " + std::to_string(t),
          "dtype " + std::string(ir::dtype_name(graph.tensors[t].dtype)) +
              " is packed below a byte: this CPU's kernels do not run it (profile an int8 graph)");
  data_.assign(n_tensors, nullptr);
  storage_.reserve(n_tensors);
  for (const ir::Op& op : graph.ops) {
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      const auto t = static_cast<std::size_t>(op.outputs[k]);
      const ir::Tensor& tensor = graph.tensors[t];
      if (op.op_class == OpClass::Nop && k == 0 && !op.inputs.empty()) {
        const auto in = static_cast<std::size_t>(op.inputs[0]);
        if (graph.tensors[in].bytes == tensor.bytes && data_[in]) { // a reshape: a view of its input
          data_[t] = data_[in];
          continue;
        }
      }
      storage_.emplace_back(tensor.dtype, tensor.bytes);
      data_[t] = storage_.back().data();
      fill_random(data_[t], tensor.dtype, tensor.elements, seed ^ (0x5851f42d4c957f2dULL * (t + 1)));
    }
  }
  kernels_.resize(graph.ops.size());
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const ir::Op& op = graph.ops[i];
    if (op.op_class == OpClass::Input) continue;
    const std::string where = graph.source + ": op " + std::to_string(i) + " '" + op.name + "'";
    std::vector<TensorRef> ins, outs;
    for (ir::TensorId t : op.inputs)
      ins.push_back(tensor(t));
    for (ir::TensorId t : op.outputs)
      outs.push_back(tensor(t));
    kernels_[i] = plan_op(cpu_kernels(), op, ins, outs, where);
    compute_ops_.push_back(static_cast<ir::OpId>(i));
  }
}

TensorRef GraphExecutor::tensor(ir::TensorId id) const {
  const ir::Tensor& t = graph_.tensors[static_cast<std::size_t>(id)];
  return {data_[static_cast<std::size_t>(id)], t.dtype, std::span<const std::int64_t>(t.shape),
          static_cast<std::int64_t>(t.elements)};
}

std::uint64_t GraphExecutor::output_checksum(ir::OpId op) const {
  std::uint64_t h = 0;
  for (ir::TensorId t : graph_.ops[static_cast<std::size_t>(op)].outputs) {
    const ir::Tensor& tensor = graph_.tensors[static_cast<std::size_t>(t)];
    h = checksum_combine(h, checksum_bytes(data_[static_cast<std::size_t>(t)], tensor.bytes));
  }
  return h;
}

Kernel plan_op(const KernelSet& k, const ir::Op& op, const std::vector<TensorRef>& ins,
               const std::vector<TensorRef>& outs, const std::string& where) {
  if (outs.empty()) throw InputError(where, "op has no outputs");
  const OpClass c = op.op_class;
  const std::size_t used = anchor_inputs(c, ins.size());
  if (ins.size() < used)
    throw InputError(where, std::string(ir::op_class_name(c)) + " needs " + std::to_string(used) +
                                " inputs, has " + std::to_string(ins.size()));
  const std::vector<TensorRef> anchor_ins(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(used));
  Kernel anchor;
  if (c == OpClass::Nop) {
    anchor = [] {}; // a view (or a reshape whose output has its own zero-cost buffer): no work
  } else if (c == OpClass::Dense) {
    anchor = k.dense(ins[0], ins[1], outs[0], where);
  } else if (c == OpClass::BatchMatmul) {
    anchor = k.batch_matmul(ins[0], ins[1], outs[0], where);
  } else if (is_elementwise_kernel(c)) {
    anchor = k.elementwise(c, anchor_ins, outs[0], where);
  } else if (c == OpClass::Mean || c == OpClass::Sum) {
    anchor = k.reduce(c, ins[0], outs[0], where);
  } else if (c == OpClass::Softmax) {
    anchor = k.softmax(ins[0], outs[0], where);
  } else if (c == OpClass::Transpose) {
    anchor = k.transpose(ins[0], outs[0], where);
  } else if (c == OpClass::StridedSlice) {
    anchor = k.strided_slice(ins[0], outs[0], where);
  } else if (c == OpClass::Concatenate) {
    anchor = k.concatenate(ins, outs[0], where);
  } else if (c == OpClass::Split) {
    anchor = k.split(ins[0], outs, where);
  } else if (c == OpClass::Take) {
    anchor = k.take(ins[0], ins[1], outs[0], where);
  } else {
    throw InputError(where,
                     "op class " + std::string(ir::op_class_name(c)) + " is not supported by the profiler");
  }
  if (op.features.fused_tail.empty()) {
    if (used != ins.size())
      throw InputError(where, std::to_string(ins.size() - used) + " inputs left over after the " +
                                  std::string(ir::op_class_name(c)) + " anchor and no fused tail");
    return anchor;
  }
  // The fused elementwise tail, in place on output 0.
  std::vector<Kernel> steps{std::move(anchor)};
  std::size_t next = used;
  for (OpClass tail : op.features.fused_tail) {
    const std::size_t arity = anchor_inputs(tail, 0);
    if (!is_elementwise_kernel(tail) || arity > 2 || (arity == 2 && next >= ins.size()))
      throw InputError(where,
                       "fused tail op " + std::string(ir::op_class_name(tail)) + " cannot be run here");
    std::vector<TensorRef> args{outs[0]};
    if (arity == 2) args.push_back(ins[next++]);
    steps.push_back(k.elementwise(tail, args, outs[0], where));
  }
  if (next != ins.size()) throw InputError(where, "fused op has inputs that no part of it reads");
  return [steps = std::move(steps)] {
    for (const Kernel& step : steps)
      step();
  };
}

const KernelSet& cpu_kernels() {
  static const KernelSet set{make_elementwise,  make_reduce,    make_softmax,       make_dense,
                             make_batch_matmul, make_transpose, make_strided_slice, make_concatenate,
                             make_split,        make_take};
  return set;
}

} // namespace lightsim::profile
