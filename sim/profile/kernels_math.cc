// GEMM plans, and this CPU's GEMM, reduction and softmax kernels on Eigen maps of the row-major buffers.
#include "ir/error.h"
#include "sim/profile/kernels.h"
#include "sim/profile/op_plans.h"
#include "sim/profile/shape_rules.h"

#include <Eigen/Core>

namespace lightsim::profile {
namespace {

using ir::DType;
template <class T> using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T> using RowArray = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Index = Eigen::Index;

void require_floating(const std::vector<const TensorRef*>& ts, const std::string& where, const char* op) {
  const DType d = ts.front()->dtype;
  for (const TensorRef* t : ts)
    if (t->dtype != d || (d != DType::Float32 && d != DType::Float64))
      throw InputError(where, std::string(op) + " needs float32 or float64 operands of one dtype, has " +
                                  std::string(ir::dtype_name(t->dtype)));
}

template <class F> Kernel by_float(DType d, F&& f) {
  if (d == DType::Float32) return f(float{});
  return f(double{});
}

std::int64_t product(std::span<const std::int64_t> s, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i)
    p *= s[i];
  return p;
}

} // namespace

GemmPlan plan_dense(const TensorRef& data, const TensorRef& weight, const TensorRef& out,
                    const std::string& where) {
  require_floating({&data, &weight, &out}, where, "dense");
  if (data.shape.empty() || out.shape.empty()) throw InputError(where, "dense operands must have rank >= 1");
  GemmPlan p;
  p.k = data.shape.back();
  p.n = out.shape.back();
  p.m = p.k == 0 ? 0 : data.elements / p.k;
  if (weight.elements != p.n * p.k || out.elements != p.m * p.n)
    throw InputError(where, "dense shapes do not form [m,k] x [n,k] -> [m,n]");
  return p;
}

GemmPlan plan_batch_matmul(const TensorRef& a, const TensorRef& b, const TensorRef& out,
                           const std::string& where) {
  require_floating({&a, &b, &out}, where, "batch_matmul");
  if (a.shape.size() < 2 || b.shape.size() < 2 || out.shape.size() < 2)
    throw InputError(where, "batch_matmul operands must have rank >= 2");
  GemmPlan p;
  p.m = a.shape[a.shape.size() - 2];
  p.k = a.shape.back();
  p.n = out.shape.back();
  const Index b_rows = b.shape[b.shape.size() - 2], b_cols = b.shape.back();
  p.b_transposed = b_rows == p.n && b_cols == p.k; // TVM's default layout, preferred when both fit
  if (!p.b_transposed && !(b_rows == p.k && b_cols == p.n))
    throw InputError(where, "batch_matmul second operand is neither [.., n, k] nor [.., k, n]");
  if (out.shape[out.shape.size() - 2] != p.m)
    throw InputError(where, "batch_matmul output rows differ from m");
  p.batch = product(out.shape, 0, out.shape.size() - 2);
  const Index a_batch = product(a.shape, 0, a.shape.size() - 2),
              b_batch = product(b.shape, 0, b.shape.size() - 2);
  if ((a_batch != p.batch && a_batch != 1) || (b_batch != p.batch && b_batch != 1))
    throw InputError(where, "batch_matmul batches do not broadcast");
  p.a_step = a_batch == 1 ? 0 : p.m * p.k;
  p.b_step = b_batch == 1 ? 0 : p.n * p.k;
  return p;
}

Kernel make_dense(const TensorRef& data, const TensorRef& weight, const TensorRef& out,
                  const std::string& where) {
  const GemmPlan p = plan_dense(data, weight, out, where);
  return by_float(data.dtype, [&](auto zero) -> Kernel {
    using T = decltype(zero);
    return [a = data.as<T>(), w = weight.as<T>(), c = out.as<T>(), m = p.m, n = p.n, k = p.k] {
      Eigen::Map<const RowMatrix<T>> A(a, m, k), W(w, n, k);
      Eigen::Map<RowMatrix<T>> C(c, m, n);
      C.noalias() = A * W.transpose();
    };
  });
}

Kernel make_batch_matmul(const TensorRef& a, const TensorRef& b, const TensorRef& out,
                         const std::string& where) {
  const GemmPlan p = plan_batch_matmul(a, b, out, where);
  return by_float(a.dtype, [&](auto zero) -> Kernel {
    using T = decltype(zero);
    return [pa = a.as<T>(), pb = b.as<T>(), pc = out.as<T>(), p] {
      for (Index i = 0; i < p.batch; ++i) {
        Eigen::Map<const RowMatrix<T>> A(pa + i * p.a_step, p.m, p.k);
        Eigen::Map<RowMatrix<T>> C(pc + i * p.m * p.n, p.m, p.n);
        if (p.b_transposed)
          C.noalias() = A * Eigen::Map<const RowMatrix<T>>(pb + i * p.b_step, p.n, p.k).transpose();
        else
          C.noalias() = A * Eigen::Map<const RowMatrix<T>>(pb + i * p.b_step, p.k, p.n);
      }
    };
  });
}

Kernel make_reduce(ir::OpClass c, const TensorRef& in, const TensorRef& out, const std::string& where) {
  require_floating({&in, &out}, where, c == ir::OpClass::Mean ? "mean" : "sum");
  const Shape in_shape(in.shape.begin(), in.shape.end());
  const std::vector<bool> reduced =
      infer_reduced_axes(in_shape, Shape(out.shape.begin(), out.shape.end()), where);
  Index count = 1;
  const std::vector<ReducePass> passes = plan_reduce_passes(in_shape, reduced, count);
  const bool mean = c == ir::OpClass::Mean;
  return by_float(in.dtype, [&](auto zero) -> Kernel {
    using T = decltype(zero);
    // Passes after the first read and write a scratch buffer sized by the first pass's output.
    auto scratch =
        std::make_shared<std::vector<T>>(passes.size() > 1 ? static_cast<std::size_t>(in.elements) : 0);
    return [passes, scratch, src = in.as<T>(), dst = out.as<T>(), n_out = out.elements, count, mean] {
      const T* from = src;
      if (passes.empty()) std::copy(src, src + n_out, dst);
      for (std::size_t p = 0; p < passes.size(); ++p) {
        const ReducePass& r = passes[p];
        T* to = (p + 1 == passes.size()) ? dst : scratch->data() + ((p % 2) ? scratch->size() / 2 : 0);
        if (r.inner == 1) {
          Eigen::Map<RowMatrix<T>>(to, r.outer, 1) =
              Eigen::Map<const RowMatrix<T>>(from, r.outer, r.reduced).rowwise().sum();
        } else {
          for (Index o = 0; o < r.outer; ++o)
            Eigen::Map<RowMatrix<T>>(to + o * r.inner, 1, r.inner) =
                Eigen::Map<const RowMatrix<T>>(from + o * r.reduced * r.inner, r.reduced, r.inner)
                    .colwise()
                    .sum();
        }
        from = to;
      }
      if (mean) Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(dst, n_out) /= static_cast<T>(count);
    };
  });
}

Kernel make_softmax(const TensorRef& in, const TensorRef& out, const std::string& where) {
  require_floating({&in, &out}, where, "softmax");
  if (in.shape.empty() || in.elements != out.elements)
    throw InputError(where, "softmax input and output differ");
  const Index cols = in.shape.back();
  const Index rows = cols == 0 ? 0 : in.elements / cols;
  return by_float(in.dtype, [&](auto zero) -> Kernel {
    using T = decltype(zero);
    return [x = in.as<T>(), y = out.as<T>(), rows, cols] {
      for (Index r = 0; r < rows; ++r) {
        Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> xr(x + r * cols, cols);
        Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>> yr(y + r * cols, cols);
        yr = (xr - xr.maxCoeff()).exp();
        yr /= yr.sum();
      }
    };
  });
}

void set_kernel_threads(int threads) {
  Eigen::setNbThreads(threads);
}

int kernel_threads() {
  return Eigen::nbThreads();
}

} // namespace lightsim::profile
