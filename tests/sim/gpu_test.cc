// The GPU module (sim/hw/gpu.h) and its kernel model (ir/cost/gpu_kernel.h) against hand counts: GEMM
// time ratios between fp32 (CUDA cores), TF32, fp16 and int8 follow the configured rates; one element
// past a tile boundary costs the extra tile or wave; the selection picks the candidate of least padded
// time for shapes that favour different tiles, and split-K when the tiles do not fill the SMs; memory
// traffic overlaps compute step by step; an elementwise kernel, the launch latency and the gap; the
// per-shape cache; energy per operation; the arithmetic model's feature gives the module's time.
//
// The test GPU (tests/sim/sim_fixture.h): 100 SMs at 1.5 GHz, HBM 3000 GB/s with 500 ns latency, launch
// 2000 ns, efficiencies 1.
#include "ir/cost/cost_model.h"
#include "ir/error.h"
#include "sim/hw/kernel.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/gpu/gpu_module.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::sim {
namespace {

using units::GemmPrecision;
using units::GpuGemmKernel;
using units::GpuGemmShape;

constexpr double kClockGhz = 1.5;

ir::Unit test_gpu() {
  return test::sim_machine().units[1];
}

double& tensor_rate(ir::Unit& u, GemmPrecision p) {
  return u.as<units::GpuParams>().tensor_core_macs_per_cycle_per_sm[static_cast<std::size_t>(p)];
}

// Three tiles whose costs differ: 256 x 128 (8 warps of 64 x 64), 128 x 64 (4 warps of 64 x 32) and
// 64 x 64 (4 warps of 32 x 32); 64 bytes of k per step; shared memory 128 B per cycle.
// Per step (fp16, k = 32 elements, 1024 MACs per cycle): MMA 1024 / 256 / 128 cycles; shared memory
// (m + n) x 64 + warps x (warp_m + warp_n) x 64 bytes = 90112 / 36864 / 24576 B = 704 / 288 / 192 cycles;
// so a step costs 1024 / 288 / 192 cycles.
ir::Unit three_tile_gpu() {
  ir::Unit u = test_gpu();
  u.as<units::GpuParams>().cta_tiles = {
      {.m = 256, .n = 128, .k_bytes = 64, .warp_m = 64, .warp_n = 64, .stages = 3},
      {.m = 128, .n = 64, .k_bytes = 64, .warp_m = 64, .warp_n = 32, .stages = 3},
      {.m = 64, .n = 64, .k_bytes = 64, .warp_m = 32, .warp_n = 32, .stages = 3}};
  u.as<units::GpuParams>().shared_memory_bytes_per_cycle_per_sm = 128;
  return u;
}

// A GEMM with no memory traffic: the main loop is compute alone (hand counts stay short).
GpuGemmShape compute_only(std::int64_t m, std::int64_t n, std::int64_t k, ir::DType t = ir::DType::Float16) {
  return {.m = m, .n = n, .k = k, .batch = 1, .dtype = t, .memory_bytes = 0};
}

// launch + cycles / clock + waves x (prologue + epilogue = 2 x 500 ns)
double kernel_ns(double cycles, double waves) {
  return 2000 + cycles / kClockGhz + waves * 1000;
}

TEST(GpuKernel, PrecisionRatiosFollowTheConfiguredRates) {
  ir::Unit u = test_gpu(); // fp32 64 (CUDA cores), fp16 1024 and int8 2048 (tensor cores) MACs/cycle/SM
  // 1280 x 1280 x 4096: 10 x 10 = 100 tiles of 128 x 128 = one wave. Per step of 64 bytes of k:
  // fp16: 32 elements, 128x128x32 / 1024 = 512 cycles, 128 steps -> 65536 cycles;
  // fp32: 16 elements, 128x128x16 / 64 = 4096 cycles, 256 steps -> 1048576 cycles (16x: 1024 / 64);
  // int8: 64 elements, 128x128x64 / 2048 = 512 cycles, 64 steps -> 32768 cycles (half: 1024 / 2048).
  // With the operands' bytes the memory share per step is 94.5 cycles at most: compute bound.
  auto kernel = [&](ir::DType t) {
    const double bytes =
        static_cast<double>(ir::dtype_storage_bytes(t)) * (2 * 1280.0 * 4096 + 1280.0 * 1280);
    return units::gpu_gemm_kernel(
        u, {.m = 1280, .n = 1280, .k = 4096, .batch = 1, .dtype = t, .memory_bytes = bytes});
  };
  const GpuGemmKernel fp16 = kernel(ir::DType::Float16), fp32 = kernel(ir::DType::Float32),
                      int8 = kernel(ir::DType::Int8);
  EXPECT_DOUBLE_EQ(fp16.main_loop_cycles, 65536);
  EXPECT_DOUBLE_EQ(fp32.main_loop_cycles, 1048576);
  EXPECT_DOUBLE_EQ(int8.main_loop_cycles, 32768);
  EXPECT_DOUBLE_EQ(fp32.main_loop_cycles / fp16.main_loop_cycles, 1024.0 / 64);
  EXPECT_DOUBLE_EQ(fp16.main_loop_cycles / int8.main_loop_cycles, 2048.0 / 1024);
  EXPECT_DOUBLE_EQ(fp16.kernel_ns, kernel_ns(65536, 1));
  EXPECT_EQ(units::gpu_gemm_engine(u.as<units::GpuParams>(), ir::DType::Float32)->tensor_cores, false);
  EXPECT_EQ(units::gpu_gemm_engine(u.as<units::GpuParams>(), ir::DType::Int8)->precision,
            GemmPrecision::Int8);

  // cuBLAS' TF32 mode: fp32 GEMMs on the tensor cores at the tf32 rate (512): 128x128x16 / 512 = 512
  // cycles per step, 256 steps -> 131072 cycles, twice fp16 (1024 / 512).
  tensor_rate(u, GemmPrecision::Tf32) = 512;
  EXPECT_DOUBLE_EQ(kernel(ir::DType::Float32).main_loop_cycles, 1048576); // the switch is off
  u.as<units::GpuParams>().fp32_gemm_as_tf32 = true;
  const GpuGemmKernel tf32 = kernel(ir::DType::Float32);
  EXPECT_DOUBLE_EQ(tf32.main_loop_cycles, 131072);
  EXPECT_DOUBLE_EQ(tf32.main_loop_cycles / fp16.main_loop_cycles, 1024.0 / 512);
  EXPECT_EQ(units::gpu_gemm_engine(u.as<units::GpuParams>(), ir::DType::Float32)->precision,
            GemmPrecision::Tf32);
  // A dtype with no rate on either engine has no engine (the loader and the stacked graph report it).
  EXPECT_FALSE(units::gpu_gemm_engine(u.as<units::GpuParams>(), ir::DType::BFloat16));
  EXPECT_THROW(units::gpu_gemm_kernel(u, compute_only(64, 64, 64, ir::DType::BFloat16)),
               lightsim::InputError);
}

TEST(GpuKernel, OneElementPastATileBoundary) {
  const ir::Unit u = test_gpu(); // 128 x 128 tiles, 100 SMs; fp16 step 512 cycles, K = 4096: 128 steps
  // 1280 x 1280: 100 tiles, one wave. One row more: 11 x 10 = 110 tiles, a second wave of 10 CTAs that
  // takes as long as the first: twice the main loop and one more prologue / epilogue.
  const GpuGemmKernel exact = units::gpu_gemm_kernel(u, compute_only(1280, 1280, 4096));
  const GpuGemmKernel past_m = units::gpu_gemm_kernel(u, compute_only(1281, 1280, 4096));
  const GpuGemmKernel past_n = units::gpu_gemm_kernel(u, compute_only(1280, 1281, 4096));
  EXPECT_EQ(exact.tiles, 100);
  EXPECT_EQ(exact.waves, 1);
  EXPECT_EQ(past_m.tiles, 110);
  EXPECT_EQ(past_m.waves, 2);
  EXPECT_EQ(past_n.tiles, 110);
  EXPECT_DOUBLE_EQ(exact.kernel_ns, kernel_ns(65536, 1));
  EXPECT_DOUBLE_EQ(past_m.kernel_ns, kernel_ns(2 * 65536, 2));
  EXPECT_DOUBLE_EQ(past_n.kernel_ns, past_m.kernel_ns);
  // 640 x 1280 (50 tiles) and 641 x 1280 (60 tiles): the extra tile row fits in the same wave, so the
  // same kernel (split 1) costs the same time.
  const GpuGemmKernel half = units::gpu_gemm_candidate(u, compute_only(640, 1280, 4096), 0, 1);
  const GpuGemmKernel half_past = units::gpu_gemm_candidate(u, compute_only(641, 1280, 4096), 0, 1);
  EXPECT_EQ(half.tiles, 50);
  EXPECT_EQ(half_past.tiles, 60);
  EXPECT_EQ(half_past.waves, 1);
  EXPECT_DOUBLE_EQ(half_past.kernel_ns, half.kernel_ns);
  // K one element past a step: one more step (128 -> 129) for every CTA.
  EXPECT_DOUBLE_EQ(units::gpu_gemm_kernel(u, compute_only(1280, 1280, 4097)).main_loop_cycles, 129.0 * 512);
}

TEST(GpuKernel, SelectionPicksTheLeastPaddedTime) {
  const ir::Unit u = three_tile_gpu();
  struct Case {
    std::int64_t m, n;
    std::size_t winner;
    double times_ns[3]; // each tile without split-K, by hand
  };
  // K = 4096 (128 steps). Tiles and waves of 256x128 / 128x64 / 64x64, time = kernel_ns(waves x 128 x step):
  const Case cases[] = {
      // 10x10 = 100 (1 wave) / 20x20 = 400 (4) / 40x20 = 800 (8): the big tile's single wave wins.
      {2560,
       1280,
       0,
       {kernel_ns(128.0 * 1024, 1), kernel_ns(4 * 128.0 * 288, 4), kernel_ns(8 * 128.0 * 192, 8)}},
      // 6x20 = 120 (2 waves, the second 20 % full) / 12x40 = 480 (5) / 23x40 = 920 (10): the middle tile.
      {1472,
       2560,
       1,
       {kernel_ns(2 * 128.0 * 1024, 2), kernel_ns(5 * 128.0 * 288, 5), kernel_ns(10 * 128.0 * 192, 10)}},
      // 2x20 = 40 (1 wave, 60 SMs idle) / 3x40 = 120 (2) / 5x40 = 200 (2): the small tile.
      {320,
       2560,
       2,
       {kernel_ns(128.0 * 1024, 1), kernel_ns(2 * 128.0 * 288, 2), kernel_ns(2 * 128.0 * 192, 2)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + " x " + std::to_string(c.n));
    const GpuGemmShape s = compute_only(c.m, c.n, 4096);
    for (std::size_t t = 0; t < 3; ++t)
      EXPECT_NEAR(units::gpu_gemm_candidate(u, s, t, 1).kernel_ns, c.times_ns[t], 1e-6);
    const GpuGemmKernel chosen = units::gpu_gemm_kernel(u, s);
    EXPECT_EQ(chosen.tile, c.winner);
    EXPECT_EQ(chosen.split_k, 1);
    EXPECT_NEAR(chosen.kernel_ns, c.times_ns[c.winner], 1e-6);
  }
  // 320 x 2560 on the big tile could split K in two (40 tiles, 100 SMs): 80 CTAs of 64 steps, plus a
  // reduction kernel: launch + 2 x 2 x 320 x 2560 x 4 B of partial sums at 3000 GB/s. Still slower.
  const GpuGemmKernel split = units::gpu_gemm_candidate(u, compute_only(320, 2560, 4096), 0, 2);
  EXPECT_NEAR(split.reduction_ns, 2000 + 2 * 2 * 320 * 2560 * 4 / 3000.0, 1e-6);
  EXPECT_NEAR(split.kernel_ns, kernel_ns(64 * 1024, 1) + split.reduction_ns, 1e-6);
  EXPECT_GT(split.kernel_ns, cases[2].times_ns[2]);
}

TEST(GpuKernel, SplitKWhenTheTilesDoNotFillTheSms) {
  const ir::Unit u = three_tile_gpu();
  // 1088 x 768: the big tile gives 5 x 6 = 30 tiles; up to 100 / 30 = 3 splits. Split 3: 90 CTAs of
  // ceil(128 / 3) = 43 steps, 43 x 1024 cycles, plus the reduction of 3 partial sums.
  EXPECT_EQ(units::gpu_max_split_k(u.as<units::GpuParams>(), 30, 128), 3);
  EXPECT_EQ(units::gpu_max_split_k(u.as<units::GpuParams>(), 100, 128), 1);
  EXPECT_EQ(units::gpu_max_split_k(u.as<units::GpuParams>(), 30, 2), 2); // never more splits than steps
  const GpuGemmKernel k = units::gpu_gemm_kernel(u, compute_only(1088, 768, 4096));
  EXPECT_EQ(k.tile, 0u);
  EXPECT_EQ(k.split_k, 3);
  EXPECT_EQ(k.ctas, 90);
  EXPECT_EQ(k.k_steps, 43);
  EXPECT_NEAR(k.kernel_ns, kernel_ns(43 * 1024.0, 1) + 2000 + 2 * 3 * 1088 * 768 * 4 / 3000.0, 1e-6);
  const GpuGemmShape shape = compute_only(1088, 768, 4096);
  for (std::size_t t = 0; t < 3; ++t) {
    const units::GpuCtaTile& tile = u.as<units::GpuParams>().cta_tiles[t];
    const std::int64_t tiles = ((1088 + tile.m - 1) / tile.m) * ((768 + tile.n - 1) / tile.n);
    for (std::int64_t s = 1; s <= units::gpu_max_split_k(u.as<units::GpuParams>(), tiles, 128); ++s)
      EXPECT_LE(k.kernel_ns, units::gpu_gemm_candidate(u, shape, t, s).kernel_ns)
          << "tile " << t << " split " << s;
  }
}

TEST(GpuKernel, MemoryOverlapsComputeStepByStep) {
  ir::Unit u = test_gpu();
  u.as<units::GpuParams>().memory_efficiency = 0.5; // 3000 x 0.5 GB/s = 1000 bytes per cycle at 1.5 GHz
  // A weight-streaming GEMM: 32 x 14080 x 4096 fp16, 2 x 14080 x 4096 bytes of weights (the rest
  // ignored here). 110 tiles of 128 x 128: a full wave of 100 CTAs and a partial one of 10. Each CTA's
  // share: 115343360 / 110 / 128 = 8192 bytes per step. Full wave: 100 x 8192 / 1000 = 819.2 cycles >
  // 512 (MMA): memory bound. Last wave: 10 x 8192 / 1000 = 81.92 < 512: compute bound.
  const double weights = 2.0 * 14080 * 4096;
  const GpuGemmKernel k = units::gpu_gemm_kernel(
      u, {.m = 32, .n = 14080, .k = 4096, .batch = 1, .dtype = ir::DType::Float16, .memory_bytes = weights});
  EXPECT_EQ(k.waves, 2);
  EXPECT_NEAR(k.main_loop_cycles, 128 * 819.2 + 128 * 512.0, 1e-6);
  // Not the whole-op max(compute, memory) nor their sum.
  const double compute_cycles = 2 * 128 * 512.0, memory_cycles = weights / 1000;
  EXPECT_GT(k.main_loop_cycles, std::max(compute_cycles, memory_cycles));
  EXPECT_LT(k.main_loop_cycles, compute_cycles + memory_cycles);
  // Streaming at the achievable bandwidth: latency + bytes / (bandwidth x efficiency).
  EXPECT_DOUBLE_EQ(
      units::gpu_stream_ns(u.as<units::GpuParams>(), u.as<units::GpuParams>().memory_efficiency, 3e6),
      500 + 3e6 / 1500);
  EXPECT_DOUBLE_EQ(units::gpu_stream_ns(u.as<units::GpuParams>(), 1.0, 0), 0);
}

ir::Op dense_op(std::int64_t m, std::int64_t n, std::int64_t k) {
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.features = {.macs = static_cast<double>(m * n * k),
                 .elements_in = static_cast<double>(m * k + n * k),
                 .elements_out = static_cast<double>(m * n),
                 .bytes_in = 2.0 * static_cast<double>(m * k + n * k),
                 .bytes_out = 2.0 * static_cast<double>(m * n),
                 .bytes_read = 2.0 * static_cast<double>(m * k + n * k),
                 .gemm_batch = 1,
                 .gemm_m = m,
                 .gemm_n = n,
                 .gemm_k = k,
                 .gemm_dtype = ir::DType::Float16};
  return op;
}

TEST(Gpu, OpTimeIsGapPlusKernelAndShapesAreCached) {
  fresh_simulation();
  ir::Unit u = test_gpu();
  u.as<units::GpuParams>().kernel_gap_ns = 700;
  Gpu gpu("gpu", u);
  const ir::Op a = dense_op(1280, 1280, 4096), b = dense_op(1281, 1280, 4096);
  const OpWork wa{.op = 0, .lane = 0, .desc = &a, .home_bytes = a.features.bytes_read + a.features.bytes_out};
  const OpWork wb{.op = 1, .lane = 0, .desc = &b, .home_bytes = b.features.bytes_read + b.features.bytes_out};
  const GpuGemmKernel ka = units::gpu_gemm_kernel(u, units::gpu_gemm_shape(a.features));
  EXPECT_DOUBLE_EQ(gpu.kernel_ns(wa), ka.kernel_ns);
  EXPECT_DOUBLE_EQ(gpu.op_ns(wa), 700 + ka.kernel_ns);
  EXPECT_EQ(gpu.cached_shapes(), 1u);
  gpu.op_ns(wa);
  EXPECT_EQ(gpu.cached_shapes(), 1u); // the same shape: chosen once
  gpu.op_ns(wb);
  EXPECT_EQ(gpu.cached_shapes(), 2u);

  // An elementwise op: launch + max(CUDA cores, memory stream) + gap. 2e6 element operations on 100 SMs x
  // 128 per cycle at 1.5 GHz = 104 ns; 12 MB at 3000 GB/s after 500 ns = 4500 ns: memory bound.
  ir::Op add;
  add.op_class = ir::OpClass::Add;
  add.features = {.elements_in = 2e6, .elements_out = 1e6, .elements_read = 2e6};
  const OpWork wadd{.op = 2, .lane = 0, .desc = &add, .home_bytes = 12e6};
  EXPECT_NEAR(gpu.op_ns(wadd), 700 + 2000 + 500 + 12e6 / 3000, 1e-9);
  ir::Op view;
  view.op_class = ir::OpClass::Nop;
  EXPECT_EQ(gpu.op_ns({.op = 3, .lane = 0, .desc = &view}), 0);
}

TEST(Gpu, EnergyPerOperationWhateverTheTiming) {
  fresh_simulation();
  const ir::Hardware hw = test::sim_machine(); // 2 pJ per tensor-core MAC, 10 pJ per CUDA-core op, HBM 4 pJ/B
  Gpu gpu("gpu", hw.units[1]);
  const ir::Op op = dense_op(512, 108, 20);
  const OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 3000};
  const ir::EnergyBreakdown e = gpu.op_energy(w, hw.memories[1]);
  EXPECT_NEAR(e[units::gpu_features().tensor_core], op.features.macs * 2e-12, 1e-18);
  EXPECT_NEAR(e[ir::EnergyComponent::Hbm], 3000 * 4e-12, 1e-18);
  EXPECT_EQ(e[units::gpu_features().cuda_core], 0);
  EXPECT_NEAR(e.total(), op.features.macs * 2e-12 + 3000 * 4e-12, 1e-18);
  // An elementwise op with a fused relu: elements in + one per output element on the CUDA cores, 10 pJ each.
  ir::Op add;
  add.op_class = ir::OpClass::Add;
  add.features.fused_tail = {ir::OpClass::Relu};
  add.features = {.elements_in = 2000, .elements_out = 1000, .elements_read = 2000};
  add.features.fused_ops = 1000; // one per output element per tail op, as Graph::finalize counts it
  const OpWork a{.op = 1, .lane = 0, .desc = &add, .home_bytes = 12000};
  EXPECT_NEAR(gpu.op_energy(a, hw.memories[1])[units::gpu_features().cuda_core], 3000 * 10e-12, 1e-18);
}

TEST(GpuKernel, ArithmeticFeatureGivesTheModulesTime) {
  // compute_cycles of a GEMM is its kernel beyond the launch, so compute_cycles / clock + launch is the
  // module's kernel, for any shape (the retrain fits exactly this line).
  const ir::Unit u = three_tile_gpu();
  for (const ir::Op& op : {dense_op(32, 12288, 4096), dense_op(1088, 768, 4096), dense_op(3000, 5000, 700)}) {
    const double cycles = ir::feature_value(ir::Feature::ComputeCycles, op.features, u);
    EXPECT_NEAR(cycles / kClockGhz + 2000,
                units::gpu_gemm_kernel(u, units::gpu_gemm_shape(op.features)).kernel_ns, 1e-6);
    const GpuGemmKernel k = units::gpu_gemm_kernel(u, units::gpu_gemm_shape(op.features));
    EXPECT_DOUBLE_EQ(ir::feature_value(units::gpu_features().tile_pass_waves, op.features, u),
                     static_cast<double>(k.waves * k.k_steps));
  }
}

} // namespace
} // namespace lightsim::sim
