// The GPU path in a build without CUDA support: every entry point says so (GpuUnavailable).
#include "sim/profile/gpu.h"

namespace lightsim::profile {
namespace {

[[noreturn]] void no_cuda() {
  throw GpuUnavailable("--unit gpu", gpu_unavailable_reason());
}

} // namespace

struct GpuExecutor::Impl {};

bool gpu_support_built() {
  return false;
}

std::string gpu_unavailable_reason() {
  return "this build has no CUDA support (no CUDA toolkit was found, or LIGHTSIM_CUDA=OFF)";
}

GpuExecutor::GpuExecutor(const ir::Graph&, std::uint64_t) {
  no_cuda();
}
GpuExecutor::~GpuExecutor() = default;
const ir::Graph& GpuExecutor::graph() const {
  no_cuda();
}
const std::vector<ir::OpId>& GpuExecutor::compute_ops() const {
  no_cuda();
}
void GpuExecutor::run_op(ir::OpId) {
  no_cuda();
}
void GpuExecutor::run_all() {
  no_cuda();
}
void GpuExecutor::synchronize() {
  no_cuda();
}
std::vector<std::byte> GpuExecutor::download(ir::TensorId) {
  no_cuda();
}
std::uint64_t GpuExecutor::output_checksum(ir::OpId) {
  no_cuda();
}

MachineInfo describe_gpu_machine() {
  no_cuda();
}

MeasurementFile profile_graph_gpu(const ir::Graph&, const ProfileOptions&,
                                  const std::function<void(const std::string&)>&) {
  no_cuda();
}

} // namespace lightsim::profile
