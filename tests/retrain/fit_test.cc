// The fit (sim/retrain/retrain.h) on synthetic samples whose observed times come from known formulas:
// exact recovery of linear coefficients, a roofline split into two pieces, GPU tile quantisation and PHU
// energy followed exactly through the unit-aware features, each energy component fitted on its own
// (the PHU's converters on their conversion steps: the coefficient is the figure of merit), CPU GEMMs split
// over cores (fork / join, power on every core), spilled samples left out, features the samples never vary
// (the starting entry's coefficient kept), determinism, and too few samples.
#include "fit_fixture.h"
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <vector>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::fit {
namespace {

using ir::Feature;
using test::feature;

constexpr std::size_t idx(Feature f) {
  return static_cast<std::size_t>(f);
}
constexpr std::size_t cls(ir::OpClass c) {
  return static_cast<std::size_t>(c);
}

// Elementwise ops with varied element counts, input arity and bytes per element, so that compute cycles
// and operand bytes are not proportional across samples.
std::vector<ir::Op> varied_elementwise(ir::OpClass c) {
  std::vector<ir::Op> ops;
  for (double n : {64.0, 1000.0, 4096.0, 30000.0, 250000.0, 1e6, 4e6})
    for (double bytes_per_element : {1.0, 2.0, 4.0, 8.0}) {
      ir::Op op = test::elementwise_op(c, n);
      op.features.bytes_in = 2 * n * bytes_per_element;
      op.features.bytes_read = op.features.bytes_in;
      op.features.bytes_out = n * bytes_per_element;
      ops.push_back(op);
    }
  return ops;
}

using C = ir::EnergyComponent;

std::vector<Sample> observe(const ir::Hardware& hw, const std::vector<ir::Op>& ops, int unit,
                            double (*time)(const Sample&), ir::EnergyBreakdown (*energy)(const Sample&)) {
  std::vector<Sample> out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    Sample s = make_sample(hw, ops[i], static_cast<ir::OpId>(i), unit, 0, {}, 0);
    s.time_s = time(s);
    s.energy = energy(s);
    s.energy_j = s.energy.total();
    out.push_back(s);
  }
  return out;
}

ir::EnergyBreakdown only(C c, double joules) {
  ir::EnergyBreakdown e;
  e[c] = joules;
  return e;
}

// On a CPU the time features are compute cycles and memory cycles (operand bytes at the rate of their
// level: here no caches, 100 GB/s at 3 GHz, 0.03 cycles per byte).
double linear_time(const Sample& s) {
  return 3e-10 * feature(s, Feature::ComputeCycles) +
         2e-11 * feature(s, units::cpu_features().memory_cycles) + 4e-7;
}
ir::EnergyBreakdown linear_energy(const Sample& s) {
  return only(C::Dram, 5e-12 * feature(s, Feature::OperandBytes) + 1e-8);
}

TEST(Fit, RecoversKnownLinearCoefficients) {
  const ir::Hardware hw = test::small_machine();
  const std::vector<Sample> samples =
      observe(hw, varied_elementwise(ir::OpClass::Add), 0, linear_time, linear_energy);
  const FitResult r = fit_models(hw, samples);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].status, EntryStatus::Fitted);
  EXPECT_EQ(r.entries[0].samples, samples.size());
  const ir::OpClassModel& e = r.hardware.models[0].classes[cls(ir::OpClass::Add)];
  ASSERT_EQ(e.pieces.size(), 1u); // exact in one piece: no split
  EXPECT_NEAR(e.pieces[0].time_s.coef[idx(Feature::ComputeCycles)], 3e-10, 1e-9 * 3e-10);
  EXPECT_NEAR(e.pieces[0].time_s.coef[idx(units::cpu_features().memory_cycles)], 2e-11, 1e-9 * 2e-11);
  EXPECT_NEAR(e.pieces[0].time_s.intercept, 4e-7, 1e-9 * 4e-7);
  EXPECT_NEAR(e.pieces[0].energy_j[C::Dram].coef[idx(Feature::OperandBytes)], 5e-12, 1e-9 * 5e-12);
  EXPECT_NEAR(e.pieces[0].energy_j[C::Dram].intercept, 1e-8, 1e-9 * 1e-8);
  EXPECT_FALSE(e.pieces[0].energy_j.has(C::Compute)); // no compute energy observed: none fitted
  for (const Sample& s : samples)
    EXPECT_NEAR(ir::evaluate(e, s.shape, hw.units[0]).energy_j, s.energy_j, 1e-9 * s.energy_j);
  EXPECT_EQ(e.pieces[0].time_s.coef[idx(Feature::ElementsOut)], 0.0); // the old feature is gone
  ASSERT_TRUE(e.fit.has_value());
  EXPECT_EQ(e.fit->samples, samples.size());
  EXPECT_NEAR(e.fit->r2, 1.0, 1e-12);
  EXPECT_EQ(e.fit->feature_min[idx(Feature::OperandBytes)], 64 * 3 * 1.0);
  EXPECT_EQ(e.fit->feature_max[idx(Feature::OperandBytes)], 4e6 * 3 * 8.0);
  // Other entries are untouched.
  EXPECT_EQ(r.hardware.models[0].classes[cls(ir::OpClass::Exp)], hw.models[0].classes[cls(ir::OpClass::Exp)]);
  EXPECT_EQ(r.hardware.models[1], hw.models[1]);
}

// Memory-bound adds of one element count (so one compute-cycle count) and many byte widths: dispatch plus
// the memory cycles, as the CPU module times them; never fused (tail cycles 0 throughout).
double dispatch_and_memory_time(const Sample& s) {
  return 5e-7 + feature(s, units::cpu_features().memory_cycles) / 3e9;
}
ir::EnergyBreakdown no_energy(const Sample&) {
  return {};
}

TEST(Fit, FeaturesTheSamplesNeverVaryKeepTheStartingCoefficients) {
  ir::Hardware hw = test::small_machine();
  std::vector<ir::Op> ops;
  for (double bytes_per_element = 1; bytes_per_element <= 12; ++bytes_per_element) {
    ir::Op op = test::elementwise_op(ir::OpClass::Add, 4096);
    op.features.bytes_in = op.features.bytes_read = 2 * 4096 * bytes_per_element;
    op.features.bytes_out = 4096 * bytes_per_element;
    ops.push_back(op);
  }
  // The entry the fit starts from charges the fused tail 1 / clock per cycle and nothing per compute cycle
  // (as configs/generate.py writes the CPU module's terms).
  ir::ModelPiece start;
  start.time_s.coef[idx(units::cpu_features().tail_cycles)] = 1 / 3e9;
  hw.models[0].classes[cls(ir::OpClass::Add)].pieces = {start};
  const std::vector<Sample> samples = observe(hw, ops, 0, dispatch_and_memory_time, no_energy);
  for (const Sample& s : samples) {
    ASSERT_EQ(feature(s, Feature::ComputeCycles), feature(samples[0], Feature::ComputeCycles));
    ASSERT_EQ(feature(s, units::cpu_features().tail_cycles), 0.0);
  }
  const FitResult r = fit_models(hw, samples);
  const ir::OpClassModel& e = r.hardware.models[0].classes[cls(ir::OpClass::Add)];
  ASSERT_EQ(e.pieces.size(), 1u);
  // Compute cycles were 4096 / 8 = 512 in every sample: no coefficient of theirs can be told from the
  // 0.5 us dispatch, which the intercept keeps (a fitted share would charge 512x more to an op 512x larger).
  EXPECT_EQ(e.pieces[0].time_s.coef[idx(Feature::ComputeCycles)], 0.0);
  EXPECT_NEAR(e.pieces[0].time_s.intercept, 5e-7, 1e-9 * 5e-7);
  EXPECT_NEAR(e.pieces[0].time_s.coef[idx(units::cpu_features().memory_cycles)], 1 / 3e9, 1e-9 / 3e9);
  // The tail never ran: its coefficient stays the starting entry's.
  EXPECT_EQ(e.pieces[0].time_s.coef[idx(units::cpu_features().tail_cycles)], 1 / 3e9);
}

double roofline_time(const Sample& s) {
  return std::max(feature(s, Feature::ComputeCycles) / 3e9, feature(s, Feature::OperandBytes) / 1e10) + 5e-7;
}
ir::EnergyBreakdown roofline_energy(const Sample& s) { // a CPU: dynamic power x time, memory per byte
  ir::EnergyBreakdown e = only(C::Compute, 10 * roofline_time(s));
  e[C::Dram] = 1e-11 * feature(s, Feature::OperandBytes);
  return e;
}

TEST(Fit, RooflineBecomesTwoExactPieces) {
  ir::Hardware hw = test::small_machine();
  // Exp is compute-heavy per element on a narrow CPU: make some ops compute-bound, others memory-bound.
  hw.units[0].as<units::CpuParams>().vector_width = 1;
  const std::vector<Sample> samples =
      observe(hw, varied_elementwise(ir::OpClass::Exp), 0, roofline_time, roofline_energy);
  std::size_t compute_bound = 0;
  for (const Sample& s : samples)
    compute_bound += feature(s, Feature::ComputeCycles) / 3e9 > feature(s, Feature::OperandBytes) / 1e10;
  ASSERT_GT(compute_bound, 4u);
  ASSERT_LT(compute_bound, samples.size() - 4);

  const FitResult r = fit_models(hw, samples);
  const ir::OpClassModel& e = r.hardware.models[0].classes[cls(ir::OpClass::Exp)];
  ASSERT_EQ(e.pieces.size(), 2u);
  EXPECT_EQ(e.pieces[0].when, units::cpu_features().compute_memory_ratio);
  // The boundary is at cycles / memory cycle = (3e9 / 1e10) / 0.03 = 10.
  EXPECT_GT(e.pieces[0].when_max, 0.0);
  EXPECT_NEAR(e.pieces[0].time_s.coef[idx(units::cpu_features().memory_cycles)], 1e-10 / 0.03, 1e-17);
  EXPECT_NEAR(e.pieces[1].time_s.coef[idx(Feature::ComputeCycles)], 1.0 / 3e9, 1e-18);
  for (const Sample& s : samples) {
    const ir::Cost c = ir::evaluate(e, s.shape, hw.units[0]);
    EXPECT_NEAR(c.time_s, s.time_s, 1e-9 * s.time_s);
    EXPECT_NEAR(c.energy_j, s.energy_j, 1e-9 * s.energy_j);
    const ir::EnergyBreakdown parts = ir::evaluate_energy(e, s.shape, hw.units[0]);
    EXPECT_NEAR(parts[C::Compute], s.energy[C::Compute], 1e-9 * s.energy[C::Compute]);
    EXPECT_NEAR(parts[C::Dram], s.energy[C::Dram], 1e-9 * s.energy[C::Dram]);
  }
}

// Working sets beyond a (16 MB) cache stream at a third of the rate: a split on operand bytes follows it.
double cache_time(const Sample& s) {
  const double bytes = feature(s, Feature::OperandBytes);
  return 2e-6 + bytes / (bytes < 16e6 ? 6e9 : 2e9);
}

TEST(Fit, WorkingSetBeyondCacheBecomesASizeSplit) {
  const ir::Hardware hw = test::small_machine();
  std::vector<ir::Op> ops;
  for (std::int64_t m : {1, 3, 8}) // compute cycles per byte grow with m, not with the working set
    for (std::int64_t n : {256, 768, 1536, 3072, 8192, 16384, 32768, 50257})
      ops.push_back(test::dense_op(m, n, 768));
  const std::vector<Sample> samples = observe(hw, ops, 0, cache_time, linear_energy);
  const FitResult r = fit_models(hw, samples);
  const ir::OpClassModel& e = r.hardware.models[0].classes[cls(ir::OpClass::Dense)];
  ASSERT_EQ(e.pieces.size(), 2u);
  EXPECT_EQ(e.pieces[0].when, Feature::OperandBytes);
  EXPECT_EQ(r.entries.front().split_on, Feature::OperandBytes);
  for (const Sample& s : samples)
    EXPECT_NEAR(ir::evaluate(e, s.shape, hw.units[0]).time_s, s.time_s, 1e-6 * s.time_s) << s.op;
}

// A CPU whose runtime splits GEMMs over up to 4 cores (a fork / join of 2 us): the module's time alone
// and its dynamic power (here 10 W per core) on every core held (sim/hw/cpu.h).
ir::Hardware splitting_cpu() {
  ir::Hardware hw = test::small_machine();
  hw.units[0].cores = 4;
  hw.units[0].as<units::CpuParams>().intra_op_threads = 4;
  hw.units[0].as<units::CpuParams>().intra_op_min_rows = 4;
  hw.units[0].as<units::CpuParams>().intra_op_sync_ns = 2000;
  hw.units[0].as<units::CpuParams>().dispatch_ns = 500;
  return hw;
}
double split_gemm_s(const Sample& s) {
  static const ir::Hardware hw = splitting_cpu();
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.features = s.shape;
  return units::cpu_alone_ns(hw.units[0], op, s.shape.bytes_read + s.shape.bytes_out) * 1e-9;
}
ir::EnergyBreakdown split_gemm_energy(const Sample& s) {
  return only(C::Compute, 10 * split_gemm_s(s) * feature(s, units::cpu_features().op_cores));
}

// Time: two exact pieces on op_cores (the fork / join), not on the compute / memory ratio; energy: dynamic
// power on every core, exact through core_cycles in both pieces.
TEST(Fit, CpuGemmsSplitOverCoresFollowedExactly) {
  const ir::Hardware hw = splitting_cpu();
  std::vector<ir::Op> ops;
  for (std::int64_t m : {1, 2, 5, 7, 10, 16, 32, 100})
    for (std::int64_t n : {64, 768, 3072})
      ops.push_back(test::dense_op(m, n, 768));
  const std::vector<Sample> samples = observe(hw, ops, 0, split_gemm_s, split_gemm_energy);
  const FitResult r = fit_models(hw, samples);
  const ir::OpClassModel& e = r.hardware.models[0].classes[cls(ir::OpClass::Dense)];
  ASSERT_EQ(e.pieces.size(), 2u);
  EXPECT_EQ(e.pieces[0].when, units::cpu_features().op_cores);
  EXPECT_NEAR(e.pieces[0].time_s.intercept, 500e-9, 1e-12);
  EXPECT_NEAR(e.pieces[1].time_s.intercept, 2500e-9, 1e-12);
  for (const Sample& s : samples) {
    const ir::Cost c = ir::evaluate(e, s.shape, hw.units[0]);
    EXPECT_NEAR(c.time_s, s.time_s, 1e-9 * s.time_s) << s.op;
    EXPECT_NEAR(c.energy_j, s.energy_j, 1e-9 * s.energy_j) << s.op;
  }
}

// Samples whose operands spilled (the unit's memory was full) are left out when enough others remain.
TEST(Fit, SpilledSamplesAreLeftOut) {
  const ir::Hardware hw = test::small_machine();
  std::vector<Sample> samples =
      observe(hw, varied_elementwise(ir::OpClass::Add), 0, linear_time, linear_energy);
  for (std::size_t i = 0; i < samples.size(); i += 4) {
    samples[i].spilled = true;
    samples[i].time_s *= 3;
  }
  const FitResult r = fit_models(hw, samples);
  const ir::OpClassModel& e = r.hardware.models[0].classes[cls(ir::OpClass::Add)];
  EXPECT_EQ(r.entries.front().contended_left_out, (samples.size() + 3) / 4);
  for (const Sample& s : samples)
    if (!s.spilled) {
      EXPECT_NEAR(ir::evaluate(e, s.shape, hw.units[0]).time_s, s.time_s, 1e-9 * s.time_s);
    }
}

// The detailed GPU's GEMM time: the chosen kernel (tile waves, k steps, memory overlapped per step, wave
// prologues, split-K), as sim/hw/gpu.h times it.
double gpu_kernel_s(const Sample& s) {
  static const ir::Hardware hw = test::small_machine();
  return units::gpu_gemm_kernel(hw.units[1], units::gpu_gemm_shape(s.shape)).kernel_ns * 1e-9;
}

TEST(Fit, GpuTileQuantisationFollowedExactly) {
  const ir::Hardware hw = test::small_machine();
  std::vector<ir::Op> ops;
  for (std::int64_t m : {1, 5, 16, 17, 64, 65, 100, 300})
    for (std::int64_t n : {8, 64, 200, 1000})
      for (std::int64_t k : {8, 100, 777})
        ops.push_back(test::dense_op(m, n, k));
  auto time = [](const Sample& s) { return gpu_kernel_s(s); };
  // Energy per operation: 2.5 pJ per tensor-core MAC, 4 pJ per operand byte of memory.
  auto energy = [](const Sample& s) {
    ir::EnergyBreakdown e = only(units::gpu_features().tensor_core, 2.5e-12 * s.shape.macs);
    e[C::Hbm] = 4e-12 * feature(s, Feature::OperandBytes);
    return e;
  };
  const std::vector<Sample> samples = observe(hw, ops, 1, +time, +energy);
  const FitResult r = fit_models(hw, samples);
  const ir::OpClassModel& e = r.hardware.models[1].classes[cls(ir::OpClass::Dense)];
  double worst_macs_only = 0; // how far a MAC-proportional model would be: quantisation is real here
  const double s_per_mac = samples.back().time_s / samples.back().shape.macs;
  for (const Sample& s : samples) {
    const ir::Cost c = ir::evaluate(e, s.shape, hw.units[1]);
    EXPECT_NEAR(c.time_s, s.time_s, 1e-9 * s.time_s);
    EXPECT_NEAR(c.energy_j, s.energy_j, 1e-9 * s.energy_j);
    worst_macs_only = std::max(worst_macs_only, std::abs(s.shape.macs * s_per_mac - s.time_s) / s.time_s);
  }
  EXPECT_GT(worst_macs_only, 0.5);
  EXPECT_NEAR(e.pieces.back().time_s.coef[idx(Feature::ComputeCycles)], 1 / 1.5e9, 1e-18);
  EXPECT_NEAR(e.pieces.back().time_s.intercept, 2e-6, 1e-15); // the launch latency
  EXPECT_NEAR(e.pieces.back().energy_j[units::gpu_features().tensor_core].coef[idx(Feature::Macs)], 2.5e-12,
              1e-21);
}

TEST(Fit, PhuEnergyFromLaserConvertersAndMacs) {
  const ir::Hardware hw = test::small_machine();
  std::vector<ir::Op> ops;
  for (std::int64_t m : {1, 7, 40, 129})
    for (std::int64_t n : {16, 32, 100})
      for (std::int64_t k : {20, 64, 300})
        ops.push_back(test::dense_op(m, n, k));
  auto time = [](const Sample& s) { return feature(s, Feature::ComputeCycles) / 10e9; };
  // The PHU module's energy: 2 W of laser while busy, DAC and ADC conversions at their figures of merit
  // (3.90625 and 7.8125 fJ per step: 1 and 2 pJ at 8 bits), 0.02 pJ per optical MAC, weight cells through
  // the DACs.
  auto energy = [](const Sample& s) {
    ir::EnergyBreakdown e =
        only(units::phu_features().laser, 2.0 * feature(s, Feature::ComputeCycles) / 10e9);
    e[units::phu_features().dac] = 3.90625e-15 * feature(s, units::phu_features().dac_conversion_steps);
    e[units::phu_features().adc] = 7.8125e-15 * feature(s, units::phu_features().adc_conversion_steps);
    e[units::phu_features().optical_mac] = 0.02e-12 * s.shape.macs;
    e[units::phu_features().weight_programming] =
        3.90625e-15 * feature(s, units::phu_features().weight_conversion_steps);
    return e;
  };
  const std::vector<Sample> samples = observe(hw, ops, 2, +time, +energy);
  // The feature really is the module's pacing: reload per tile plus the slowest of optics, DAC and ADC.
  const units::PhuGemmWork w = units::phu_gemm_work(hw.units[2], test::dense_op(129, 100, 300).features);
  EXPECT_EQ(w.weight_tiles, 10 * 4);
  const FitResult r = fit_models(hw, samples);
  const ir::OpClassModel& e = r.hardware.models[2].classes[cls(ir::OpClass::Dense)];
  for (const Sample& s : samples) {
    const ir::Cost c = ir::evaluate(e, s.shape, hw.units[2]);
    EXPECT_NEAR(c.time_s, s.time_s, 1e-9 * s.time_s);
    EXPECT_NEAR(c.energy_j, s.energy_j, 1e-8 * s.energy_j);
    const ir::EnergyBreakdown parts = ir::evaluate_energy(e, s.shape, hw.units[2]);
    for (std::size_t k = 0; k < ir::kMaxEnergyComponents; ++k)
      EXPECT_NEAR(parts.j[k], s.energy.j[k], 1e-8 * s.energy_j)
          << ir::energy_component_name(static_cast<C>(k));
  }
  // Each converter's coefficient is its figure of merit per conversion step.
  const ir::EnergyForms& forms = e.pieces.back().energy_j;
  EXPECT_NEAR(forms[units::phu_features().dac].coef[idx(units::phu_features().dac_conversion_steps)],
              3.90625e-15, 1e-24);
  EXPECT_NEAR(forms[units::phu_features().adc].coef[idx(units::phu_features().adc_conversion_steps)],
              7.8125e-15, 1e-24);
}

TEST(Fit, DeterministicBitForBit) {
  ir::Hardware hw = test::small_machine();
  hw.units[0].as<units::CpuParams>().vector_width = 1;
  std::vector<Sample> samples =
      observe(hw, varied_elementwise(ir::OpClass::Exp), 0, roofline_time, roofline_energy);
  const std::vector<Sample> more =
      observe(hw, varied_elementwise(ir::OpClass::Add), 0, linear_time, linear_energy);
  samples.insert(samples.end(), more.begin(), more.end());
  const FitResult a = fit_models(hw, samples);
  const FitResult b = fit_models(hw, samples);
  EXPECT_TRUE(a.hardware.models == b.hardware.models); // exact double equality, every coefficient
  EXPECT_EQ(ir::hardware_to_json(a.hardware).dump(), ir::hardware_to_json(b.hardware).dump());
}

TEST(Fit, TooFewSamplesKeepsOldCoefficientsAndSaysSo) {
  const ir::Hardware hw = test::small_machine();
  std::vector<ir::Op> ops = varied_elementwise(ir::OpClass::Add);
  ops.resize(3);
  const std::vector<Sample> samples = observe(hw, ops, 0, linear_time, linear_energy);
  const FitResult r = fit_models(hw, samples);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].status, EntryStatus::TooFewSamples);
  EXPECT_EQ(r.entries[0].samples, 3u);
  EXPECT_NE(r.entries[0].note.find("kept the old coefficients"), std::string::npos) << r.entries[0].note;
  EXPECT_TRUE(r.hardware.models == hw.models);
}

TEST(Fit, RetrainedConfigRoundTripsThroughJson) {
  const ir::Hardware hw = test::small_machine();
  const std::vector<Sample> samples =
      observe(hw, varied_elementwise(ir::OpClass::Add), 0, linear_time, linear_energy);
  const FitResult r = fit_models(hw, samples);
  const nlohmann::json j = ir::hardware_to_json(r.hardware);
  const nlohmann::json& entry = j["models"]["cpu-model"]["add"];
  EXPECT_TRUE(entry["time_s"].contains("compute_cycles")) << entry.dump();
  EXPECT_EQ(entry["fit"]["samples"], samples.size());
  ir::Hardware back;
  try {
    back = ir::hardware_from_json(j, "retrained");
  } catch (const std::exception& ex) {
    FAIL() << ex.what();
  }
  EXPECT_TRUE(back.models[0].classes[cls(ir::OpClass::Add)] ==
              r.hardware.models[0].classes[cls(ir::OpClass::Add)]);
}

TEST(Fit, FusedOpsAreSamplesOfTheirAnchor) {
  ir::Hardware hw = test::small_machine();
  ir::Graph g;
  ir::Op in;
  in.op_class = ir::OpClass::Input;
  g.ops.push_back(in);
  ir::Op fused = test::elementwise_op(ir::OpClass::Add, 100);
  fused.features.fused_tail = {ir::OpClass::Exp};
  g.ops.push_back(fused);
  g.ops.push_back(test::elementwise_op(ir::OpClass::Add, 100));
  const auto sg = ir::StackedGraph::from_parts({{{0, {}}}, {{0, {}}}, {{0, {}}}}, {}, {});
  sched::FlatGraph flat;
  flat.stacked = &sg;
  flat.choice = {0, 0, 0};
  sched::Schedule seen;
  seen.ops.resize(3);
  seen.ops[1].end_s = seen.ops[2].end_s = 1e-6;
  std::vector<Sample> out;
  const CollectStats stats = collect_samples(g, hw, flat, seen, 4, out);
  EXPECT_EQ(stats.samples, 2u);
  EXPECT_EQ(stats.fused, 1u);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].op, 1);
  EXPECT_EQ(out[0].op_class, ir::OpClass::Add);
  EXPECT_EQ(out[1].op, 2);
  EXPECT_EQ(out[1].source, 4u);
  EXPECT_EQ(out[1].time_s, 1e-6);
}

} // namespace
} // namespace lightsim::fit
