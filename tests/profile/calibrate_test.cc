// Calibration from measurements: repeated profiles of one graph merge into per-op minima (and profiles
// that disagree on the graph's ops are refused), and the CPU module's parameters (per-level bandwidths,
// shared rates, GEMM efficiency, per-class element costs, dispatch and sync) are recovered exactly from
// ops timed by the module's own formula, compute- and memory-bound, split and not.
#include "ir/cost/unit_work.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "sim/profile/calibrate.h"
#include "sim/retrain/retrain.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>

namespace lightsim::profile {
namespace {

Measurement measured(ir::OpId id, double in_graph_min_s, double median_s) {
  Measurement m;
  m.op_id = id;
  m.name = "op" + std::to_string(id);
  m.op_class = ir::OpClass::Add;
  m.in_graph_min_s = in_graph_min_s;
  m.in_graph_median_s = in_graph_min_s * 1.1;
  m.median_s = median_s;
  return m;
}

TEST(Calibrate, RepeatedProfilesOfOneGraphMergeIntoPerOpMinima) {
  MeasurementFile a, b, other;
  a.graph = b.graph = "g.json";
  other.graph = "h.json";
  a.ops = {measured(1, 3e-6, 2e-6), measured(2, 5e-6, 9e-6)};
  b.ops = {measured(1, 4e-6, 1e-6), measured(2, 4e-6, 9.5e-6)};
  other.ops = {measured(1, 7e-6, 7e-6)};
  const auto merged = merge_repeated_profiles({a, other, b});
  ASSERT_EQ(merged.size(), 2u); // g.json (a and b), then h.json
  ASSERT_EQ(merged[0].size(), 2u);
  EXPECT_DOUBLE_EQ(merged[0][0].in_graph_min_s, 3e-6);
  EXPECT_DOUBLE_EQ(merged[0][0].median_s, 1e-6);
  EXPECT_DOUBLE_EQ(merged[0][1].in_graph_min_s, 4e-6);
  EXPECT_DOUBLE_EQ(merged[0][1].median_s, 9e-6);
  EXPECT_DOUBLE_EQ(merged[1][0].in_graph_min_s, 7e-6);

  MeasurementFile changed = b;
  changed.ops[1].name = "renamed";
  EXPECT_THROW(merge_repeated_profiles({a, changed}), InputError);
}

// The truth: a CPU with an L2 (1 MiB, 60 GB/s per core, private), an L3 (32 MiB, 12 GB/s per core, 18
// shared) and memory (4 GB/s per core, a 6 GB/s port); GEMMs at 70% of the nominal MAC rate, split over 2
// cores from 8 rows of m on, with 3000 ns of sync; 800 ns dispatch; power at 280 and exp at 12 vector-lane
// ops per element, add at 2. Ops are timed by the module's own formula (ir::cpu_alone_ns): GEMMs of every
// level on 1 and 2 cores, adds from L2 and L3 (memory-bound), powers and exps (compute-bound). The fit,
// started from other values, recovers every rate exactly.
ir::Unit truth_unit(const ir::Unit& base) {
  ir::Unit u = base;
  u.cores = 2;
  units::CpuParams& p = u.as<units::CpuParams>();
  p.dispatch_ns = 800;
  p.gemm_efficiency = 0.7;
  p.caches = {{"l2", 1024.0 * 1024, 60, 0}, {"l3", 32.0 * 1024 * 1024, 12, 18}};
  p.core_memory_GBps = 4;
  p.memory_port_GBps = 6;
  p.intra_op_threads = 2;
  p.intra_op_min_rows = 4;
  p.intra_op_sync_ns = 3000;
  p.concurrent_ops = 1;
  p.elementwise_ops[static_cast<std::size_t>(ir::OpClass::Power)] = 280;
  p.elementwise_ops[static_cast<std::size_t>(ir::OpClass::Exp)] = 12;
  p.elementwise_ops[static_cast<std::size_t>(ir::OpClass::Add)] = 2;
  return u;
}

fit::Sample timed(const ir::Hardware& hw, const ir::Unit& truth, ir::OpClass c, const ir::OpFeatures& f) {
  ir::Op op;
  op.op_class = c;
  op.features = f;
  fit::Sample s = fit::make_sample(hw, op, 0, 0, 0, {}, 0);
  s.time_s = 1e-9 * units::cpu_alone_ns(truth, op, f.bytes_read + f.bytes_out);
  return s;
}

TEST(Calibrate, CpuModuleParametersRecoveredFromTheirOwnTimes) {
  ir::Hardware hw = ir::load_hardware(test::source_path("configs/lightcode-cpu.json"));
  const ir::Unit truth = truth_unit(hw.units[0]);
  hw.units[0] = truth;
  ir::Unit start = truth; // the fit starts elsewhere
  start.as<units::CpuParams>().dispatch_ns = 0;
  start.as<units::CpuParams>().gemm_efficiency = 1;
  start.as<units::CpuParams>().caches = {{"l2", 1024.0 * 1024, 30, 0}, {"l3", 32.0 * 1024 * 1024, 30, 30}};
  start.as<units::CpuParams>().core_memory_GBps = 30;
  start.as<units::CpuParams>().memory_port_GBps = 30;
  start.as<units::CpuParams>().intra_op_sync_ns = 0;
  start.as<units::CpuParams>().elementwise_ops = units::per_op_class(1.0);
  std::vector<fit::Sample> samples;
  for (const std::int64_t n : {64, 1024, 4096}) { // weights of 0.25, 4 and 16 MiB; 64 MiB below
    for (std::int64_t m = 1; m <= 24; m += 3) {
      ir::OpFeatures f;
      f.gemm_batch = 1;
      f.gemm_m = m;
      f.gemm_n = n * (n == 4096 ? 4 : 1);
      f.gemm_k = 1024;
      f.macs = static_cast<double>(f.gemm_m * f.gemm_n * f.gemm_k);
      f.bytes_read = 4.0 * static_cast<double>(f.gemm_k * (f.gemm_m + f.gemm_n));
      f.bytes_out = 4.0 * static_cast<double>(f.gemm_m * f.gemm_n);
      f.elements_out = static_cast<double>(f.gemm_m * f.gemm_n);
      samples.push_back(timed(hw, truth, ir::OpClass::Dense, f));
    }
  }
  for (const double elements : {4e3, 2e4, 6e4, 3e5, 1e6}) {
    ir::OpFeatures f;
    f.elements_in = f.elements_read = 2 * elements;
    f.elements_out = elements;
    f.bytes_read = 8 * elements;
    f.bytes_out = 4 * elements;
    samples.push_back(timed(hw, truth, ir::OpClass::Add, f));
    f.elements_in = f.elements_read = elements;
    f.bytes_read = 4 * elements;
    samples.push_back(timed(hw, truth, ir::OpClass::Power, f));
    samples.push_back(timed(hw, truth, ir::OpClass::Exp, f));
  }
  const CpuModuleFit fit = fit_cpu_module(start, samples);
  const units::CpuParams& p = fit.cpu;
  const auto near = [](double got, double want) { EXPECT_NEAR(got, want, 1e-6 * want); };
  near(p.dispatch_ns, 800);
  near(p.gemm_efficiency, 0.7);
  near(p.intra_op_sync_ns, 3000);
  near(p.caches[0].bandwidth_GBps, 60);
  near(p.caches[1].bandwidth_GBps, 12);
  near(p.caches[1].shared_GBps, 18);
  near(p.core_memory_GBps, 4);
  near(p.memory_port_GBps, 6);
  near(p.elementwise_ops[static_cast<std::size_t>(ir::OpClass::Power)], 280);
  near(p.elementwise_ops[static_cast<std::size_t>(ir::OpClass::Exp)], 12);
  EXPECT_GT(fit.split, 0u);
  EXPECT_GT(fit.shared_bound, 0u);
  EXPECT_EQ(fit.level_ops.size(), 3u);
  for (std::size_t n : fit.level_ops)
    EXPECT_GT(n, 0u);
  EXPECT_LT(fit.relative_rms, 1e-9);
  EXPECT_THROW(fit_cpu_module(start, std::span(samples).first(2)), InputError);
}

} // namespace
} // namespace lightsim::profile
