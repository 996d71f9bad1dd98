// The profiler's GPU path: a graph's ops executed on one CUDA GPU (device 0) with the same buffers (the
// same seeded data), the same plans (op_plans.h, shape_rules.h, broadcast.h) and the same choice of kernel
// per op (plan_op) as on this CPU: cuBLAS GEMMs for dense / batch_matmul, CUDA kernels for the rest; timed
// with CUDA events. The CUDA code is in sim/profile/cuda/ and is built only when CMake finds a CUDA
// toolkit (option LIGHTSIM_CUDA); a build without it links sim/profile/gpu_stub.cc, which says so.
//
// It is not a model of a GPU (that is sim/hw/gpu.h) and it does not choose a GPU: device 0 is measured.
#pragma once

#include "ir/error.h"
#include "ir/graph.h"
#include "sim/profile/measurements.h"
#include "sim/profile/profiler.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lightsim::profile {

// No GPU can be measured: this build has no CUDA support, or no CUDA device is present. The message is
// one line; the CLI prints it and exits with status 2.
class GpuUnavailable : public InputError {
public:
  using InputError::InputError;
};

// True when this build has the CUDA path (CMake found a CUDA toolkit and LIGHTSIM_CUDA was not OFF).
bool gpu_support_built();

// Empty when a CUDA device can be used; else one line saying why not.
std::string gpu_unavailable_reason();

// The graph's buffers on the GPU, filled from a GraphExecutor with the same seed (so the inputs are
// bit-identical to the CPU's), and one enqueued kernel per compute op.
class GpuExecutor {
public:
  // Throws GpuUnavailable when no GPU can be used, InputError when an op cannot be run.
  GpuExecutor(const ir::Graph& graph, std::uint64_t seed);
  ~GpuExecutor();
  GpuExecutor(const GpuExecutor&) = delete;
  GpuExecutor& operator=(const GpuExecutor&) = delete;

  const ir::Graph& graph() const;
  const std::vector<ir::OpId>& compute_ops() const;
  void run_op(ir::OpId op); // enqueues on the executor's stream
  void run_all();           // enqueues every compute op, in topological order
  void synchronize();       // waits for the stream; throws std::runtime_error on a CUDA error
  // The tensor's bytes, copied back to the host (synchronizes first).
  std::vector<std::byte> download(ir::TensorId id);
  // Checksum of the outputs of `op` as GraphExecutor::output_checksum computes it on the CPU.
  std::uint64_t output_checksum(ir::OpId op);

  // The CUDA side's state (sim/profile/cuda/); opaque everywhere else.
  struct Impl;
  Impl& impl() { return *impl_; }

private:
  std::unique_ptr<Impl> impl_;
};

// The GPU's description (name, SMs, clocks, memory, driver/runtime/cuBLAS versions, CUDA flags) and the
// host's. Throws GpuUnavailable.
MachineInfo describe_gpu_machine();

// Profiles `graph` on the GPU (profile_with with CUDA-event timing). Throws GpuUnavailable.
MeasurementFile profile_graph_gpu(const ir::Graph& graph, const ProfileOptions& options,
                                  const std::function<void(const std::string&)>& progress = {});

} // namespace lightsim::profile
