// GraphExecutor: runs a Graph for real on this CPU. Every tensor gets a buffer (a reshape/nop output views
// its input's bytes); graph inputs and weights are filled with deterministic random data from a seed;
// every compute op gets a Kernel planned once from its exact shapes and dtypes (sim/profile/kernels.h),
// with a fused elementwise tail applied in place on the output, each binary tail op taking the next unused
// input. Running all ops in the graph's (topological) order is one inference.
//
// It is not a timer: sim/profile/profiler.h measures what this executes.
#pragma once

#include "ir/graph.h"
#include "sim/profile/buffer.h"
#include "sim/profile/kernels.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lightsim::profile {

// The kernel that runs `op` (its anchor, then its fused elementwise tail in place on output 0, each binary
// tail op taking the next unused input) from `kernels`, on the buffers `ins` and `outs`. Throws InputError
// naming `where` when the op cannot be run.
Kernel plan_op(const KernelSet& kernels, const ir::Op& op, const std::vector<TensorRef>& ins,
               const std::vector<TensorRef>& outs, const std::string& where);

class GraphExecutor {
public:
  // Throws InputError (naming the graph file and the op) when an op cannot be run: an op class or dtype
  // the profiler has no kernel for (conv2d, pool, layout_transform, opaque), or shapes that do not fit.
  GraphExecutor(const ir::Graph& graph, std::uint64_t seed);

  const ir::Graph& graph() const { return graph_; }
  // Ops that execute something (every op but inputs), in topological order.
  const std::vector<ir::OpId>& compute_ops() const { return compute_ops_; }

  void run_op(ir::OpId op) const { kernels_[static_cast<std::size_t>(op)](); }
  void run_all() const {
    for (ir::OpId op : compute_ops_)
      kernels_[static_cast<std::size_t>(op)]();
  }

  TensorRef tensor(ir::TensorId id) const;
  // Checksum of the bytes of every output of `op`, in output order.
  std::uint64_t output_checksum(ir::OpId op) const;

private:
  const ir::Graph& graph_;
  std::vector<TensorBuffer> storage_;
  std::vector<std::byte*> data_; // per tensor
  std::vector<Kernel> kernels_;  // per op (empty for inputs)
  std::vector<ir::OpId> compute_ops_;
};

} // namespace lightsim::profile
