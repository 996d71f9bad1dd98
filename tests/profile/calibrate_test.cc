// Calibration from measurements: repeated profiles of one graph merge into per-op minima (and profiles
// that disagree on the graph's ops are refused), and the CPU module's roofline parameters are recovered
// exactly from ops timed by that roofline, compute- and memory-bound alike.
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "sim/profile/calibrate.h"
#include "sim/retrain/retrain.h"
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

TEST(Calibrate, CpuModuleRooflineRecoveredExactly) {
  const ir::Hardware base = ir::load_hardware(test::source_path("configs/lightcode-cpu.json"));
  const ir::Unit& cpu = base.units[0];
  // The truth: 800 ns dispatch, 40% of the nominal compute rate, a 9 GB/s port.
  const double dispatch_ns = 800, efficiency = 0.4, port_GBps = 9;
  std::vector<fit::Sample> samples;
  for (int i = 1; i <= 24; ++i) {
    ir::Op op;
    op.op_class = i % 2 ? ir::OpClass::Dense : ir::OpClass::Add;
    const double n = 1000.0 * i * i;
    op.features.macs = i % 2 ? n * (i % 3 == 0 ? 64 : 1) : 0; // compute-bound when 64 MACs per element
    op.features.elements_read = op.features.elements_out = n;
    op.features.bytes_in = 4 * n;
    op.features.bytes_out = 4 * n;
    fit::Sample s = fit::make_sample(base, op, i, 0, 0, {}, 0);
    const double cycles = s.features[static_cast<std::size_t>(ir::Feature::ComputeCycles)];
    const double bytes = s.features[static_cast<std::size_t>(ir::Feature::OperandBytes)];
    s.time_s = 1e-9 * (dispatch_ns + std::max(cycles / (cpu.clock_ghz * efficiency), bytes / port_GBps));
    samples.push_back(s);
  }
  const CpuModuleFit fit = fit_cpu_module(cpu, samples);
  EXPECT_NEAR(fit.dispatch_ns, dispatch_ns, 1e-6 * dispatch_ns);
  EXPECT_NEAR(fit.compute_efficiency, efficiency, 1e-9);
  EXPECT_NEAR(fit.memory_port_GBps, port_GBps, 1e-9 * port_GBps);
  EXPECT_GT(fit.compute_bound, 0u);
  EXPECT_LT(fit.compute_bound, samples.size());
  EXPECT_LT(fit.relative_rms, 1e-9);
  EXPECT_THROW(fit_cpu_module(cpu, std::span(samples).first(2)), InputError);
}

} // namespace
} // namespace lightsim::profile
