// Fused attention's memory traffic (ir/cost/unit_work.h, FlashAttention's Algorithm 1) against bytes
// computed by hand for two sequence lengths and two on-chip memory sizes, its growth with N (as
// N^2 d^2 / M, not the N^2 of materialised scores), and the same figures through the fusion pass and a
// GPU's shared memory from the config.
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "ir/fusion/fusion.h"
#include "ir/graphgen/expr_graph.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "tests/fusion/fusion_test_util.h"

#include <gtest/gtest.h>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::ir {
namespace {

// One head (batch 1) of fp16 attention with head dim 64: N queries against N keys.
OpFeatures head(std::int64_t n) {
  OpFeatures f;
  f.gemm_batch = 1;
  f.gemm_m = f.gemm_n = n;
  f.gemm_k = 64;
  f.attention_value_dim = 64;
  f.attention_element_bytes = 2;
  return f;
}

constexpr double kKiB = 1024;

TEST(AttentionBytes, MatchHandComputation) {
  // M = 64 KiB = 32768 fp16 elements: Bc = ceil(32768 / (4 x 64)) = 128 keys per block.
  // N = 1024: Tc = 8. K, V once: 1024 x 128; O initialised: 1024 x 64; per key block Q read, O read and
  // written: 8 x 1024 x (64 + 128). 2 bytes each: 2 x (131072 + 65536 + 1572864) = 3538944.
  // l, m (fp32): initialised 2 x 1024, read and written per block 8 x 4 x 1024: 4 x 34816 = 139264.
  EXPECT_EQ(attention_memory_bytes(head(1024), 64 * kKiB), 3538944.0 + 139264.0);
  // N = 4096: Tc = 32: 2 x (524288 + 262144 + 32 x 4096 x 192) + 4 x (8192 + 32 x 4 x 4096).
  EXPECT_EQ(attention_memory_bytes(head(4096), 64 * kKiB), 51904512.0 + 2129920.0);
  // M = 256 KiB = 131072 elements: Bc = 512. N = 1024: Tc = 2; N = 4096: Tc = 8.
  EXPECT_EQ(attention_memory_bytes(head(1024), 256 * kKiB), 1179648.0 + 40960.0);
  EXPECT_EQ(attention_memory_bytes(head(4096), 256 * kKiB), 14155776.0 + 557056.0);
  // Heads multiply it; a mask read from memory adds its bytes once.
  OpFeatures heads = head(1024);
  heads.gemm_batch = 32;
  heads.attention_mask_bytes = 1000;
  EXPECT_EQ(attention_memory_bytes(heads, 64 * kKiB), 32 * (3538944.0 + 139264.0) + 1000);
}

TEST(AttentionBytes, GrowAsNSquaredDSquaredOverM) {
  // Doubling N (queries and keys) doubles the key blocks and the queries: x4 at large N.
  for (std::int64_t n : {16384, 65536}) {
    const double ratio =
        attention_memory_bytes(head(2 * n), 64 * kKiB) / attention_memory_bytes(head(n), 64 * kKiB);
    EXPECT_GT(ratio, 3.9) << n;
    EXPECT_LE(ratio, 4.0) << n;
  }
  // Four times the on-chip memory: a quarter of the key blocks, close to a quarter of the bytes.
  const double by_memory =
      attention_memory_bytes(head(65536), 64 * kKiB) / attention_memory_bytes(head(65536), 256 * kKiB);
  EXPECT_GT(by_memory, 3.8);
  EXPECT_LE(by_memory, 4.0);
  // Against attention as four unfused kernels, which move 6 N^2 elements (QK^T writes the scores, the mask
  // add reads and writes them, the softmax too, AV reads the probabilities): with d = 64 and 64 KiB
  // (Bc = 128), FlashAttention moves about 3 x 64 x N^2 / 128 = 1.5 N^2 elements, a quarter.
  const double n = 65536, unfused = 6 * n * n * 2;
  EXPECT_LT(attention_memory_bytes(head(65536), 64 * kKiB), unfused / 3.5);
  EXPECT_GT(attention_memory_bytes(head(65536), 64 * kKiB), unfused / 4.5);
}

// Attention as lightsim-graph writes it (fp16, 4 heads, N tokens, head dim 64), fused with --fuse flash;
// its memory traffic on a GPU with `shared_KiB` of shared memory per SM.
double fused_attention_bytes(std::int64_t n, double shared_KiB) {
  using graphgen::ExprRef;
  graphgen::ExprGraph e;
  const DType h = DType::Float16;
  const ExprRef q = e.input("q", {{4, n, 64}, h});
  const ExprRef k = e.input("k", {{4, n, 64}, h});
  const ExprRef v = e.input("v_t", {{4, 64, n}, h});
  const ExprRef s = e.call("nn_batch_matmul", {q, k}, {{4, n, n}, h});
  const ExprRef scaled = e.call("divide", {s, e.constant({{}, h})}, {{4, n, n}, h});
  const ExprRef masked = e.call("add", {scaled, e.constant({{1, n, n}, h})}, {{4, n, n}, h});
  const ExprRef p = e.call("nn_softmax", {masked}, {{4, n, n}, h});
  e.add_output(e.call("nn_batch_matmul", {p, v}, {{4, n, 64}, h}));
  const fusion::FusionResult r = fusion::fuse(test::import_exprs(e), {fusion::FuseMode::Flash, 256});
  EXPECT_EQ(r.attention_ops, 1u);
  EXPECT_EQ(r.graph.num_compute_ops(), 1u);
  const Op& op = r.graph.ops.back();
  EXPECT_EQ(op.op_class, OpClass::Attention);
  EXPECT_EQ(op.features.fused_tail, (std::vector<OpClass>{OpClass::Divide, OpClass::Add, OpClass::Softmax}));
  EXPECT_EQ(op.features.macs, 4.0 * static_cast<double>(n * n) * 128);
  EXPECT_EQ(op.features.fused_ops, 3 * 4.0 * static_cast<double>(n * n)); // scale, mask, softmax per score
  Unit gpu;
  gpu.kind = &units::gpu_kind();
  gpu.params = units::gpu_kind().default_params();
  gpu.as<units::GpuParams>().shared_memory_per_sm_KiB = shared_KiB;
  EXPECT_EQ(feature_value(Feature::OperandBytes, op.features, gpu), operand_bytes(gpu, op.features));
  return operand_bytes(gpu, op.features);
}

TEST(AttentionBytes, ThroughTheFusionPassAndTheGpuSharedMemory) {
  // The mask is a bound constant (generated on chip), the scale is inlined: 4 heads x the one-head figures.
  EXPECT_EQ(fused_attention_bytes(1024, 64), 4 * (3538944.0 + 139264.0));
  EXPECT_EQ(fused_attention_bytes(4096, 256), 4 * (14155776.0 + 557056.0));
}

} // namespace
} // namespace lightsim::ir
