// Device kernels of the profiler's GPU path, behind plain launch functions: the host side
// (gpu_kernels.cc) works out every plan with the CPU's code (op_plans.h, broadcast.h, shape_rules.h) and
// hands the numbers here. Each function enqueues one kernel on `stream` and returns; launch errors
// surface at the next synchronisation.
//
// It is not a general CUDA tensor library: dense row-major buffers, ranks up to kMaxRank after merging.
#pragma once

#include "ir/op_class.h"

#include <cstdint>
#include <cuda_runtime_api.h>

namespace lightsim::profile::cuda {

inline constexpr int kMaxRank = 8;
inline constexpr int kMaxOperands = 3;

// Element types the kernels compute on.
enum class Elem : int { F32, F64, I32, I64, Bool };

// An elementwise op over a broadcast plan: output element i is row i / inner, column i % inner; the row
// index is an odometer over `dims` (outermost first); operand j is at sum(digit * strides[d][j]) +
// column * inner_stride[j].
struct BroadcastArgs {
  int rank = 0;
  std::int64_t dims[kMaxRank] = {};
  std::int64_t strides[kMaxRank][kMaxOperands] = {};
  std::int64_t inner = 1;
  std::int64_t inner_stride[kMaxOperands] = {};
  std::int64_t elements = 0; // of the output
};

// out = op(a[, b[, c]]). `operand` is the type of a and b (of b and c for where, whose a is bool), `result`
// the output's (differs for cast and less).
void elementwise(cudaStream_t stream, ir::OpClass op, Elem operand, Elem result, const BroadcastArgs& args,
                 const void* a, const void* b, const void* c, void* out);

// One reduction pass: in [outer, reduced, inner] -> out [outer, inner], summed (float32 / float64).
void reduce_sum(cudaStream_t stream, Elem type, std::int64_t outer, std::int64_t reduced, std::int64_t inner,
                const void* in, void* out);
// data[i] /= divisor for i < n.
void divide_by(cudaStream_t stream, Elem type, std::int64_t n, double divisor, void* data);
// Softmax over rows of `cols` (max-subtracted), float32 / float64.
void softmax(cudaStream_t stream, Elem type, std::int64_t rows, std::int64_t cols, const void* in, void* out);

// A strided copy (StridedCopy's merged plan): element (i0..ir) goes from sum(i*src) to sum(i*dst).
struct CopyArgs {
  int rank = 0;
  std::int64_t dims[kMaxRank] = {};
  std::int64_t src[kMaxRank] = {};
  std::int64_t dst[kMaxRank] = {};
  int element_bytes = 4;
  std::int64_t elements = 0;
};
void strided_copy(cudaStream_t stream, const CopyArgs& args, const void* src, void* dst);

// take: data [outer, extent, inner] -> out [outer, n, inner], indices clipped to [0, extent).
void take(cudaStream_t stream, int element_bytes, bool wide_indices, std::int64_t outer, std::int64_t extent,
          std::int64_t inner, std::int64_t n, const void* data, const void* indices, void* out);

} // namespace lightsim::profile::cuda
