// Shared by the host side of the profiler's GPU path (sim/profile/cuda/*.cc): CUDA/cuBLAS error checks,
// the context the GPU kernel set enqueues into, and access to an executor's stream for timing.
//
// It is not part of the interface the rest of the project sees (that is sim/profile/gpu.h).
#pragma once

#include "sim/profile/gpu.h"
#include "sim/profile/kernels.h"

#include <cstddef>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <vector>

namespace lightsim::profile::cuda {

// Throws std::runtime_error naming `what` and CUDA's error string when `e` is not cudaSuccess.
void check(cudaError_t e, const char* what);
void check(cublasStatus_t s, const char* what);

// Where GPU kernels are enqueued, and the device memory they own (freed by whoever owns `allocations`).
struct GpuContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  std::vector<void*>* allocations = nullptr;

  // Device memory of at least `bytes` (>= 1) bytes; throws InputError when the device has too little.
  void* allocate(std::size_t bytes) const;
};

// The make_* functions of kernels.h for the GPU: the same plans, run by cuBLAS and device_kernels.h.
// TensorRefs hold device pointers.
KernelSet gpu_kernels(const GpuContext& context);

// The stream `executor` enqueues its ops on.
cudaStream_t stream_of(GpuExecutor& executor);

} // namespace lightsim::profile::cuda
