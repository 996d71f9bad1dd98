// Row kernels on the GPU (ir/cost/gpu_kernel.h gpu_row_kernel; sim/hw/gpu.h) against hand counts: waves
// of CTAs limited by the SM's threads and CTAs, the last wave partial; access steps of one round trip plus
// the wave's bytes of the step at the row-kernel bandwidth; a vectorised kernel's fewer steps; the
// defaults (the memory's latency and memory_efficiency); waves that overlap and rows the L2 holds; the
// module's time = launch + the larger of the CUDA-core work and the steps; and the arithmetic model's
// row_kernel_cycles gives the module's time.
//
// The test GPU (tests/sim/sim_fixture.h): 100 SMs at 1.5 GHz, HBM 3000 GB/s with 500 ns latency, launch
// 2000 ns, 128 element operations per cycle per SM.
#include "ir/cost/cost_model.h"
#include "sim/hw/kernel.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/gpu/gpu_module.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::sim {
namespace {

ir::Unit row_gpu() {
  ir::Unit u = test::sim_machine().units[1];
  u.as<units::GpuParams>().max_threads_per_sm = 2048;
  u.as<units::GpuParams>().max_ctas_per_sm = 32;
  u.as<units::GpuParams>().row_step_latency_ns = 300;
  u.as<units::GpuParams>().row_memory_efficiency = 0.5; // 1500 bytes per ns
  return u;
}

TEST(GpuRowKernel, WavesOfCtasAndStepsOfLatencyPlusTheWavesBytes) {
  const ir::Unit u = row_gpu();
  // 250 rows of 3000 items, 1024 threads, 2 passes, 6 MB: 2 CTAs per SM (2048 threads), 200 per wave, so
  // a full wave and one of 50; 2 x ceil(3000 / 1024) = 6 steps of 6e6 / 250 / 6 = 4000 bytes per row.
  // Full wave: 6 x (300 + 200 x 4000 / 1500) = 5000 ns; the last: 6 x (300 + 50 x 4000 / 1500) = 2600 ns.
  const units::GpuRowKernel k = units::gpu_row_kernel(
      u, {.rows = 250, .items_per_row = 3000, .threads_per_cta = 1024, .passes = 2}, 6e6);
  EXPECT_EQ(k.ctas_per_wave, 200);
  EXPECT_EQ(k.waves, 2);
  EXPECT_EQ(k.steps, 6);
  EXPECT_NEAR(k.main_ns, 5000 + 2600, 1e-9);
  EXPECT_NEAR(k.kernel_ns, 2000 + 7600, 1e-9);
  // The same rows in 8-element accesses (375 per row, 375 threads): 5 CTAs per SM, all 250 rows in one
  // wave, 1 step per pass: the latency is paid twice, not 6 times: 2 x (300 + 250 x 12000 / 1500) = 4600 ns.
  const units::GpuRowKernel v =
      units::gpu_row_kernel(u, {.rows = 250, .items_per_row = 375, .threads_per_cta = 375, .passes = 2}, 6e6);
  EXPECT_EQ(v.ctas_per_wave, 500); // 5 CTAs of 375 threads per SM
  EXPECT_EQ(v.waves, 1);
  EXPECT_NEAR(v.main_ns, 2 * (300 + 250 * 12000.0 / 1500), 1e-9);
}

TEST(GpuRowKernel, SmallCtasAreBoundByTheCtaLimitAndDefaultsAreTheMemorys) {
  ir::Unit u = row_gpu();
  // 10 threads per CTA: 204 would fit by threads, 32 by the CTA limit: 3200 per wave.
  const ir::RowKernel small{.rows = 6400, .items_per_row = 10, .threads_per_cta = 10, .passes = 1};
  const units::GpuRowKernel k = units::gpu_row_kernel(u, small, 6400 * 80.0);
  EXPECT_EQ(k.ctas_per_wave, 3200);
  EXPECT_EQ(k.waves, 2);
  EXPECT_NEAR(k.main_ns, 2 * (300 + 3200 * 80 / 1500.0), 1e-9);
  // Unset constants: the memory's latency (500 ns) and memory_efficiency (1): 3000 bytes per ns.
  u.as<units::GpuParams>().row_step_latency_ns = -1;
  u.as<units::GpuParams>().row_memory_efficiency = -1;
  EXPECT_NEAR(units::gpu_row_kernel(u, small, 6400 * 80.0).main_ns, 2 * (500 + 3200 * 80 / 3000.0), 1e-9);
}

// Waves that overlap (row_wave_overlap) and an L2 that holds the rows (l2.reach_MiB): one wave's chain of
// steps plus the larger of the other waves' chains and the stream, the L2's bytes at its bandwidth.
TEST(GpuRowKernel, OverlappingWavesHideTheirChainsBehindTheStream) {
  ir::Unit u = row_gpu();
  auto& g = u.as<units::GpuParams>();
  g.row_wave_overlap = true;
  // The first test's kernel: 2 waves (200 and 50 CTAs), 6 steps, chain 6 x 300 = 1800 ns, stream 6e6 /
  // 1500 = 4000 ns: 1800 + max(1800, 4000) = 5800 ns (one after another: 7600).
  const ir::RowKernel k{.rows = 250, .items_per_row = 3000, .threads_per_cta = 1024, .passes = 2};
  EXPECT_NEAR(units::gpu_row_kernel(u, k, 6e6).main_ns, 1800 + 4000, 1e-9);
  // Few bytes: latency-bound, the waves' chains one after another: 2 x 1800.
  EXPECT_NEAR(units::gpu_row_kernel(u, k, 6e3).main_ns, 2 * 1800, 1e-9);
  // One wave: its chain plus the stream, overlap or not (the vectorised rows of the first test: 4600).
  const ir::RowKernel v{.rows = 250, .items_per_row = 375, .threads_per_cta = 375, .passes = 2};
  EXPECT_NEAR(units::gpu_row_kernel(u, v, 6e6).main_ns, 2 * 300 + 4000, 1e-9);
  // An L2 of 4 MiB reach at 6000 GB/s: 3 MB of rows stream wholly from it (3e6 / 6000 = 500 ns);
  // 6 MB exceed the reach, 2 x 4 MiB - 6 MB = 2388608 bytes from it, the rest at 1500 bytes per ns.
  g.l2 = {.capacity_MiB = 50, .bandwidth_GBps = 6000, .reach_MiB = 4, .latency_ns = 100};
  EXPECT_NEAR(units::gpu_row_kernel(u, v, 3e6).main_ns, 600 + 3e6 / 6000, 1e-9);
  const double hits = 2 * 4 * 1048576.0 - 6e6;
  EXPECT_NEAR(units::gpu_row_kernel(u, v, 6e6).main_ns, 600 + hits / 6000 + (6e6 - hits) / 1500, 1e-9);
}

ir::Op row_op(const ir::RowKernel& k, double bytes_in, double bytes_out, double element_ops) {
  ir::Op op;
  op.op_class = ir::OpClass::Multiply;
  op.features.bytes_in = op.features.bytes_read = bytes_in;
  op.features.bytes_out = bytes_out;
  op.features.elementwise_ops = element_ops;
  op.features.elements_out = 1; // elementwise_ops set: not derived
  op.features.row_kernel = k;
  return op;
}

TEST(GpuRowKernel, TheModuleTimesItAndTheArithmeticFeatureFollows) {
  fresh_simulation();
  ir::Unit u = row_gpu();
  u.as<units::GpuParams>().kernel_gap_ns = 700;
  Gpu gpu("gpu", u);
  const ir::RowKernel k{.rows = 250, .items_per_row = 3000, .threads_per_cta = 1024, .passes = 2};
  const ir::Op op = row_op(k, 4e6, 2e6, 1e6);
  const OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 6e6};
  EXPECT_NEAR(gpu.op_ns(w), 700 + 2000 + 7600, 1e-9); // the steps outlast 1e6 ops / (100 x 128 x 1.5) = 52 ns
  // CUDA-core bound: 1e9 element operations take 1e9 / 19200 = 52083 ns, longer than the steps.
  const ir::Op busy = row_op(k, 4e6, 2e6, 1e9);
  EXPECT_NEAR(gpu.kernel_ns({.op = 1, .lane = 0, .desc = &busy, .home_bytes = 6e6}), 2000 + 1e9 / 19200.0,
              1e-6);
  // row_kernel_cycles / clock + launch is the module's kernel (the arithmetic model's row-kernel piece).
  for (const ir::Op* o : {&op, &busy}) {
    const double cycles = ir::feature_value(units::gpu_features().row_kernel_cycles, o->features, u);
    EXPECT_NEAR(cycles / 1.5 + 2000, gpu.kernel_ns({.op = 2, .lane = 0, .desc = o, .home_bytes = 6e6}), 1e-6);
  }
  // Not a row kernel: the feature is 0 and the op streams as before.
  ir::Op plain = op;
  plain.features.row_kernel = {};
  EXPECT_EQ(ir::feature_value(units::gpu_features().row_kernel_cycles, plain.features, u), 0);
  EXPECT_NEAR(gpu.kernel_ns({.op = 3, .lane = 0, .desc = &plain, .home_bytes = 6e6}), 2000 + 500 + 6e6 / 3000,
              1e-9);
}

} // namespace
} // namespace lightsim::sim
