// The profiler's device kernels (device_kernels.h): elementwise ops over a broadcast plan, reduction
// passes, softmax, strided copies and a gather. One thread per output element except the row kernels
// (reduction over a contiguous run, softmax), which give each row a block.
#include "sim/profile/cuda/device_kernels.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace lightsim::profile::cuda {
namespace {

using ir::OpClass;
constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 0x7fffffff ? 0x7fffffff : b));
}

unsigned rows_grid(std::int64_t rows) {
  return static_cast<unsigned>(rows < 1 ? 1 : (rows > 0x7fffffff ? 0x7fffffff : rows));
}

[[noreturn]] void unsupported(const char* what) {
  throw std::invalid_argument(std::string("GPU profiler: no device kernel for ") + what);
}

// --- elementwise ------------------------------------------------------------------------------------

struct Add {
  template <class T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct Subtract {
  template <class T> __device__ T operator()(T a, T b) const { return a - b; }
};
struct Multiply {
  template <class T> __device__ T operator()(T a, T b) const { return a * b; }
};
struct Divide {
  template <class T> __device__ T operator()(T a, T b) const { return a / b; }
};
struct Power {
  template <class T> __device__ T operator()(T a, T b) const { return pow(a, b); }
};
struct Less {
  template <class T> __device__ bool operator()(T a, T b) const { return a < b; }
};
struct Negative {
  template <class T> __device__ T operator()(T a) const { return -a; }
};
struct Relu {
  template <class T> __device__ T operator()(T a) const { return a > T(0) ? a : T(0); }
};
struct Sqrt {
  template <class T> __device__ T operator()(T a) const { return sqrt(a); }
};
struct Rsqrt {
  template <class T> __device__ T operator()(T a) const { return rsqrt(a); }
};
struct Exp {
  template <class T> __device__ T operator()(T a) const { return exp(a); }
};
struct Erf {
  template <class T> __device__ T operator()(T a) const { return erf(a); }
};
struct Sigmoid {
  template <class T> __device__ T operator()(T a) const { return T(1) / (T(1) + exp(-a)); }
};
struct Tanh {
  template <class T> __device__ T operator()(T a) const { return tanh(a); }
};
template <class To> struct Cast {
  template <class T> __device__ To operator()(T a) const { return static_cast<To>(a); }
};

// Offsets of the operands of output element i.
__device__ void operand_offsets(const BroadcastArgs& a, std::int64_t i, std::int64_t (&off)[kMaxOperands]) {
  std::int64_t row = i / a.inner;
  const std::int64_t col = i - row * a.inner;
  for (int j = 0; j < kMaxOperands; ++j)
    off[j] = col * a.inner_stride[j];
  for (int d = a.rank - 1; d >= 0; --d) {
    const std::int64_t q = row / a.dims[d];
    const std::int64_t digit = row - q * a.dims[d];
    for (int j = 0; j < kMaxOperands; ++j)
      off[j] += digit * a.strides[d][j];
    row = q;
  }
}

template <class To, class T, class F>
__global__ void unary_kernel(BroadcastArgs args, const T* x, To* y, F f) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < args.elements;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t off[kMaxOperands];
    operand_offsets(args, i, off);
    y[i] = f(x[off[0]]);
  }
}

template <class To, class T, class F>
__global__ void binary_kernel(BroadcastArgs args, const T* x0, const T* x1, To* y, F f) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < args.elements;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t off[kMaxOperands];
    operand_offsets(args, i, off);
    y[i] = f(x0[off[0]], x1[off[1]]);
  }
}

template <class T>
__global__ void where_kernel(BroadcastArgs args, const bool* cond, const T* x0, const T* x1, T* y) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < args.elements;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t off[kMaxOperands];
    operand_offsets(args, i, off);
    y[i] = cond[off[0]] ? x0[off[1]] : x1[off[2]];
  }
}

// Calls f(T{}) for the C++ type of `e` among the allowed kinds (only those are instantiated).
enum class Kinds { Floating, Numeric, Any };
template <Kinds K, class F> void visit(Elem e, F&& f) {
  switch (e) {
  case Elem::F32:
    return f(float{});
  case Elem::F64:
    return f(double{});
  case Elem::I32:
    if constexpr (K != Kinds::Floating) return f(std::int32_t{});
    break;
  case Elem::I64:
    if constexpr (K != Kinds::Floating) return f(std::int64_t{});
    break;
  case Elem::Bool:
    if constexpr (K == Kinds::Any) return f(bool{});
    break;
  }
  unsupported("this element type");
}

template <class T, class F>
void launch_unary(cudaStream_t s, const BroadcastArgs& args, const void* a, void* out, F f) {
  using To = decltype(f(T{}));
  unary_kernel<<<blocks_for(args.elements), kThreads, 0, s>>>(args, static_cast<const T*>(a),
                                                              static_cast<To*>(out), f);
}

template <class T, class F>
void launch_binary(cudaStream_t s, const BroadcastArgs& args, const void* a, const void* b, void* out, F f) {
  using To = decltype(f(T{}, T{}));
  binary_kernel<<<blocks_for(args.elements), kThreads, 0, s>>>(
      args, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<To*>(out), f);
}

// --- reductions and softmax -------------------------------------------------------------------------

template <class T> __device__ T warp_sum(T v) {
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
template <class T> __device__ T warp_max(T v) {
  for (int o = 16; o > 0; o /= 2) {
    const T w = __shfl_down_sync(0xffffffffu, v, o);
    v = w > v ? w : v;
  }
  return v;
}

// The block's sum (or max) of v, returned to every thread; `shared` holds kThreads / 32 values.
template <bool Max, class T> __device__ T block_reduce(T v, T* shared) {
  v = Max ? warp_max(v) : warp_sum(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads(); // `shared` may still be read from a previous call
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kThreads / 32 ? shared[lane] : (Max ? shared[0] : T(0));
    v = Max ? warp_max(v) : warp_sum(v);
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  return shared[0];
}

// inner == 1: each block sums rows of `reduced` contiguous elements.
template <class T>
__global__ void reduce_rows_kernel(std::int64_t outer, std::int64_t reduced, const T* x, T* y) {
  __shared__ T shared[kThreads / 32];
  for (std::int64_t r = blockIdx.x; r < outer; r += gridDim.x) {
    T s = 0;
    for (std::int64_t k = threadIdx.x; k < reduced; k += blockDim.x)
      s += x[r * reduced + k];
    s = block_reduce<false>(s, shared);
    if (threadIdx.x == 0) y[r] = s;
  }
}

// inner > 1: each thread sums one (outer, inner) column, reading coalesced along inner.
template <class T>
__global__ void reduce_cols_kernel(std::int64_t outer, std::int64_t reduced, std::int64_t inner, const T* x,
                                   T* y) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < outer * inner;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t o = i / inner, j = i - o * inner;
    const T* p = x + o * reduced * inner + j;
    T s = 0;
    for (std::int64_t k = 0; k < reduced; ++k)
      s += p[k * inner];
    y[i] = s;
  }
}

template <class T> __global__ void divide_kernel(std::int64_t n, T divisor, T* data) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    data[i] /= divisor;
}

template <class T> __global__ void softmax_kernel(std::int64_t rows, std::int64_t cols, const T* x, T* y) {
  __shared__ T shared[kThreads / 32];
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    T m = cols > 0 ? xr[0] : T(0);
    for (std::int64_t k = threadIdx.x; k < cols; k += blockDim.x)
      m = xr[k] > m ? xr[k] : m;
    m = block_reduce<true>(m, shared);
    T s = 0;
    for (std::int64_t k = threadIdx.x; k < cols; k += blockDim.x) {
      const T e = exp(xr[k] - m);
      yr[k] = e;
      s += e;
    }
    s = block_reduce<false>(s, shared);
    for (std::int64_t k = threadIdx.x; k < cols; k += blockDim.x)
      yr[k] /= s;
  }
}

// --- copies -----------------------------------------------------------------------------------------

template <class W> __global__ void strided_copy_kernel(CopyArgs a, const W* src, W* dst) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < a.elements;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t rest = i, s = 0, d = 0;
    for (int k = a.rank - 1; k >= 0; --k) {
      const std::int64_t q = rest / a.dims[k];
      const std::int64_t digit = rest - q * a.dims[k];
      s += digit * a.src[k];
      d += digit * a.dst[k];
      rest = q;
    }
    dst[d] = src[s];
  }
}

template <class W, class Index>
__global__ void take_kernel(std::int64_t outer, std::int64_t extent, std::int64_t inner, std::int64_t n,
                            const W* data, const Index* indices, W* out) {
  const std::int64_t total = outer * n * inner;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j = i % inner, row = i / inner, o = row / n, t = row - o * n;
    std::int64_t k = static_cast<std::int64_t>(indices[t]);
    k = k < 0 ? 0 : (k >= extent ? extent - 1 : k);
    out[i] = data[(o * extent + k) * inner + j];
  }
}

template <class F> void by_word(int element_bytes, F&& f) {
  switch (element_bytes) {
  case 1:
    return f(std::uint8_t{});
  case 2:
    return f(std::uint16_t{});
  case 4:
    return f(std::uint32_t{});
  case 8:
    return f(std::uint64_t{});
  default:
    unsupported("this element size");
  }
}

} // namespace

void elementwise(cudaStream_t s, OpClass op, Elem operand, Elem result, const BroadcastArgs& args,
                 const void* a, const void* b, const void* c, void* out) {
  if (args.elements == 0) return;
  switch (op) {
  case OpClass::Add:
    return visit<Kinds::Numeric>(operand,
                                 [&](auto t) { launch_binary<decltype(t)>(s, args, a, b, out, Add{}); });
  case OpClass::Subtract:
    return visit<Kinds::Numeric>(operand,
                                 [&](auto t) { launch_binary<decltype(t)>(s, args, a, b, out, Subtract{}); });
  case OpClass::Multiply:
    return visit<Kinds::Numeric>(operand,
                                 [&](auto t) { launch_binary<decltype(t)>(s, args, a, b, out, Multiply{}); });
  case OpClass::Divide:
    return visit<Kinds::Numeric>(operand,
                                 [&](auto t) { launch_binary<decltype(t)>(s, args, a, b, out, Divide{}); });
  case OpClass::Power:
    return visit<Kinds::Floating>(operand,
                                  [&](auto t) { launch_binary<decltype(t)>(s, args, a, b, out, Power{}); });
  case OpClass::Less:
    return visit<Kinds::Numeric>(operand,
                                 [&](auto t) { launch_binary<decltype(t)>(s, args, a, b, out, Less{}); });
  case OpClass::Negative:
    return visit<Kinds::Numeric>(operand,
                                 [&](auto t) { launch_unary<decltype(t)>(s, args, a, out, Negative{}); });
  case OpClass::Relu:
    return visit<Kinds::Numeric>(operand,
                                 [&](auto t) { launch_unary<decltype(t)>(s, args, a, out, Relu{}); });
  case OpClass::Sqrt:
    return visit<Kinds::Floating>(operand,
                                  [&](auto t) { launch_unary<decltype(t)>(s, args, a, out, Sqrt{}); });
  case OpClass::Rsqrt:
    return visit<Kinds::Floating>(operand,
                                  [&](auto t) { launch_unary<decltype(t)>(s, args, a, out, Rsqrt{}); });
  case OpClass::Exp:
    return visit<Kinds::Floating>(operand,
                                  [&](auto t) { launch_unary<decltype(t)>(s, args, a, out, Exp{}); });
  case OpClass::Erf:
    return visit<Kinds::Floating>(operand,
                                  [&](auto t) { launch_unary<decltype(t)>(s, args, a, out, Erf{}); });
  case OpClass::Sigmoid:
    return visit<Kinds::Floating>(operand,
                                  [&](auto t) { launch_unary<decltype(t)>(s, args, a, out, Sigmoid{}); });
  case OpClass::Tanh:
    return visit<Kinds::Floating>(operand,
                                  [&](auto t) { launch_unary<decltype(t)>(s, args, a, out, Tanh{}); });
  case OpClass::Cast:
    return visit<Kinds::Any>(operand, [&](auto from) {
      visit<Kinds::Any>(
          result, [&](auto to) { launch_unary<decltype(from)>(s, args, a, out, Cast<decltype(to)>{}); });
    });
  case OpClass::Where:
    return visit<Kinds::Any>(operand, [&](auto t) {
      using T = decltype(t);
      where_kernel<<<blocks_for(args.elements), kThreads, 0, s>>>(
          args, static_cast<const bool*>(a), static_cast<const T*>(b), static_cast<const T*>(c),
          static_cast<T*>(out));
    });
  default:
    unsupported(ir::op_class_name(op).data());
  }
}

void reduce_sum(cudaStream_t s, Elem type, std::int64_t outer, std::int64_t reduced, std::int64_t inner,
                const void* in, void* out) {
  visit<Kinds::Floating>(type, [&](auto t) {
    using T = decltype(t);
    if (inner == 1)
      reduce_rows_kernel<<<rows_grid(outer), kThreads, 0, s>>>(outer, reduced, static_cast<const T*>(in),
                                                               static_cast<T*>(out));
    else
      reduce_cols_kernel<<<blocks_for(outer * inner), kThreads, 0, s>>>(
          outer, reduced, inner, static_cast<const T*>(in), static_cast<T*>(out));
  });
}

void divide_by(cudaStream_t s, Elem type, std::int64_t n, double divisor, void* data) {
  if (n == 0) return;
  visit<Kinds::Floating>(type, [&](auto t) {
    using T = decltype(t);
    divide_kernel<<<blocks_for(n), kThreads, 0, s>>>(n, static_cast<T>(divisor), static_cast<T*>(data));
  });
}

void softmax(cudaStream_t s, Elem type, std::int64_t rows, std::int64_t cols, const void* in, void* out) {
  if (rows == 0) return;
  visit<Kinds::Floating>(type, [&](auto t) {
    using T = decltype(t);
    softmax_kernel<<<rows_grid(rows), kThreads, 0, s>>>(rows, cols, static_cast<const T*>(in),
                                                        static_cast<T*>(out));
  });
}

void strided_copy(cudaStream_t s, const CopyArgs& args, const void* src, void* dst) {
  if (args.elements == 0) return;
  by_word(args.element_bytes, [&](auto w) {
    using W = decltype(w);
    strided_copy_kernel<<<blocks_for(args.elements), kThreads, 0, s>>>(args, static_cast<const W*>(src),
                                                                       static_cast<W*>(dst));
  });
}

void take(cudaStream_t s, int element_bytes, bool wide_indices, std::int64_t outer, std::int64_t extent,
          std::int64_t inner, std::int64_t n, const void* data, const void* indices, void* out) {
  const std::int64_t total = outer * n * inner;
  if (total == 0) return;
  by_word(element_bytes, [&](auto w) {
    using W = decltype(w);
    if (wide_indices)
      take_kernel<<<blocks_for(total), kThreads, 0, s>>>(outer, extent, inner, n, static_cast<const W*>(data),
                                                         static_cast<const std::int64_t*>(indices),
                                                         static_cast<W*>(out));
    else
      take_kernel<<<blocks_for(total), kThreads, 0, s>>>(outer, extent, inner, n, static_cast<const W*>(data),
                                                         static_cast<const std::int32_t*>(indices),
                                                         static_cast<W*>(out));
  });
}

} // namespace lightsim::profile::cuda
