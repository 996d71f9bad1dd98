// The GPU kernel set: every op planned by the CPU's code (op_plans.h, broadcast.h, shape_rules.h), then
// run by cuBLAS (dense, batch_matmul: exact shapes and dtypes, FP32 / FP64 compute, no TF32) or by the
// device kernels of device_kernels.h. Each Kernel enqueues on the context's stream and returns.
#include "ir/error.h"
#include "sim/profile/broadcast.h"
#include "sim/profile/cuda/device_kernels.h"
#include "sim/profile/cuda/gpu_runtime.h"
#include "sim/profile/op_plans.h"
#include "sim/profile/shape_rules.h"

#include <climits>
#include <cstring>
#include <string>

namespace lightsim::profile::cuda {
namespace {

using ir::DType;
using ir::OpClass;

Elem elem_of(DType d, const std::string& where) {
  switch (d) {
  case DType::Float32:
    return Elem::F32;
  case DType::Float64:
    return Elem::F64;
  case DType::Int32:
    return Elem::I32;
  case DType::Int64:
    return Elem::I64;
  case DType::Bool:
    return Elem::Bool;
  default:
    throw InputError(where, "dtype " + std::string(ir::dtype_name(d)) + " is not supported on the GPU");
  }
}

void require_rank(std::size_t rank, const std::string& where) {
  if (rank > static_cast<std::size_t>(kMaxRank))
    throw InputError(where, "the GPU kernels take at most " + std::to_string(kMaxRank) +
                                " merged axes, not " + std::to_string(rank));
}

CopyArgs copy_args(const StridedCopy& copy, const std::string& where) {
  CopyArgs a;
  require_rank(copy.dims().size(), where);
  a.rank = static_cast<int>(copy.dims().size());
  a.elements = 1;
  for (int d = 0; d < a.rank; ++d) {
    const auto i = static_cast<std::size_t>(d);
    a.dims[d] = copy.dims()[i];
    a.src[d] = copy.src_strides()[i];
    a.dst[d] = copy.dst_strides()[i];
    a.elements *= a.dims[d];
  }
  a.element_bytes = static_cast<int>(copy.element_bytes());
  return a;
}

int gemm_int(std::int64_t v, const std::string& where) {
  if (v < 0 || v > INT_MAX)
    throw InputError(where, "GEMM dimension " + std::to_string(v) + " exceeds cuBLAS's int");
  return static_cast<int>(v);
}

// Row-major C[m,n] = A[m,k] x op(B) is column-major C^T = op'(B) x A^T: B is cuBLAS's first operand.
Kernel gemm(const GpuContext& ctx, const GemmPlan& p, const TensorRef& a, const TensorRef& b,
            const TensorRef& c, const std::string& where) {
  const bool f32 = a.dtype == DType::Float32;
  const cudaDataType_t type = f32 ? CUDA_R_32F : CUDA_R_64F;
  const cublasComputeType_t compute = f32 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
  const int m = gemm_int(p.m, where), n = gemm_int(p.n, where), k = gemm_int(p.k, where);
  const cublasOperation_t op_b = p.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = p.b_transposed ? k : n;
  const long long stride_a = p.a_step, stride_b = p.b_step, stride_c = p.m * p.n;
  const int batch = gemm_int(p.batch, where);
  return [=, blas = ctx.blas, stream = ctx.stream, pa = a.data, pb = b.data, pc = c.data] {
    if (m == 0 || n == 0 || batch == 0) return;
    if (k == 0) { // cuBLAS wants leading dimensions >= 1; C is all zeros
      check(cudaMemsetAsync(pc, 0,
                            static_cast<std::size_t>(stride_c) * static_cast<std::size_t>(batch) *
                                (f32 ? sizeof(float) : sizeof(double)),
                            stream),
            "cudaMemsetAsync");
      return;
    }
    const float one_f = 1, zero_f = 0;
    const double one_d = 1, zero_d = 0;
    const void* alpha = f32 ? static_cast<const void*>(&one_f) : static_cast<const void*>(&one_d);
    const void* beta = f32 ? static_cast<const void*>(&zero_f) : static_cast<const void*>(&zero_d);
    if (batch == 1)
      check(cublasGemmEx(blas, op_b, CUBLAS_OP_N, n, m, k, alpha, pb, type, ldb, pa, type, k, beta, pc, type,
                         n, compute, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
    else
      check(cublasGemmStridedBatchedEx(blas, op_b, CUBLAS_OP_N, n, m, k, alpha, pb, type, ldb, stride_b, pa,
                                       type, k, stride_a, beta, pc, type, n, stride_c, batch, compute,
                                       CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx");
  };
}

Kernel elementwise_kernel(const GpuContext& ctx, OpClass c, const std::vector<TensorRef>& ins,
                          const TensorRef& out, const std::string& where) {
  const Broadcast plan = plan_broadcast(ins, out, where);
  BroadcastArgs args;
  require_rank(plan.outer_dims().size(), where);
  args.rank = static_cast<int>(plan.outer_dims().size());
  for (int d = 0; d < args.rank; ++d)
    for (int j = 0; j < kMaxOperands; ++j) {
      args.dims[d] = plan.outer_dims()[static_cast<std::size_t>(d)];
      args.strides[d][j] = plan.outer_strides()[static_cast<std::size_t>(d)][static_cast<std::size_t>(j)];
    }
  args.inner = plan.row_length();
  for (std::size_t j = 0; j < plan.operands(); ++j)
    args.inner_stride[j] = plan.row_scalar(j) ? 0 : 1;
  args.elements = out.elements;
  const Elem operand = elem_of(ins[c == OpClass::Where ? 1 : 0].dtype, where);
  const Elem result = elem_of(out.dtype, where);
  const void* p0 = ins[0].data;
  const void* p1 = ins.size() > 1 ? ins[1].data : nullptr;
  const void* p2 = ins.size() > 2 ? ins[2].data : nullptr;
  return [=, s = ctx.stream, y = out.data] { elementwise(s, c, operand, result, args, p0, p1, p2, y); };
}

Kernel reduce_kernel(const GpuContext& ctx, OpClass c, const TensorRef& in, const TensorRef& out,
                     const std::string& where) {
  const Shape in_shape(in.shape.begin(), in.shape.end());
  const std::vector<bool> reduced =
      infer_reduced_axes(in_shape, Shape(out.shape.begin(), out.shape.end()), where);
  std::int64_t count = 1;
  const std::vector<ReducePass> passes = plan_reduce_passes(in_shape, reduced, count);
  const Elem type = elem_of(in.dtype, where);
  const std::size_t eb = ir::dtype_storage_bytes(in.dtype);
  // Passes after the first read and write a scratch buffer, in halves (as on the CPU).
  std::byte* scratch = passes.size() > 1
                           ? static_cast<std::byte*>(ctx.allocate(static_cast<std::size_t>(in.elements) * eb))
                           : nullptr;
  const auto half_bytes = static_cast<std::int64_t>(in.elements / 2) * static_cast<std::int64_t>(eb);
  const bool mean = c == OpClass::Mean;
  return [=, s = ctx.stream, src = in.data, dst = out.data, n_out = out.elements] {
    if (passes.empty())
      check(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(n_out) * eb, cudaMemcpyDeviceToDevice, s),
            "cudaMemcpyAsync");
    const std::byte* from = src;
    for (std::size_t p = 0; p < passes.size(); ++p) {
      std::byte* to = (p + 1 == passes.size()) ? dst : scratch + ((p % 2) ? half_bytes : 0);
      reduce_sum(s, type, passes[p].outer, passes[p].reduced, passes[p].inner, from, to);
      from = to;
    }
    if (mean) divide_by(s, type, n_out, static_cast<double>(count), dst);
  };
}

} // namespace

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(s));
}

void* GpuContext::allocate(std::size_t bytes) const {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
  if (e != cudaSuccess) {
    cudaGetLastError(); // clear it
    throw InputError("--unit gpu", "cannot allocate " + std::to_string(bytes) + " bytes on the GPU (" +
                                       cudaGetErrorString(e) + ")");
  }
  allocations->push_back(p);
  return p;
}

KernelSet gpu_kernels(const GpuContext& ctx) {
  KernelSet k;
  k.elementwise = [ctx](OpClass c, const std::vector<TensorRef>& ins, const TensorRef& out,
                        const std::string& where) { return elementwise_kernel(ctx, c, ins, out, where); };
  k.reduce = [ctx](OpClass c, const TensorRef& in, const TensorRef& out, const std::string& where) {
    return reduce_kernel(ctx, c, in, out, where);
  };
  k.softmax = [ctx](const TensorRef& in, const TensorRef& out, const std::string& where) -> Kernel {
    if (in.shape.empty() || in.elements != out.elements)
      throw InputError(where, "softmax input and output differ");
    const std::int64_t cols = in.shape.back(), rows = cols == 0 ? 0 : in.elements / cols;
    const Elem type = elem_of(in.dtype, where);
    return [=, s = ctx.stream, x = in.data, y = out.data] { softmax(s, type, rows, cols, x, y); };
  };
  k.dense = [ctx](const TensorRef& data, const TensorRef& weight, const TensorRef& out,
                  const std::string& where) {
    return gemm(ctx, plan_dense(data, weight, out, where), data, weight, out, where);
  };
  k.batch_matmul = [ctx](const TensorRef& a, const TensorRef& b, const TensorRef& out,
                         const std::string& where) {
    return gemm(ctx, plan_batch_matmul(a, b, out, where), a, b, out, where);
  };
  const auto copy = [ctx](const StridedCopy& plan, const std::byte* src, std::byte* dst,
                          const std::string& where) {
    return [args = copy_args(plan, where), s = ctx.stream, src, dst] { strided_copy(s, args, src, dst); };
  };
  k.transpose = [copy](const TensorRef& in, const TensorRef& out, const std::string& where) -> Kernel {
    return copy(plan_transpose(in, out, where), in.data, out.data, where);
  };
  k.strided_slice = [copy](const TensorRef& in, const TensorRef& out, const std::string& where) -> Kernel {
    return copy(plan_strided_slice(in, out, where), in.data, out.data, where);
  };
  k.concatenate = [copy](const std::vector<TensorRef>& ins, const TensorRef& out, const std::string& where) {
    const std::vector<CopyPart> parts = plan_concatenate(ins, out, where);
    std::vector<Kernel> steps;
    for (std::size_t i = 0; i < parts.size(); ++i)
      steps.push_back(copy(parts[i].copy, ins[i].data, out.data + parts[i].whole_offset_bytes, where));
    return Kernel([steps = std::move(steps)] {
      for (const Kernel& step : steps)
        step();
    });
  };
  k.split = [copy](const TensorRef& in, const std::vector<TensorRef>& outs, const std::string& where) {
    const std::vector<CopyPart> parts = plan_split(in, outs, where);
    std::vector<Kernel> steps;
    for (std::size_t i = 0; i < parts.size(); ++i)
      steps.push_back(copy(parts[i].copy, in.data + parts[i].whole_offset_bytes, outs[i].data, where));
    return Kernel([steps = std::move(steps)] {
      for (const Kernel& step : steps)
        step();
    });
  };
  k.take = [ctx](const TensorRef& data, const TensorRef& indices, const TensorRef& out,
                 const std::string& where) -> Kernel {
    const TakePlan p = plan_take(data, indices, out, where);
    return [=, s = ctx.stream, src = data.data, idx = indices.data, dst = out.data, n = indices.elements] {
      take(s, static_cast<int>(p.element_bytes), p.wide_indices, p.outer, p.extent, p.inner, n, src, idx,
           dst);
    };
  };
  return k;
}

} // namespace lightsim::profile::cuda
