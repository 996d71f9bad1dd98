// Kernels: real, single-threaded implementations of the ops found in TVM exports, for the profiler to time
// on this machine. Each make_* function checks shapes and dtypes once (InputError naming `where` when the
// op cannot be run) and returns a Kernel that does the whole computation on the given buffers each time it
// is called: GEMMs with Eigen (row-major maps, TVM's transpose_b layout), elementwise ops vectorised through
// Eigen array expressions with numpy-style broadcasting, reductions, softmax over the last axis, and
// layout ops as strided copies (axes inferred from shapes, see shape_rules.h).
//
// It is not a TVM runtime: no fusion or scheduling beyond what one call does, and results are checked only
// for being the mathematically right values (tests/profile/kernels_test.cc).
#pragma once

#include "ir/op_class.h"
#include "sim/profile/buffer.h"
#include "sim/profile/native_api.h"

#include <functional>
#include <string>
#include <vector>

namespace lightsim::profile {

using Kernel = std::function<void()>;

// True for the classes make_elementwise runs (unary, binary with broadcasting, less, where, cast).
LIGHTSIM_NATIVE_API bool is_elementwise_kernel(ir::OpClass c);
// Operands such an op takes: 2 for binary ops and less, 3 for where, else 1.
LIGHTSIM_NATIVE_API std::size_t elementwise_arity(ir::OpClass c);

// out = f(ins...) with broadcasting. `ins` has 1 (unary, cast), 2 (binary, less) or 3 (where) operands.
LIGHTSIM_NATIVE_API Kernel make_elementwise(ir::OpClass c, const std::vector<TensorRef>& ins,
                                            const TensorRef& out, const std::string& where);
// mean / sum over the axes infer_reduced_axes finds.
LIGHTSIM_NATIVE_API Kernel make_reduce(ir::OpClass c, const TensorRef& in, const TensorRef& out,
                                       const std::string& where);
// softmax over the last axis.
LIGHTSIM_NATIVE_API Kernel make_softmax(const TensorRef& in, const TensorRef& out, const std::string& where);
// data [.., m, k] x weight [n, k] (any weight shape of n*k elements is read as [n, k]) -> [.., m, n].
LIGHTSIM_NATIVE_API Kernel make_dense(const TensorRef& data, const TensorRef& weight, const TensorRef& out,
                                      const std::string& where);
// a [b, m, k] x b [b, n, k] (TVM's transpose_b, preferred when both fit) or [b, k, n] -> [b, m, n];
// a batch of 1 on either side broadcasts.
LIGHTSIM_NATIVE_API Kernel make_batch_matmul(const TensorRef& a, const TensorRef& b, const TensorRef& out,
                                             const std::string& where);

LIGHTSIM_NATIVE_API Kernel make_transpose(const TensorRef& in, const TensorRef& out,
                                          const std::string& where);
LIGHTSIM_NATIVE_API Kernel make_strided_slice(const TensorRef& in, const TensorRef& out,
                                              const std::string& where);
LIGHTSIM_NATIVE_API Kernel make_concatenate(const std::vector<TensorRef>& ins, const TensorRef& out,
                                            const std::string& where);
LIGHTSIM_NATIVE_API Kernel make_split(const TensorRef& in, const std::vector<TensorRef>& outs,
                                      const std::string& where);
// Gathers along the inferred axis; indices are clipped to the axis (TVM's default mode "clip").
LIGHTSIM_NATIVE_API Kernel make_take(const TensorRef& data, const TensorRef& indices, const TensorRef& out,
                                     const std::string& where);

// One implementation of every make_* above, for a unit that executes ops (this CPU; a GPU in
// sim/profile/cuda/). plan_op (graph_executor.h) picks among them by op class, so which kernel runs an op,
// with which inputs, and how a fused tail is applied is decided once for every unit.
struct KernelSet {
  std::function<Kernel(ir::OpClass, const std::vector<TensorRef>&, const TensorRef&, const std::string&)>
      elementwise;
  std::function<Kernel(ir::OpClass, const TensorRef&, const TensorRef&, const std::string&)> reduce;
  std::function<Kernel(const TensorRef&, const TensorRef&, const std::string&)> softmax;
  std::function<Kernel(const TensorRef&, const TensorRef&, const TensorRef&, const std::string&)> dense;
  std::function<Kernel(const TensorRef&, const TensorRef&, const TensorRef&, const std::string&)>
      batch_matmul;
  std::function<Kernel(const TensorRef&, const TensorRef&, const std::string&)> transpose;
  std::function<Kernel(const TensorRef&, const TensorRef&, const std::string&)> strided_slice;
  std::function<Kernel(const std::vector<TensorRef>&, const TensorRef&, const std::string&)> concatenate;
  std::function<Kernel(const TensorRef&, const std::vector<TensorRef>&, const std::string&)> split;
  std::function<Kernel(const TensorRef&, const TensorRef&, const TensorRef&, const std::string&)> take;
};

// The make_* functions above (this CPU).
const KernelSet& cpu_kernels(); // in graph_executor.cc, outside the native library

// Threads the GEMMs may use (Eigen's setting inside the kernel library, which has its own copy of Eigen;
// effective when built with OpenMP), and the setting in force.
LIGHTSIM_NATIVE_API void set_kernel_threads(int threads);
LIGHTSIM_NATIVE_API int kernel_threads();

} // namespace lightsim::profile
