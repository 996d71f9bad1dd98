// The GPU kind's Hopper-era mechanisms (issue 24) against hand computation: a persistent stream-K GEMM
// spreads the last wave's tiles over every SM and pays for its partial sums (through the L2 when they fit,
// else memory), and the selection takes it only when that is faster; the L2 carries a kernel's activations
// when they fit, never its weights; a softmax whose rows exceed one_pass_row_elements reads its input once
// per pass (three), one whose rows fit reads it once; the arithmetic model's features carry all three.
//
// The test GPU (tests/sim/sim_fixture.h): 100 SMs at 1.5 GHz, HBM 3000 GB/s with 500 ns latency, launch
// 2000 ns, efficiencies 1.
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "sim/hw/kernel.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/gpu/gpu_module.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>

namespace lightsim::sim {
namespace {

using units::GpuGemmKernel;
using units::GpuParams;

// One tile, 128 x 128 with four 64 x 64 warps, 64 bytes of k (32 fp16 elements) per step; 1024 fp16 MACs
// per cycle per SM: a step's MMA is 128 x 128 x 32 / 1024 = 512 cycles, its shared memory (128 + 128) x 64
// + 4 x 128 x 64 = 49152 B / 256 B per cycle = 192 cycles: 512 cycles.
ir::Unit one_tile_gpu() {
  ir::Unit u = test::sim_machine().units[1];
  GpuParams& g = u.as<GpuParams>();
  g.cta_tiles = {{.m = 128, .n = 128, .k_bytes = 64, .warp_m = 64, .warp_n = 64, .stages = 3}};
  g.tensor_core_macs_per_cycle_per_sm[static_cast<std::size_t>(units::GemmPrecision::Float16)] = 1024;
  g.shared_memory_bytes_per_cycle_per_sm = 256;
  return u;
}

// 1408 x 1280 x 512 fp16: 11 x 10 = 110 tiles of 16 steps each, on 100 SMs; no memory traffic.
const units::GpuGemmShape kShape{.m = 1408, .n = 1280, .k = 512, .batch = 1, .dtype = ir::DType::Float16};

TEST(GpuStreamK, TheLastWaveIsSpreadOverEverySm) {
  ir::Unit u = one_tile_gpu();
  // Classic: a full wave of 100 CTAs and one of 10, each 16 steps: 2 x 16 x 512 cycles, two prologues and
  // epilogues (2 x 2 x 500 ns), the launch.
  const GpuGemmKernel classic = units::gpu_gemm_kernel(u, kShape);
  EXPECT_FALSE(classic.stream_k);
  EXPECT_EQ(classic.waves, 2);
  const double classic_ns = 2000 + 2 * 16 * 512 / 1.5 + 2 * 1000;
  EXPECT_NEAR(classic.kernel_ns, classic_ns, 1e-6);

  // Stream-K: 110 x 16 = 1760 steps over 100 SMs, 18 each; two tiles per SM at most (2 x 1000 ns); the
  // 10 tiles of the last wave are split, 100 fp32 partial tiles of 128 x 128 written and read back through
  // memory (2 x 100 x 65536 B at 3000 GB/s) after one more prologue and epilogue (1000 ns).
  u.as<GpuParams>().stream_k = true;
  const GpuGemmKernel sk = units::gpu_stream_k_candidate(u, kShape, 0);
  EXPECT_TRUE(sk.stream_k);
  EXPECT_EQ(sk.k_steps, 18);
  EXPECT_EQ(sk.steps_per_sm(), 18);
  EXPECT_DOUBLE_EQ(sk.main_loop_cycles, 18 * 512.0);
  const double partials = 2.0 * 100 * 128 * 128 * 4;
  EXPECT_NEAR(sk.reduction_ns, 1000 + partials / 3000, 1e-6);
  EXPECT_NEAR(sk.kernel_ns, 2000 + 18 * 512 / 1.5 + 2 * 1000 + 1000 + partials / 3000, 1e-6);
  // Through memory the fixup costs more than the wave it saves: the library keeps the classic kernel.
  ASSERT_GT(sk.kernel_ns, classic_ns);
  EXPECT_FALSE(units::gpu_gemm_kernel(u, kShape).stream_k);

  // With an L2 that holds the partials (13.1 MB in 50 MiB, at 7000 GB/s) stream-K is faster and chosen.
  u.as<GpuParams>().l2 = {.capacity_MiB = 50, .bandwidth_GBps = 7000};
  const GpuGemmKernel chosen = units::gpu_gemm_kernel(u, kShape);
  EXPECT_TRUE(chosen.stream_k);
  EXPECT_NEAR(chosen.kernel_ns, 2000 + 18 * 512 / 1.5 + 2 * 1000 + 1000 + partials / 7000, 1e-6);
  EXPECT_LT(chosen.kernel_ns, classic_ns);

  // A whole number of waves splits no tile: no fixup (1280 x 1280: 100 tiles, 16 steps each).
  const GpuGemmKernel even =
      units::gpu_stream_k_candidate(u, {.m = 1280, .n = 1280, .k = 512, .dtype = ir::DType::Float16}, 0);
  EXPECT_EQ(even.reduction_ns, 0);
  EXPECT_DOUBLE_EQ(even.main_loop_cycles, 16 * 512.0);
}

TEST(GpuPersistentEpilogues, OnePrologueAndOneEpilogueForTheWholeKernel) {
  ir::Unit u = one_tile_gpu();
  // Two waves of the classic kernel: each its prologue and epilogue, 2 x 2 x 500 ns.
  const GpuGemmKernel classic = units::gpu_gemm_candidate(u, kShape, 0, 1);
  EXPECT_EQ(classic.waves, 2);
  EXPECT_DOUBLE_EQ(classic.wave_overhead_ns, 2 * 2 * 500.0);
  // Warp-specialised persistent kernels load the second wave's tiles while the first writes: one of each.
  u.as<GpuParams>().persistent_epilogues = true;
  const GpuGemmKernel persistent = units::gpu_gemm_candidate(u, kShape, 0, 1);
  EXPECT_DOUBLE_EQ(persistent.wave_overhead_ns, 2 * 500.0);
  EXPECT_NEAR(classic.kernel_ns - persistent.kernel_ns, 1000, 1e-6);
  // Stream-K's two tiles per SM likewise (its fixup's own prologue and epilogue stay).
  const GpuGemmKernel sk = units::gpu_stream_k_candidate(u, kShape, 0);
  EXPECT_DOUBLE_EQ(sk.wave_overhead_ns, 2 * 500.0);
  // One wave: nothing to overlap.
  const GpuGemmKernel one =
      units::gpu_gemm_candidate(u, {.m = 1280, .n = 1280, .k = 512, .dtype = ir::DType::Float16}, 0, 1);
  EXPECT_EQ(one.waves, 1);
  EXPECT_DOUBLE_EQ(one.wave_overhead_ns, 2 * 500.0);
}

TEST(GpuL2, ActivationsThatFitGoThroughTheL2WeightsNever) {
  ir::Unit u = test::sim_machine().units[1];
  GpuParams& g = u.as<GpuParams>();
  constexpr double MiB = 1024.0 * 1024.0;
  EXPECT_EQ(units::gpu_l2_bytes(g, 30 * MiB, 10 * MiB), 0); // no L2 configured
  g.l2 = {.capacity_MiB = 50, .bandwidth_GBps = 7000};
  EXPECT_EQ(units::gpu_l2_bytes(g, 30 * MiB, 10 * MiB), 20 * MiB); // 20 MiB of activations fit
  EXPECT_EQ(units::gpu_l2_bytes(g, 70 * MiB, 10 * MiB), 40 * MiB); // 60 MiB: 2 x 50 - 60 still there
  EXPECT_EQ(units::gpu_l2_bytes(g, 110 * MiB, 10 * MiB), 0);       // 100 MiB: none
  EXPECT_EQ(units::gpu_l2_bytes(g, 10 * MiB, 10 * MiB), 0);        // weights only
  EXPECT_DOUBLE_EQ(units::gpu_stream_ns(g, 1.0, 3e6, 1e6), 500 + 2e6 / 3000 + 1e6 / 7000);

  // An elementwise op on the module: 12 MB of activations, all through the L2.
  fresh_simulation();
  units::Gpu gpu("gpu", u);
  ir::Op add;
  add.op_class = ir::OpClass::Add;
  add.features = {.elements_in = 2e6, .elements_out = 1e6, .elements_read = 2e6};
  const OpWork work{.op = 0, .lane = 0, .desc = &add, .home_bytes = 12e6};
  EXPECT_NEAR(gpu.kernel_ns(work), 2000 + 500 + 12e6 / 7000, 1e-9);
  // A GEMM that streams only weights runs as without an L2.
  const units::GpuGemmShape weights{.m = 32,
                                    .n = 14080,
                                    .k = 4096,
                                    .dtype = ir::DType::Float16,
                                    .memory_bytes = 1.2e8,
                                    .weight_bytes = 1.2e8};
  ir::Unit plain = test::sim_machine().units[1];
  EXPECT_DOUBLE_EQ(units::gpu_gemm_kernel(u, weights).kernel_ns,
                   units::gpu_gemm_kernel(plain, weights).kernel_ns);
}

// The module's kernel time of an add of 2e6 + 1e6 elements moving `bytes` (a fresh simulation).
double add_kernel_ns(const ir::Unit& u, double bytes) {
  fresh_simulation();
  units::Gpu gpu("gpu", u);
  ir::Op add;
  add.op_class = ir::OpClass::Add;
  add.features = {.elements_in = 2e6, .elements_out = 1e6, .elements_read = 2e6};
  return gpu.kernel_ns({.op = 0, .lane = 0, .desc = &add, .home_bytes = bytes});
}

// The L2's reach, its latency and the copy rate of streaming kernels (configs/gpu_configs.py derives the
// H100's from measure_gpu.py's sweeps), by hand.
TEST(GpuL2, ReachLatencyAndStreamRate) {
  ir::Unit u = test::sim_machine().units[1]; // HBM 3000 GB/s, latency 500 ns, efficiencies 1
  GpuParams& g = u.as<GpuParams>();
  constexpr double MiB = 1024.0 * 1024.0;
  g.l2 = {.capacity_MiB = 50, .bandwidth_GBps = 8000, .reach_MiB = 28, .latency_ns = 140};
  EXPECT_EQ(units::gpu_l2_bytes(g, 24 * MiB, 0), 24 * MiB); // within the reach: all of it
  EXPECT_EQ(units::gpu_l2_bytes(g, 32 * MiB, 0), 24 * MiB); // 4 MiB beyond: 2 x 28 - 32
  EXPECT_EQ(units::gpu_l2_bytes(g, 48 * MiB, 0), 8 * MiB);
  EXPECT_EQ(units::gpu_l2_bytes(g, 56 * MiB, 0), 0); // twice the reach: none, though under capacity

  // A kernel served wholly by the L2 waits its round trip; one byte from memory, the memory's.
  EXPECT_DOUBLE_EQ(units::gpu_stream_ns(g, 1.0, 8e6, 8e6), 140 + 8e6 / 8000);
  EXPECT_DOUBLE_EQ(units::gpu_stream_ns(g, 1.0, 8e6, 6e6), 500 + 2e6 / 3000 + 6e6 / 8000);

  // Element kernels stream at stream_memory_efficiency, row reductions at memory_efficiency.
  g.memory_efficiency = 0.8;
  EXPECT_EQ(units::gpu_stream_efficiency(g, ir::OpClass::Add), 0.8); // not set: memory_efficiency
  g.stream_memory_efficiency = 0.9;
  EXPECT_EQ(units::gpu_stream_efficiency(g, ir::OpClass::Add), 0.9);
  EXPECT_EQ(units::gpu_stream_efficiency(g, ir::OpClass::Copy), 0.9);
  EXPECT_EQ(units::gpu_stream_efficiency(g, ir::OpClass::Softmax), 0.8);
  EXPECT_EQ(units::gpu_stream_efficiency(g, ir::OpClass::LayerNorm), 0.8);

  // On the module: a 64 MB add from HBM at 0.9 x 3000 GB/s after launch_latency_ns (2000) and the
  // memory's round trip; a 12 MB one from the L2 after the L2's.
  EXPECT_NEAR(add_kernel_ns(u, 12e6), 2000 + 140 + 12e6 / 8000, 1e-9);
  EXPECT_NEAR(add_kernel_ns(u, 64e6), 2000 + 500 + 64e6 / 2700, 1e-9);
}

// gemm_prologue_ns is a GEMM kernel's own fixed time: in its duration, not in the cycles after its launch
// (the arithmetic model's feature), and not in an element kernel's.
TEST(GpuGemm, PrologueAddsToGemmKernelsOnly) {
  ir::Unit u = test::sim_machine().units[1];
  const units::GpuGemmShape shape{.m = 256, .n = 256, .k = 512, .dtype = ir::DType::Float16};
  const GpuGemmKernel before = units::gpu_gemm_kernel(u, shape);
  u.as<GpuParams>().gemm_prologue_ns = 300;
  const GpuGemmKernel after = units::gpu_gemm_kernel(u, shape);
  EXPECT_DOUBLE_EQ(after.kernel_ns, before.kernel_ns + 300);
  EXPECT_DOUBLE_EQ(after.cycles_after_launch(u.clock_ghz), before.cycles_after_launch(u.clock_ghz));
  EXPECT_NEAR(add_kernel_ns(u, 12e6), 2000 + 500 + 12e6 / 3000, 1e-9);
}

// A softmax over 4e6 fp16 elements in rows of `row_elements`.
ir::Op softmax_op(std::int64_t row_elements) {
  ir::Op softmax;
  softmax.op_class = ir::OpClass::Softmax;
  softmax.features = {.elements_in = 4e6, .elements_out = 4e6, .bytes_read = 8e6, .elements_read = 4e6};
  softmax.features.row_elements = row_elements;
  softmax.features.row_passes_off_chip = 3;
  return softmax;
}

TEST(GpuSoftmax, RowsLongerThanOnePassAreReadOncePerPass) {
  ir::Unit u = test::sim_machine().units[1];
  GpuParams& g = u.as<GpuParams>();
  const ir::Op softmax = softmax_op(2048);
  EXPECT_EQ(units::gpu_row_passes(g, softmax.features), 1); // one_pass_row_elements 0: no limit
  g.one_pass_row_elements = 2048;
  EXPECT_EQ(units::gpu_row_passes(g, softmax.features), 1); // the row fits
  g.one_pass_row_elements = 1024;
  EXPECT_EQ(units::gpu_row_passes(g, softmax.features), 3); // maximum, sum, normalise
  EXPECT_EQ(units::gpu_reread_bytes(g, softmax.features), 2 * 8e6);
  ir::OpFeatures norm = softmax.features;
  norm.row_passes_off_chip = 2; // layer_norm: statistics, normalise
  EXPECT_EQ(units::gpu_row_passes(g, norm), 2);

  // The module streams the input three times and the output once: 8e6 x 3 + 8e6 bytes at 3000 GB/s.
  fresh_simulation();
  units::Gpu gpu("gpu", u);
  const OpWork work{.op = 0, .lane = 0, .desc = &softmax, .home_bytes = 16e6};
  EXPECT_NEAR(gpu.kernel_ns(work), 2000 + 500 + 32e6 / 3000, 1e-9);
  // The arithmetic model's feature holds the bytes read again.
  ir::FeatureValues x{};
  u.kind->fill_features(u, softmax.features, x);
  EXPECT_EQ(x[static_cast<std::size_t>(units::gpu_features().row_reread_bytes)], 16e6);
}

// A one-pass softmax bound by its instructions (row_reduction_cycles_per_element), by hand: 4e6 elements x
// 0.5 cycles over 100 SMs at 1.5 GHz = 13333 ns, longer than its 16 MB stream (500 + 16e6 / 3000 ns) and
// its CUDA-core operations (4e6 / (128 x 100) cycles).
TEST(GpuSoftmax, OnePassRowsAreBoundByTheirInstructions) {
  ir::Unit u = test::sim_machine().units[1];
  GpuParams& g = u.as<GpuParams>();
  const ir::Op softmax = softmax_op(512);
  const OpWork work{.op = 0, .lane = 0, .desc = &softmax, .home_bytes = 16e6};
  fresh_simulation();
  units::Gpu plain("plain", u);
  EXPECT_NEAR(plain.kernel_ns(work), 2000 + 500 + 16e6 / 3000, 1e-9); // no instruction bound: the stream
  g.row_reduction_cycles_per_element = 0.5;
  EXPECT_DOUBLE_EQ(units::gpu_row_reduction_cycles(g, softmax.features), 4e6 * 0.5 / 100);
  fresh_simulation();
  units::Gpu gpu("gpu", u);
  EXPECT_NEAR(gpu.kernel_ns(work), 2000 + 4e6 * 0.5 / 100 / 1.5, 1e-9);
  // The arithmetic model's compute_cycles is the same bound; an element op and a vLLM row kernel have none.
  ir::FeatureValues x{};
  u.kind->fill_features(u, softmax.features, x);
  EXPECT_DOUBLE_EQ(x[static_cast<std::size_t>(ir::Feature::ComputeCycles)], 4e6 * 0.5 / 100);
  ir::OpFeatures add = softmax.features;
  add.row_elements = 0;
  EXPECT_EQ(units::gpu_row_reduction_cycles(g, add), 0);
  ir::OpFeatures row_kernel = softmax.features;
  row_kernel.row_kernel = {.rows = 8192, .items_per_row = 512, .threads_per_cta = 512, .passes = 3};
  EXPECT_EQ(units::gpu_row_reduction_cycles(g, row_kernel), 0);
}

} // namespace
} // namespace lightsim::sim

namespace lightsim::sim {
namespace {

// Fused causal attention, 2 heads of 256 queries and 256 keys, head dimension 64, fp16; 64 KiB of shared
// memory per SM make query blocks of ceil(32768 / (4 x 64)) = 128 rows: two per head.
ir::OpFeatures causal_attention() {
  ir::OpFeatures op;
  op.gemm_batch = 2;
  op.gemm_m = 256;
  op.gemm_n = 256;
  op.gemm_k = 64;
  op.gemm_dtype = ir::DType::Float16;
  op.attention_value_dim = 64;
  op.attention_element_bytes = 2;
  op.attention_causal = true;
  op.macs = 2.0 * 256 * 256 * 128;
  return op;
}

TEST(GpuFlashAttention2, CausalBlocksAreSkippedAndKvIsReadAgainThroughTheL2) {
  ir::Unit u = test::sim_machine().units[1];
  GpuParams& g = u.as<GpuParams>();
  g.shared_memory_per_sm_KiB = 64;
  ir::OpFeatures op = causal_attention();
  // FlashAttention-1 (the default): every key, its traffic model.
  EXPECT_EQ(units::gpu_attention_fraction(g, op), 1);
  const units::GpuAttentionShapes fa1 = units::gpu_attention_shapes(u, op);
  EXPECT_EQ(fa1.scores.n, 256);
  EXPECT_EQ(fa1.scores.memory_bytes, ir::operand_bytes(u, op));

  // FlashAttention-2, causal: query i sees i + 1 keys, 256 x 257 / 2 of 256 x 256 pairs = 257 / 512.
  g.flash_attention_2 = true;
  g.l2 = {.capacity_MiB = 1, .bandwidth_GBps = 7000};
  EXPECT_DOUBLE_EQ(units::gpu_attention_fraction(g, op), 257.0 / 512);
  const units::GpuAttentionShapes fa2 = units::gpu_attention_shapes(u, op);
  EXPECT_EQ(fa2.scores.n, 129); // ceil(256 x 257 / 512) keys per query in both products
  EXPECT_EQ(fa2.values.k, 129);
  EXPECT_EQ(fa2.scores.m, 256);
  EXPECT_EQ(fa2.values.n, 64);
  // Q and O (256 x 128 x 2 B per head) and K and V (256 x 128 x 2 B per head) once: 2 x 131072 bytes; K and V
  // again for the second query block, the visible share: 2 x 65536 x 257 / 512 = 65792, through the L2
  // (two heads in flight, 131072 bytes of K and V, fit in 1 MiB).
  EXPECT_DOUBLE_EQ(fa2.scores.memory_bytes, 262144 + 65792);
  EXPECT_DOUBLE_EQ(fa2.scores.l2_bytes, 65792);
  // Without an L2 the re-reads come from memory; without the mask every key is computed and read again.
  g.l2 = {};
  EXPECT_DOUBLE_EQ(units::gpu_attention_shapes(u, op).scores.l2_bytes, 0);
  op.attention_causal = false;
  const units::GpuAttentionShapes full = units::gpu_attention_shapes(u, op);
  EXPECT_EQ(full.scores.n, 256);
  EXPECT_DOUBLE_EQ(full.scores.memory_bytes, 262144 + 131072);
  // A decode step (one query, the last position) sees every key: nothing to skip.
  op.attention_causal = true;
  op.gemm_m = 1;
  EXPECT_EQ(units::gpu_attention_fraction(g, op), 1);
}

} // namespace
} // namespace lightsim::sim
