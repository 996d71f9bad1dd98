// FlashAttention-2's forward kernel (sim/units/gpu/gpu_attention.h) against hand computation: CTAs of
// query blocks that stop at their last key under a causal mask, on SMs in launch order; an SM's CTAs
// overlap their fixed times and share its tensor cores (the SMs' shares counted by periods of the pattern);
// the split heuristic (its 0.8 fill, its 0.85 of the best fill, split counts that change nothing skipped); a
// decode step split over the SMs with its combine kernel; and the module, the arithmetic model's compute
// cycles and the kernel agreeing.
//
// The GPU: the test machine's (tests/sim/sim_fixture.h) at 1 GHz with 1024 fp16 MACs per cycle per SM at
// main_loop_efficiency 0.5, launch 500 ns, GEMM prologue 100 ns; blocks of 128 x 64 (split kernel 64 x 128)
// pairs, 16 exponentials per cycle per SM, a CTA's fixed time 1000 ns. One block of head size 64:
// 8192 pairs x (64 + 64) MACs / 512 a cycle = 2048 cycles, then 8192 / 16 = 512: 2560 ns.
#include "ir/cost/unit_work.h"
#include "ir/error.h"
#include "sim/hw/kernel.h"
#include "sim/units/gpu/gpu_attention.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_module.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>

namespace lightsim::sim {
namespace {

using units::GpuParams;

ir::Unit flash_gpu(int sms) {
  ir::Unit u = test::sim_machine().units[1];
  u.clock_ghz = 1;
  GpuParams& g = u.as<GpuParams>();
  g.sms = sms;
  g.tensor_core_macs_per_cycle_per_sm[static_cast<std::size_t>(units::GemmPrecision::Float16)] = 1024;
  g.main_loop_efficiency = 0.5;
  g.launch_latency_ns = 500;
  g.gemm_prologue_ns = 100;
  g.flash_attention_2 = true;
  g.flash_attention = {.block_m = 128,
                       .block_n = 64,
                       .split_block_m = 64,
                       .split_block_n = 128,
                       .ctas_per_sm = 1,
                       .cta_latency_ns = 1000,
                       .exp_per_cycle_per_sm = 16,
                       .setup_kernels = 1};
  return u;
}

// `heads` heads of m queries and n keys, head size 64, fp16.
ir::OpFeatures attention(std::int64_t heads, std::int64_t m, std::int64_t n, bool causal) {
  ir::OpFeatures op;
  op.gemm_batch = heads;
  op.gemm_m = m;
  op.gemm_n = n;
  op.gemm_k = 64;
  op.gemm_dtype = ir::DType::Float16;
  op.attention_value_dim = 64;
  op.attention_element_bytes = 2;
  op.attention_causal = causal;
  op.macs = static_cast<double>(heads * m * n * 128);
  return op;
}

TEST(GpuFlashAttention, SplitsFollowTheFillOfTheLastWave) {
  // 128 query-block CTAs on 132 SMs fill more than 0.8 of them: no split; one key block: nothing to split.
  EXPECT_EQ(units::gpu_flash_attention_splits(128, 132, 2), 1);
  EXPECT_EQ(units::gpu_flash_attention_splits(32, 132, 1), 1);
  // Decode on an H100: 32 heads, 32 key blocks. Fills 32s / 132 over its ceiling: 0.24, 0.48, 0.73, 0.97
  // (also at 8, 12, ...; none reaches 1 below 33): the least s within 0.85 of 0.97 is 4.
  EXPECT_EQ(units::gpu_flash_attention_splits(32, 132, 32), 4);
  // 10 CTAs on 40 SMs, 5 key blocks: s = 4 would fill the SMs exactly but leaves 2 blocks per split as s =
  // 3 does, so it is not a split count of its own; the best of 1, 2, 3, 5 is 3 (0.75; 5 fills 1.25 / 2).
  EXPECT_EQ(units::gpu_flash_attention_splits(10, 40, 5), 3);
}

TEST(GpuFlashAttention, CausalQueryBlocksStopAtTheirLastKey) {
  const ir::Unit u = flash_gpu(2);
  // One head of 256: 4 split-kernel CTAs fill the 2 SMs, so the plain kernel runs: query block 0 sees 128
  // keys (2 blocks), block 1 all 256 (4 blocks), each on its own SM.
  units::GpuFlashKernel k = units::gpu_flash_attention_kernel(u, attention(1, 256, 256, true));
  EXPECT_EQ(k.splits, 1);
  EXPECT_EQ(k.ctas, 2);
  EXPECT_DOUBLE_EQ(k.block_cycles, 2560);
  EXPECT_EQ(k.key_blocks, 4);
  EXPECT_DOUBLE_EQ(k.busiest_sm_ns, 1000 + 4 * 2560);
  EXPECT_LT(k.stream_ns, k.busiest_sm_ns);
  // A memset kernel (more than one query), the launch, the prologue, the busiest SM.
  EXPECT_DOUBLE_EQ(k.kernel_ns, 500 + 500 + 100 + 11240);

  // Three heads: CTAs 2, 4, 2, 4, 2, 4 blocks in launch order, SM 1 gets the three of 4.
  k = units::gpu_flash_attention_kernel(u, attention(3, 256, 256, true));
  EXPECT_EQ(k.key_blocks, 12);
  EXPECT_DOUBLE_EQ(k.busiest_sm_ns, 3 * 1000 + 12 * 2560);
  // Two CTAs resident per SM overlap their fixed times: two of them for three CTAs.
  ir::Unit two = u;
  two.as<GpuParams>().flash_attention.ctas_per_sm = 2;
  EXPECT_DOUBLE_EQ(units::gpu_flash_attention_kernel(two, attention(3, 256, 256, true)).busiest_sm_ns,
                   2 * 1000 + 12 * 2560);
  // Five heads on 3 SMs: CTAs 0..9 alternate 2 and 4 blocks, SM c mod 3: SM 0 gets CTAs 0, 3, 6, 9 (2 + 4 +
  // 2 + 4 blocks), SM 1 gets 1, 4, 7 (10), SM 2 gets 2, 5, 8 (8). The pattern repeats every 6 CTAs.
  ir::Unit three = flash_gpu(3);
  k = units::gpu_flash_attention_kernel(three, attention(5, 256, 256, true));
  EXPECT_EQ(k.key_blocks, 12);
  EXPECT_DOUBLE_EQ(k.busiest_sm_ns, 4 * 1000 + 12 * 2560);
  // 1001 heads: 2002 CTAs, SM 1 of 2 runs the 1001 of 4 blocks (counted by periods, as CTA by CTA).
  k = units::gpu_flash_attention_kernel(u, attention(1001, 256, 256, true));
  EXPECT_EQ(k.key_blocks, 4004);
  EXPECT_DOUBLE_EQ(k.busiest_sm_ns, 1001 * 1000 + 4004 * 2560);
  // Without the mask every query block steps through all 4 key blocks.
  EXPECT_DOUBLE_EQ(units::gpu_flash_attention_kernel(u, attention(1, 256, 256, false)).busiest_sm_ns,
                   1000 + 4 * 2560);
}

TEST(GpuFlashAttention, ADecodeStepIsSplitOverTheSmsAndCombined) {
  const ir::Unit u = flash_gpu(8);
  const GpuParams& g = u.as<GpuParams>();
  // Two heads, one query, 1024 keys: 2 CTAs fill 0.25 of 8 SMs; 8 key blocks of 128. Fills 2s / 8: 0.25,
  // 0.5, 0.75, 1 at s = 4 (5, 6, 7 leave 2 blocks a split, as 4 does; 8 fills 1 too): 4 splits.
  const ir::OpFeatures op = attention(2, 1, 1024, true);
  const units::GpuFlashKernel k = units::gpu_flash_attention_kernel(u, op);
  EXPECT_EQ(k.splits, 4);
  EXPECT_EQ(k.query_blocks, 1); // of the split kernel's 64 rows
  EXPECT_EQ(k.ctas, 8);
  EXPECT_EQ(k.key_blocks, 2); // one CTA an SM, 2 blocks of 64 x 128 pairs each
  EXPECT_DOUBLE_EQ(k.block_cycles, 2560);
  EXPECT_DOUBLE_EQ(k.busiest_sm_ns, 1000 + 2 * 2560);
  // The combine kernel: a launch and 2 heads x 4 splits x (64 + 1) fp32 values, written and read back.
  EXPECT_DOUBLE_EQ(k.combine_ns, 500 + units::gpu_stream_ns(g, g.memory_efficiency, 2.0 * 2 * 4 * 65 * 4));
  // One query: no memset. The K and V of 2 heads (2 x 1024 x 128 x 2 B) stream within the blocks' time.
  EXPECT_DOUBLE_EQ(k.setup_ns, 0);
  EXPECT_LT(k.stream_ns, k.busiest_sm_ns);
  EXPECT_DOUBLE_EQ(k.kernel_ns, 500 + 100 + 6120 + k.combine_ns);
}

TEST(GpuFlashAttention, TheModuleAndTheArithmeticFeatureTimeTheKernel) {
  const ir::Unit u = flash_gpu(2);
  const ir::OpFeatures op = attention(3, 256, 256, true);
  const units::GpuFlashKernel k = units::gpu_flash_attention_kernel(u, op);
  // The SystemC module's kernel is this kernel.
  fresh_simulation();
  units::Gpu gpu("gpu", u);
  ir::Op fused;
  fused.op_class = ir::OpClass::Attention;
  fused.features = op;
  EXPECT_DOUBLE_EQ(gpu.kernel_ns({.op = 0, .lane = 0, .desc = &fused, .home_bytes = 0}), k.kernel_ns);
  // The arithmetic model's compute cycles: the kernel beyond its launch and prologue.
  EXPECT_DOUBLE_EQ(units::gpu_compute_cycles(u, op), (k.kernel_ns - 600) * u.clock_ghz);
  // A GPU with no rate for the operands' dtype: the error names the unit (check_gpu_gemm_rates reports it
  // with the op before any costing).
  ir::Unit no_rate = u;
  no_rate.as<GpuParams>().tensor_core_macs_per_cycle_per_sm = {};
  no_rate.as<GpuParams>().cuda_core_macs_per_cycle_per_sm = {};
  EXPECT_THROW(units::gpu_flash_attention_kernel(no_rate, op), InputError);
  // A GPU without flash_attention times both products as GEMM kernels instead.
  ir::Unit plain = u;
  plain.as<GpuParams>().flash_attention = {};
  EXPECT_NE(units::gpu_compute_cycles(plain, op), units::gpu_compute_cycles(u, op));
}

} // namespace
} // namespace lightsim::sim
