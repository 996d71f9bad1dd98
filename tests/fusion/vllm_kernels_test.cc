// The vllm fusion mode (ir/fusion/vllm_kernels.h): its three merges on small graphs written in code (a
// normalisation with and without a residual add before it, siblings that share a constant, and siblings
// that must stay apart because one depends on the other), then on the real Llama-2 export: the kernels
// vLLM launches and the row-kernel geometry each gets. The partition's invariants on all four exports are
// checked with the other modes (FusionOnExports.EveryOpInOneGroupOneAnchorNoCycle).
#include "ir/fusion/fusion.h"
#include "ir/graphgen/expr_graph.h"
#include "ir/tvm/tvm_import.h"
#include "tests/fusion/fusion_test_util.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>

namespace lightsim::ir::fusion {
namespace {

using graphgen::ExprGraph;
using graphgen::ExprRef;
using test::count_body;

FusionResult fuse_vllm(const Graph& g) {
  return fuse(g, {FuseMode::Vllm, 256});
}

const Op& op_with_body(const FusionResult& r, const std::string& body) {
  for (const Op& op : r.graph.ops)
    if (op.op_class != OpClass::Input && relay_ops_of(op.func_name) == body) return op;
  throw std::runtime_error("no fused op " + body);
}

const graphgen::TensorType kRow{{4, 8}, DType::Float32};

// RMSNorm of x over rows of 8: x * rsqrt(mean(x^2) + eps) * w.
ExprRef rms_norm(ExprGraph& e, ExprRef x) {
  const ExprRef sq = e.call("power", {x, e.constant({{}, DType::Float32})}, kRow);
  const ExprRef m = e.call("mean", {sq}, {{4, 1}, DType::Float32});
  const ExprRef r =
      e.call("rsqrt", {e.call("add", {m, e.constant({{}, DType::Float32})}, {{4, 1}, DType::Float32})},
             {{4, 1}, DType::Float32});
  const ExprRef y = e.call("multiply", {x, r}, kRow);
  return e.call("multiply", {y, e.constant({{8}, DType::Float32})}, kRow);
}

TEST(VllmKernels, ANormalisationIsOneRowKernel) {
  ExprGraph e;
  e.add_output(rms_norm(e, e.input("x", kRow)));
  const Graph g = test::import_exprs(e);
  EXPECT_EQ(fuse(g, {FuseMode::Tvm, 256}).graph.num_compute_ops(), 2u); // TVM: reduce, then scale
  const FusionResult r = fuse_vllm(g);
  test::check_partition(g, r);
  ASSERT_EQ(r.graph.num_compute_ops(), 1u);
  const Op& op = op_with_body(r, "power_mean_add_rsqrt_multiply_multiply");
  // One CTA per row of 8, 8 threads of one element each, two passes (reduce, then scale).
  EXPECT_EQ(op.features.row_kernel,
            (RowKernel{.rows = 4, .items_per_row = 8, .threads_per_cta = 8, .passes = 2}));
  // x is read once from memory, as vLLM's kernel reads it (the second pass hits the cache).
  EXPECT_EQ(op.features.bytes_read, 4.0 * (4 * 8 + 8));
  // PyTorch's geometry (vectorize_row_kernels, 8-byte accesses, 1 thread a row at most here): 2 fp32 per
  // access, 4 accesses per row and pass, one thread stepping through them.
  FusionOptions pytorch{FuseMode::Vllm, 256};
  pytorch.vectorize_row_kernels = true;
  pytorch.vector_access_bytes = 8;
  pytorch.row_cta_threads = 1;
  EXPECT_EQ(op_with_body(fuse(g, pytorch), "power_mean_add_rsqrt_multiply_multiply").features.row_kernel,
            (RowKernel{.rows = 4, .items_per_row = 4, .threads_per_cta = 1, .passes = 2}));
}

TEST(VllmKernels, AResidualAddJoinsTheNormAndLeavesAsASecondOutput) {
  ExprGraph e;
  const ExprRef h = e.call("add", {e.input("a", kRow), e.input("b", kRow)}, kRow);
  e.add_output(rms_norm(e, h));
  e.add_output(e.call("exp", {h}, kRow)); // the residual stream goes on
  const Graph g = test::import_exprs(e);
  const FusionResult r = fuse_vllm(g);
  test::check_partition(g, r);
  const Op& op = op_with_body(r, "add_power_mean_add_rsqrt_multiply_multiply");
  EXPECT_EQ(op.outputs.size(), 2u); // the sum (read by exp) and the normalised rows
  // Vectorised as fused_add_rms_norm: 16 bytes = 4 fp32 per access, so 2 accesses per row of 8.
  EXPECT_EQ(op.features.row_kernel,
            (RowKernel{.rows = 4, .items_per_row = 2, .threads_per_cta = 2, .passes = 2}));
  EXPECT_EQ(count_body(r, "exp"), 1u);
  // Without a second computed operand the add is not a residual add: a norm of x + constant stays apart.
  ExprGraph c;
  const ExprRef shifted = c.call("add", {c.input("x", kRow), c.constant(kRow)}, kRow);
  c.add_output(rms_norm(c, shifted));
  c.add_output(c.call("exp", {shifted}, kRow));
  const FusionResult rc = fuse_vllm(test::import_exprs(c));
  EXPECT_EQ(rc.graph.num_compute_ops(), 3u);
}

TEST(VllmKernels, SiblingsThatShareATableMergeUnlessOneDependsOnTheOther) {
  {
    ExprGraph e; // q * table and k * table, independent: one launch, two outputs, 8 rows in all
    const ExprRef t = e.constant(kRow);
    e.add_output(e.call("multiply", {e.input("q", kRow), t}, kRow));
    e.add_output(e.call("multiply", {e.input("k", kRow), t}, kRow));
    const Graph g = test::import_exprs(e);
    const FusionResult r = fuse_vllm(g);
    test::check_partition(g, r);
    ASSERT_EQ(r.graph.num_compute_ops(), 1u);
    const Op& op = op_with_body(r, "multiply_multiply");
    EXPECT_EQ(op.outputs.size(), 2u);
    EXPECT_EQ(op.features.row_kernel,
              (RowKernel{.rows = 8, .items_per_row = 8, .threads_per_cta = 8, .passes = 1}));
  }
  {
    ExprGraph e; // a = x * table; a dense of a; reshape and * table again: the second depends on the first
    const ExprRef t = e.constant(kRow);
    const ExprRef a = e.call("multiply", {e.input("x", kRow), t}, kRow);
    e.add_output(a);
    const ExprRef d = e.call("nn_dense", {a, e.constant({{8, 8}, DType::Float32})}, kRow);
    e.add_output(e.call("multiply", {e.call("__nop", {d}, kRow), t}, kRow));
    const Graph g = test::import_exprs(e);
    const FusionResult r = fuse_vllm(g);
    test::check_partition(g, r);
    EXPECT_EQ(r.graph.num_compute_ops(), 3u);
    EXPECT_EQ(count_body(r, "multiply"), 1u);
    EXPECT_EQ(count_body(r, "reshape_multiply"), 1u);
  }
}

TEST(VllmKernels, Llama2LaunchesVllmsKernels) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph g = import_tvm_graph_file(test::model_path("llama2_7b_prefill.json")).graph; // fp32, 10 tokens
  const FusionResult r = fuse_vllm(g);
  test::check_partition(g, r);
  // RMSNorm is one kernel; after the first layer's input norm, each takes the residual add before it and
  // writes the sum as well (the last one only its norm: nothing reads the final residual stream).
  EXPECT_EQ(count_body(r, "power_mean_add_rsqrt_multiply_multiply"), 1u);
  EXPECT_EQ(count_body(r, "reshape_add_power_mean_add_rsqrt_multiply_multiply"), 63u);
  EXPECT_EQ(count_body(r, "reshape_add_power_mean_add_rsqrt_multiply_multiply_reshape"), 1u);
  EXPECT_EQ(count_body(r, "power_mean"), 0u);
  EXPECT_EQ(count_body(r, "add_rsqrt_multiply_multiply"), 0u);
  // RoPE: Q and K in one launch (the softmax scale is the fused attention's); SiLU-and-multiply as TVM
  // forms it.
  const std::string rope = "multiply_strided_slice_negative_strided_slice_concatenate_multiply_add_"
                           "multiply_strided_slice_negative_strided_slice_concatenate_multiply_add";
  EXPECT_EQ(count_body(r, rope), 32u);
  EXPECT_EQ(count_body(r, "reshape_sigmoid_multiply_reshape_multiply_reshape"), 32u);
  // Fused attention per layer, as flash forms it.
  EXPECT_EQ(r.attention_ops, 32u);
  EXPECT_LT(r.graph.num_compute_ops(), fuse(g, {FuseMode::Flash, 256}).graph.num_compute_ops());

  // Geometry: one CTA per token for the norms and the activation, per (head, token) row of 128 for RoPE.
  EXPECT_EQ(op_with_body(r, "power_mean_add_rsqrt_multiply_multiply").features.row_kernel,
            (RowKernel{.rows = 10, .items_per_row = 4096, .threads_per_cta = 1024, .passes = 2}));
  const Op& add_norm = op_with_body(r, "reshape_add_power_mean_add_rsqrt_multiply_multiply");
  EXPECT_EQ(add_norm.outputs.size(), 2u);
  EXPECT_EQ(add_norm.features.row_kernel, // 16-byte accesses of 4 fp32
            (RowKernel{.rows = 10, .items_per_row = 1024, .threads_per_cta = 1024, .passes = 2}));
  EXPECT_EQ(op_with_body(r, rope).features.row_kernel,
            (RowKernel{.rows = 2 * 32 * 10, .items_per_row = 128, .threads_per_cta = 128, .passes = 1}));
  EXPECT_EQ(op_with_body(r, "reshape_sigmoid_multiply_reshape_multiply_reshape").features.row_kernel,
            (RowKernel{.rows = 10, .items_per_row = 11008, .threads_per_cta = 1024, .passes = 1}));
  // Layout copies and the GEMMs are not row kernels.
  EXPECT_EQ(op_with_body(r, "reshape_transpose").features.row_kernel, RowKernel{});
  EXPECT_EQ(op_with_body(r, "nn_dense").features.row_kernel, RowKernel{});
}

} // namespace
} // namespace lightsim::ir::fusion
