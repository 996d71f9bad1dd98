// Op plans: what an op does to its buffers, worked out once from the exact shapes and dtypes (with the
// inference rules of shape_rules.h): the GEMM's batch/m/n/k and layout, the strided copies of the layout
// ops, the rows of a gather. Every unit's kernels (this CPU's in kernels_*.cc, a GPU's in
// sim/profile/cuda/) run these plans, so an op means the same computation wherever it is measured.
//
// It is not a kernel: nothing here touches the data. Throws InputError naming `where` when shapes or
// dtypes cannot be read as the op.
#pragma once

#include "sim/profile/buffer.h"
#include "sim/profile/native_api.h"
#include "sim/profile/strided_copy.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lightsim::profile {

// C[i] = A[i] x op(B[i]) for i < batch, row-major: A [m, k], C [m, n]; B [n, k] when b_transposed (TVM's
// dense weight and batch_matmul's default), else [k, n]. A step of 0 broadcasts that operand's batch of 1.
struct GemmPlan {
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  std::int64_t a_step = 0, b_step = 0; // elements between batches
  bool b_transposed = true;
};
// data [.., m, k] x weight [n, k] (any weight shape of n*k elements) -> [.., m, n]; float32/float64.
LIGHTSIM_NATIVE_API GemmPlan plan_dense(const TensorRef& data, const TensorRef& weight, const TensorRef& out,
                                        const std::string& where);
// a [b, m, k] x b [b, n, k] (preferred when both fit) or [b, k, n] -> [b, m, n]; float32/float64.
LIGHTSIM_NATIVE_API GemmPlan plan_batch_matmul(const TensorRef& a, const TensorRef& b, const TensorRef& out,
                                               const std::string& where);

// One part of a concatenation (or split): a strided copy and where the part sits in the whole, in bytes.
struct CopyPart {
  StridedCopy copy;
  std::int64_t whole_offset_bytes;
};
LIGHTSIM_NATIVE_API StridedCopy plan_transpose(const TensorRef& in, const TensorRef& out,
                                               const std::string& where);
LIGHTSIM_NATIVE_API StridedCopy plan_strided_slice(const TensorRef& in, const TensorRef& out,
                                                   const std::string& where);
// Part i copies ins[i] into the whole.
LIGHTSIM_NATIVE_API std::vector<CopyPart> plan_concatenate(const std::vector<TensorRef>& ins,
                                                           const TensorRef& out, const std::string& where);
// Part i copies from the whole into outs[i].
LIGHTSIM_NATIVE_API std::vector<CopyPart> plan_split(const TensorRef& in, const std::vector<TensorRef>& outs,
                                                     const std::string& where);

// take: data read as [outer, extent, inner]; out [outer, indices, inner], each index clipped to the
// extent (TVM's default mode "clip").
struct TakePlan {
  std::int64_t outer = 1, extent = 1, inner = 1;
  std::int64_t element_bytes = 4;
  bool wide_indices = true; // int64 indices, else int32
};
LIGHTSIM_NATIVE_API TakePlan plan_take(const TensorRef& data, const TensorRef& indices, const TensorRef& out,
                                       const std::string& where);

} // namespace lightsim::profile
