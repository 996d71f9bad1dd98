// GpuExecutor: the graph's buffers on CUDA device 0, copied from a GraphExecutor with the same seed (which
// also checks every op on the CPU first), and one GPU kernel per op from plan_op with gpu_kernels(). Also
// the device query behind gpu_unavailable_reason() and the GPU's description.
#include "ir/error.h"
#include "sim/profile/cuda/gpu_runtime.h"
#include "sim/profile/graph_executor.h"

#include <algorithm>
#include <map>

#ifndef LIGHTSIM_PROFILE_CUDA_COMPILER
#define LIGHTSIM_PROFILE_CUDA_COMPILER "unknown"
#endif
#ifndef LIGHTSIM_PROFILE_CUDA_FLAGS
#define LIGHTSIM_PROFILE_CUDA_FLAGS "unknown"
#endif

namespace lightsim::profile {

using cuda::check;

struct GpuExecutor::Impl {
  Impl(const ir::Graph& graph, std::uint64_t seed) : host(graph, seed) {}
  ~Impl() {
    for (void* p : allocations)
      cudaFree(p);
    if (blas) cublasDestroy(blas);
    if (stream) cudaStreamDestroy(stream);
  }

  GraphExecutor host;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  std::vector<void*> allocations;
  std::vector<std::byte*> device; // per tensor
  std::vector<Kernel> kernels;    // per op (empty for inputs)
};

bool gpu_support_built() {
  return true;
}

std::string gpu_unavailable_reason() {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess) {
    cudaGetLastError(); // clear it
    return std::string("no CUDA device available (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
  }
  if (devices == 0) return "no CUDA device available (cudaGetDeviceCount found 0 devices)";
  return "";
}

GpuExecutor::GpuExecutor(const ir::Graph& graph, std::uint64_t seed) {
  const std::string why = gpu_unavailable_reason();
  if (!why.empty()) throw GpuUnavailable("--unit gpu", why);
  impl_ = std::make_unique<Impl>(graph, seed);
  Impl& x = *impl_;
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cublasCreate(&x.blas), "cublasCreate");
  check(cublasSetStream(x.blas, x.stream), "cublasSetStream");
  const cuda::GpuContext ctx{x.stream, x.blas, &x.allocations};

  // One device buffer per host buffer (a reshape's output views its input's bytes on both sides).
  const std::size_t n_tensors = graph.tensors.size();
  std::map<const std::byte*, std::uint64_t> sizes;
  for (std::size_t t = 0; t < n_tensors; ++t) {
    const std::byte* h = x.host.tensor(static_cast<ir::TensorId>(t)).data;
    if (h) sizes[h] = std::max(sizes[h], graph.tensors[t].bytes);
  }
  std::map<const std::byte*, std::byte*> device_of;
  for (const auto& [h, bytes] : sizes) {
    auto* d = static_cast<std::byte*>(ctx.allocate(static_cast<std::size_t>(bytes)));
    check(cudaMemcpy(d, h, static_cast<std::size_t>(bytes), cudaMemcpyHostToDevice), "cudaMemcpy");
    device_of[h] = d;
  }
  x.device.assign(n_tensors, nullptr);
  for (std::size_t t = 0; t < n_tensors; ++t) {
    const std::byte* h = x.host.tensor(static_cast<ir::TensorId>(t)).data;
    if (h) x.device[t] = device_of[h];
  }

  const KernelSet kernels = cuda::gpu_kernels(ctx);
  x.kernels.resize(graph.ops.size());
  for (ir::OpId id : x.host.compute_ops()) {
    const ir::Op& op = graph.ops[static_cast<std::size_t>(id)];
    const std::string where = graph.source + ": op " + std::to_string(id) + " '" + op.name + "'";
    std::vector<TensorRef> ins, outs;
    for (ir::TensorId t : op.inputs) {
      TensorRef r = x.host.tensor(t);
      r.data = x.device[static_cast<std::size_t>(t)];
      ins.push_back(r);
    }
    for (ir::TensorId t : op.outputs) {
      TensorRef r = x.host.tensor(t);
      r.data = x.device[static_cast<std::size_t>(t)];
      outs.push_back(r);
    }
    x.kernels[static_cast<std::size_t>(id)] = plan_op(kernels, op, ins, outs, where);
  }
}

GpuExecutor::~GpuExecutor() = default;

const ir::Graph& GpuExecutor::graph() const {
  return impl_->host.graph();
}

const std::vector<ir::OpId>& GpuExecutor::compute_ops() const {
  return impl_->host.compute_ops();
}

void GpuExecutor::run_op(ir::OpId op) {
  impl_->kernels[static_cast<std::size_t>(op)]();
}

void GpuExecutor::run_all() {
  for (ir::OpId op : impl_->host.compute_ops())
    impl_->kernels[static_cast<std::size_t>(op)]();
}

void GpuExecutor::synchronize() {
  check(cudaStreamSynchronize(impl_->stream), "cudaStreamSynchronize");
  check(cudaGetLastError(), "a GPU kernel");
}

std::vector<std::byte> GpuExecutor::download(ir::TensorId id) {
  synchronize();
  const auto t = static_cast<std::size_t>(id);
  std::vector<std::byte> bytes(static_cast<std::size_t>(graph().tensors[t].bytes));
  if (!bytes.empty())
    check(cudaMemcpy(bytes.data(), impl_->device[t], bytes.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return bytes;
}

std::uint64_t GpuExecutor::output_checksum(ir::OpId op) {
  std::uint64_t h = 0;
  for (ir::TensorId t : graph().ops[static_cast<std::size_t>(op)].outputs) {
    const std::vector<std::byte> bytes = download(t);
    h = checksum_combine(h, checksum_bytes(bytes.data(), bytes.size()));
  }
  return h;
}

MachineInfo describe_gpu_machine() {
  const std::string why = gpu_unavailable_reason();
  if (!why.empty()) throw GpuUnavailable("--unit gpu", why);
  MachineInfo m = describe_machine(1);
  m.unit = "gpu";
  GpuInfo& g = m.gpu;
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  g.name = p.name;
  g.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
  g.sm_count = p.multiProcessorCount;
  check(cudaDeviceGetAttribute(&g.clock_khz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&g.memory_clock_khz, cudaDevAttrMemoryClockRate, 0), "cudaDeviceGetAttribute");
  g.memory_bus_bits = p.memoryBusWidth;
  g.memory_bytes = p.totalGlobalMem;
  check(cudaDriverGetVersion(&g.driver_version), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&g.runtime_version), "cudaRuntimeGetVersion");
  int major = 0, minor = 0, patch = 0;
  check(cublasGetProperty(MAJOR_VERSION, &major), "cublasGetProperty");
  check(cublasGetProperty(MINOR_VERSION, &minor), "cublasGetProperty");
  check(cublasGetProperty(PATCH_LEVEL, &patch), "cublasGetProperty");
  g.cublas_version = major * 10000 + minor * 100 + patch;
  g.cuda_compiler = LIGHTSIM_PROFILE_CUDA_COMPILER;
  g.cuda_flags = LIGHTSIM_PROFILE_CUDA_FLAGS;
  return m;
}

cudaStream_t cuda::stream_of(GpuExecutor& executor) {
  return executor.impl().stream;
}

} // namespace lightsim::profile
