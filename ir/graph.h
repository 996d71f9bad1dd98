// Graph: the computation graph of one inference step, as imported from TVM graph-executor JSON. Every TVM
// node becomes an Op (inputs and weights too, as OpClass::Input); every node output ("entry" in TVM's
// words) becomes a Tensor with its own shape, dtype and byte size. Ops are stored in a topological order
// (TVM's node order, or a stable topological reorder of it on import) and refer to tensors by index.
//
// It is not a cost model or a placement: those are ir/cost/stacked_graph.h and scheduler/.
#pragma once

#include "ir/dtype.h"
#include "ir/op_class.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lightsim::ir {

using TensorId = std::int32_t;
using OpId = std::int32_t;

struct Tensor {
  std::vector<std::int64_t> shape;
  DType dtype = DType::Float32;
  std::uint64_t elements = 0; // product of shape (1 for a scalar)
  std::uint64_t bytes = 0;    // dtype_tensor_bytes(dtype, elements); import rejects overflow
  OpId producer = -1;
  std::int32_t output_index = 0; // which output of the producer this is
};

// A row kernel (ir/fusion/vllm_kernels.h): one CTA per row, its threads stepping through the row's items
// (accesses of one element, or of a vector), the row's passes one after the other (a normalisation reads
// the row to reduce it, then again to scale it). All 0: the op is not one.
struct RowKernel {
  std::int64_t rows = 0;
  std::int64_t items_per_row = 0; // accesses per row and pass
  std::int64_t threads_per_cta = 0;
  std::int64_t passes = 0;
  friend bool operator==(const RowKernel&, const RowKernel&) = default;
};

// Shape-derived quantities that the arithmetic model and the SystemC modules use.
struct OpFeatures {
  double macs = 0;         // multiply-accumulates of the anchor op (0 unless GEMM-like)
  double elements_in = 0;  // sum over input tensors
  double elements_out = 0; // sum over output tensors
  double bytes_in = 0;
  double bytes_out = 0;
  double bytes_read = 0;    // what the op reads: bytes_in, except gathers read only what they write (below)
  double elements_read = 0; // the same in elements
  double max_dim = 0;       // largest dimension of any input (the prototype's lm_head rule keys on it)
  // GEMM view of a GEMM-like op: `batch` independent (m x k) * (k x n) products. Zero otherwise
  // (ir/op_shapes.h has the rules). dense: data [.., m, k] x weight [n, k] (dense_pack: [n/bn, k, bn]);
  // batch_matmul: [b, m, k] x [b, n, k] or [b, k, n]; conv: implicit GEMM with batch = groups,
  // m = N x output pixels, n = output channels / groups, k = input channels / groups x kernel pixels;
  // conv_transpose: batch = groups, m = N x input pixels, n = output channels / groups x kernel pixels,
  // k = input channels / groups (each input pixel's products are scattered into the output).
  // A fused op has its anchor's view; Attention has QK^T's (batch = heads, m = queries, n = keys,
  // k = head dim).
  std::int64_t gemm_batch = 0, gemm_m = 0, gemm_n = 0, gemm_k = 0;
  // The GEMM's operand dtype (its first input's): the precision a unit computes it in.
  DType gemm_dtype = DType::Float32;
  // Convolution: bytes the patch (im2col) matrix, batch x m x k elements of the data's dtype, holds
  // beyond the data tensor itself (0 for a 1x1 stride-1 conv, about 8x the data for a 3x3 one). A unit
  // that materialises the patches moves these bytes too (ir/cost/unit_work.h says which units do).
  double im2col_extra_bytes = 0;
  // Element operations besides MACs: the anchor's own (max(elements_read, elements_out), 0 with a GEMM
  // view) plus those of its fused tail (`fused_ops`). The SystemC modules run them on the unit's
  // elementwise engine (CPU SIMD, GPU CUDA cores, PHU periphery). Read it through
  // ir::elementwise_ops (ir/cost/unit_work.h), which derives it when it is 0 (features filled by hand).
  double elementwise_ops = 0;
  // The fused tail's share of elementwise_ops: per member its max(elements read, elements written) when
  // the fusion pass formed the op (FusedShape), else one per output element per tail op (a func_name
  // names the members but not their shapes); Attention: one per score (batch x m x n) per tail op.
  double fused_ops = 0;
  // The classes of the other ops of a fused function, in order (empty for an unfused op): the one feature
  // Graph::finalize keeps rather than derives (the importer and the fusion pass set it). They decide where
  // the op can run (a unit must run every member), and a unit that runs each member at its own class's
  // rate (a CPU's elementwise_ops per class) shares fused_ops evenly among them (ir::cpu_tail_cycles), so
  // that the arithmetic model and the module weight the tail alike.
  std::vector<OpClass> fused_tail{};
  // Attention only: AV multiplies the [m, n] probabilities by [n, value_dim]; the element size of Q, K,
  // V and O; the bytes of a mask that must be read from memory (0 when the mask is a bound constant,
  // which a fused kernel generates on chip as FlashAttention does its causal mask).
  std::int64_t attention_value_dim = 0;
  double attention_element_bytes = 0;
  double attention_mask_bytes = 0;
  // A mask that is a bound constant (the causal mask, which a fused kernel generates on chip): query i of m
  // attends to the first n - m + i + 1 of n keys only, and a kernel may skip the blocks it hides.
  bool attention_causal = false;
  // A row kernel's launch geometry (from FusedShape; zero otherwise): how a GPU runs it
  // (ir/cost/gpu_kernel.h).
  RowKernel row_kernel{};
  // Softmax, log_softmax and layer_norm: elements of one row, the axis they reduce over (the first input's
  // last axis, as TVM's defaults), and the passes over a row that a kernel makes when the row does not fit
  // on chip (softmax 3: maximum, sum of exponentials, normalise; layer_norm 2: statistics, normalise).
  // 0 for every other op.
  std::int64_t row_elements = 0;
  int row_passes_off_chip = 0;
  // Collectives (all_reduce, reduce_scatter, all_gather): the group's size (attrs.num_workers) and the
  // buffer as nccl-tests counts it (all-reduce and reduce-scatter: the input; all-gather: the output).
  // 0 for every other op.
  std::int64_t collective_workers = 0;
  double collective_bytes = 0;
  // Of bytes_read, what the op reads from bound parameters (weights, constants); the rest are activations.
  double param_bytes = 0;
};

// What the fusion pass (ir/fusion) records about an op it formed from several ops, where the op's own
// tensors cannot say it (the members' intermediate tensors are gone from the fused graph).
struct FusedShape {
  std::vector<std::uint64_t> input_bytes_read; // per input (same order): bytes the members read of it
  double elementwise_ops = 0;                  // of all members (see OpFeatures::elementwise_ops)
  double fused_ops = 0;                        // of the members besides the anchor
  std::int64_t gemm_batch = 0, gemm_m = 0, gemm_n = 0, gemm_k = 0; // the anchor's GEMM view (0: none)
  DType gemm_dtype = DType::Float32;                               // the anchor's operand dtype
  double im2col_extra_bytes = 0;                                   // the anchor's (a convolution)
  RowKernel row_kernel{};                                          // vllm mode's kernels without an anchor
};

// Relay op attributes that an exporter kept in a node's attrs (TVM's own graph JSON keeps none of
// them): read by the importer, checked against the shapes by Graph::finalize(). Empty / 0 = not given.
struct OpAttrs {
  std::vector<std::int64_t> strides, padding, dilation, kernel_size, pool_size, output_padding;
  std::int64_t groups = 0, channels = 0;
  std::int64_t num_workers = 0;           // a collective's group size (TVM Disco's ccl attrs)
  std::string data_layout, kernel_layout; // conv data_layout / kernel_layout, pool layout
  bool ceil_mode = false;
};

struct Op {
  std::string name;      // TVM node name
  std::string func_name; // attrs.func_name ("" for inputs)
  OpClass op_class = OpClass::Input;
  bool is_param = false; // an Input that is a bound parameter (weight / constant), not fed per run
  // An Input fed per run that is model state a runtime keeps on the device between runs (a decode step's KV
  // cache), recognised by name and shape (ir::is_model_state_input); where it lives is the config's
  // placement.state (ir/hardware/residency.h).
  bool is_state = false;
  std::vector<TensorId> inputs; // in argument order (a tensor may appear twice)
  std::vector<TensorId> outputs;
  OpFeatures features;
  std::optional<FusedShape> fused;      // set by ir/fusion on the ops it formed; finalize() reads it
  std::shared_ptr<const OpAttrs> attrs; // null when the node kept no op attributes (the usual case)
  std::int32_t node_index = -1;         // index in the source file's `nodes` (-1 for graphs built in code)
  // The pipeline stage that runs the op (ir/partition/pipeline_stages.h); -1: the graph is not split.
  std::int32_t pipeline_stage = -1;
  // The request (micro-batch) the op belongs to when several are in flight (ir/partition/micro_batches.h).
  std::int32_t micro_batch = 0;
};

struct Graph;

// "[1, 10, 4096]": a shape (or any list of dims) as messages write it.
std::string shape_text(const std::vector<std::int64_t>& shape);

// Bytes `op` actually reads from its input tensor `t`. A gather (take, strided_slice) reads from its data
// input (input 0) only the elements it writes, not the whole tensor (an embedding lookup reads a few rows
// of the table); every other op reads its inputs whole. An op the fusion pass formed reads what its
// members read (FusedShape::input_bytes_read); an imported fused function with a gather among its ops
// reads from input 0 what it writes (TVM passes the gathered table first when the gather is the
// function's root). The arithmetic model's operand bytes and the SystemC replay both count memory
// traffic with this rule.
std::uint64_t bytes_read_from(const Graph& graph, const Op& op, TensorId t);

struct Graph {
  std::string source; // file it came from (for messages and traces)
  std::vector<Op> ops;
  std::vector<Tensor> tensors;
  std::vector<TensorId> heads; // graph outputs

  // consumers[t]: ops that read tensor t, each once, in op order. Filled by finalize().
  std::vector<std::vector<OpId>> consumers;

  // Fills `consumers` and every op's `features` from the tensors. Called by the importer and by code
  // that builds graphs directly (tests, lightsim-graph). Throws InputError naming `source` and the op
  // when a tensor id is out of range, a GEMM-like op's operand shapes do not form a matrix product, or a
  // convolution's or pooling's shapes contradict each other or its attributes (ir/op_shapes.h).
  void finalize();

  std::size_t num_compute_ops() const; // ops that are not Input
};

} // namespace lightsim::ir
