// The CPU unit's keys of a hardware config: the full set loads and round-trips, absent optional keys give
// a plain roofline, and each bad value of a new key is rejected with one line naming the file, the unit's
// JSON path, the field and the value (lightsim exits 2 on it: tests/cli). Also the work counts the CPU
// module and the arithmetic model share (ir/cost/unit_work.h) against hand computation.
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "tests/ir/hardware_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::ir {
namespace {

using nlohmann::json;

json full_cpu() {
  json c = test::small_machine();
  json& cpu = c["units"][0];
  cpu["gemm_efficiency"] = 0.8;
  cpu["core_memory_GBps"] = 20;
  cpu["elementwise_ops"] = {{"power", 280}, {"exp", 12.5}};
  cpu["caches"] =
      json::array({{{"name", "l2"}, {"capacity_MiB", 1}, {"bandwidth_GBps", 100}},
                   {{"name", "l3"}, {"capacity_MiB", 32}, {"bandwidth_GBps", 50}, {"shared_GBps", 80}}});
  cpu["intra_op_threads"] = 4;
  cpu["intra_op_min_rows"] = 4;
  cpu["intra_op_min_macs"] = 50000;
  cpu["intra_op_row_block"] = 4;
  cpu["intra_op_sync_ns"] = 2000;
  cpu["concurrent_ops"] = 2;
  return c;
}

TEST(CpuConfig, EveryKeyLoadsAndRoundTrips) {
  const Hardware hw = hardware_from_json(full_cpu(), "full.json");
  const CpuParams& p = hw.units[0].as<units::CpuParams>();
  EXPECT_DOUBLE_EQ(p.gemm_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(p.core_memory_GBps, 20);
  EXPECT_DOUBLE_EQ(p.elementwise_ops[static_cast<std::size_t>(OpClass::Power)], 280);
  EXPECT_DOUBLE_EQ(p.elementwise_ops[static_cast<std::size_t>(OpClass::Add)], 1); // absent: one op
  ASSERT_EQ(p.caches.size(), 2u);
  EXPECT_EQ(p.caches[1].name, "l3");
  EXPECT_DOUBLE_EQ(p.caches[1].capacity_bytes, 32.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(p.caches[1].shared_GBps, 80);
  EXPECT_DOUBLE_EQ(p.caches[0].shared_GBps, 0); // private
  EXPECT_EQ(p.intra_op_threads, 4);
  EXPECT_EQ(p.intra_op_row_block, 4);
  EXPECT_EQ(p.concurrent_ops, 2);
  const json j = hardware_to_json(hw);
  EXPECT_EQ(hardware_from_json(j, "full.json"), hw);
  EXPECT_EQ(hardware_from_json(json::parse(j.dump()), "full.json"), hw);
}

TEST(CpuConfig, AbsentOptionalKeysGiveAPlainRoofline) {
  const Hardware hw = hardware_from_json(test::small_machine(), "small.json");
  const CpuParams& p = hw.units[0].as<units::CpuParams>();
  EXPECT_TRUE(p.caches.empty());
  EXPECT_EQ(p.intra_op_threads, 1);
  EXPECT_EQ(p.intra_op_row_block, 0); // an even share of m's rows
  EXPECT_EQ(p.concurrent_ops, 0);     // one op per core
  EXPECT_EQ(hw.units[0].kind->ops_in_flight(hw.units[0]), hw.units[0].cores);
  EXPECT_DOUBLE_EQ(p.gemm_efficiency, 1);
  // Everything streams through the memory port at its full rate.
  const CpuLevel l = cpu_level(hw.units[0], 1e12);
  EXPECT_EQ(l.index, 0u);
  EXPECT_DOUBLE_EQ(l.core_GBps, 100);
  EXPECT_DOUBLE_EQ(l.shared_GBps, 100);
  EXPECT_FALSE(hardware_to_json(hw)["units"][0].contains("concurrent_ops"));
}

TEST(CpuConfigBad, GemmEfficiencyNotPositive) {
  json c = full_cpu();
  c["units"][0]["gemm_efficiency"] = 0;
  test::expect_config_error(c, "units[0].gemm_efficiency", "must be positive, got 0");
}

TEST(CpuConfigBad, CachesNotIncreasing) {
  json c = full_cpu();
  c["units"][0]["caches"][1]["capacity_MiB"] = 0.5;
  test::expect_config_error(c, "units[0].caches[1].capacity_MiB", "must be larger than the previous level's");
}

TEST(CpuConfigBad, CacheBandwidthMissingOrZero) {
  json c = full_cpu();
  c["units"][0]["caches"][0].erase("bandwidth_GBps");
  test::expect_config_error(c, "units[0].caches[0].bandwidth_GBps", "missing");
  c = full_cpu();
  c["units"][0]["caches"][1]["shared_GBps"] = -3;
  test::expect_config_error(c, "units[0].caches[1].shared_GBps", "must be positive, got -3");
}

TEST(CpuConfigBad, UnknownKeyInACacheLevel) {
  json c = full_cpu();
  c["units"][0]["caches"][0]["latency_ns"] = 4;
  test::expect_config_error(c, "units[0].caches[0].latency_ns", "unknown key");
}

TEST(CpuConfigBad, ElementwiseOpsOfAnUnknownOrGemmClass) {
  json c = full_cpu();
  c["units"][0]["elementwise_ops"]["pow"] = 3;
  test::expect_config_error(c, "units[0].elementwise_ops.pow", "unknown op class 'pow'");
  c = full_cpu();
  c["units"][0]["elementwise_ops"]["dense"] = 3;
  test::expect_config_error(c, "units[0].elementwise_ops.dense", "gemm_efficiency");
  c = full_cpu();
  c["units"][0]["elementwise_ops"]["exp"] = -1;
  test::expect_config_error(c, "units[0].elementwise_ops.exp", "must not be negative, got -1");
}

// intra_op_threads and concurrent_ops may exceed cores (a sweep over cores must not be refused point by
// point): the rule between them is declared in the fields' docs and applied where they are used, at most
// `cores` of either. Zero is refused.
TEST(CpuConfigBad, MoreThreadsOrConcurrentOpsThanCoresUseAllCores) {
  json c = full_cpu();
  c["units"][0]["intra_op_threads"] = 8;
  c["units"][0]["concurrent_ops"] = 5;
  const Hardware hw = hardware_from_json(c, "more.json");
  const Unit& u = hw.units[0];
  EXPECT_EQ(u.kind->ops_in_flight(u), 4); // concurrent_ops 5 on 4 cores
  OpFeatures gemm;
  gemm.gemm_batch = 1;
  gemm.gemm_m = 4096;
  gemm.gemm_n = 4096;
  gemm.gemm_k = 4096;
  gemm.macs = 4096.0 * 4096 * 4096;
  EXPECT_EQ(cpu_op_cores(u, gemm), 4); // a team of 8 threads on 4 cores
  c = full_cpu();
  c["units"][0]["concurrent_ops"] = 0;
  test::expect_config_error(c, "units[0].concurrent_ops", "must be positive, got 0");
}

TEST(CpuConfigBad, RowBlockNotAPositiveCount) {
  json c = full_cpu();
  c["units"][0]["intra_op_row_block"] = 0;
  test::expect_config_error(c, "units[0].intra_op_row_block", "must be positive, got 0");
}

TEST(CpuConfigBad, CpuKeyOnAGpu) {
  json c = full_cpu();
  c["units"][1]["caches"] = json::array();
  test::expect_config_error(c, "units[1].caches", "unknown key");
}

// ---- Work counts -------------------------------------------------------------------------------------

Unit full_unit() {
  return hardware_from_json(full_cpu(), "full.json").units[0];
}

OpFeatures gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  OpFeatures f;
  f.gemm_batch = 1;
  f.gemm_m = m;
  f.gemm_n = n;
  f.gemm_k = k;
  f.macs = static_cast<double>(m * n * k);
  f.bytes_read = 4.0 * static_cast<double>(m * k + n * k);
  f.bytes_out = 4.0 * static_cast<double>(m * n);
  return f;
}

// Eigen's rule: min(threads, m / 4 rows, m*n*k / 50000 MACs), at least 1; non-GEMMs on one core.
TEST(CpuWork, CoresPerGemmFollowTheRuntimesSplitRule) {
  const Unit u = full_unit();                        // 4 threads, 4 rows, 50000 MACs per thread
  EXPECT_EQ(cpu_op_cores(u, gemm(5, 768, 768)), 1);  // 5 / 4 = 1
  EXPECT_EQ(cpu_op_cores(u, gemm(8, 768, 768)), 2);  // 8 / 4 = 2
  EXPECT_EQ(cpu_op_cores(u, gemm(22, 768, 768)), 4); // 5, capped by the 4 threads
  EXPECT_EQ(cpu_op_cores(u, gemm(16, 8, 1000)), 2);  // 128000 MACs / 50000 = 2
  OpFeatures add;
  add.elements_read = add.elements_out = 1e6;
  EXPECT_EQ(cpu_op_cores(u, add), 1);
}

// Levels: <= 1 MiB L2 (100 GB/s per core, private), <= 32 MiB L3 (50 per core, 80 shared), else memory
// (20 per core, port 100). A k-core op streams at min(k x per-core, shared).
TEST(CpuWork, WorkingSetPicksTheLevelAndItsRate) {
  Unit u = full_unit();
  const double mib = 1024.0 * 1024;
  EXPECT_EQ(cpu_level(u, 1 * mib).index, 0u); // exactly the capacity still fits
  EXPECT_EQ(cpu_level(u, 1 * mib + 1).index, 1u);
  EXPECT_EQ(cpu_level(u, 33 * mib).index, 2u);
  OpFeatures add;
  add.elements_read = add.elements_out = 1000;
  EXPECT_DOUBLE_EQ(cpu_work(u, add, 0.5 * mib).memory_ns, 0.5 * mib / 100);
  EXPECT_DOUBLE_EQ(cpu_work(u, add, 8 * mib).memory_ns, 8 * mib / 50);
  EXPECT_DOUBLE_EQ(cpu_work(u, add, 64 * mib).memory_ns, 64 * mib / 20);
  // A GEMM on 4 cores: L3 min(4 x 50, 80) = 80 GB/s; memory min(4 x 20, 100) = 80 GB/s.
  const OpFeatures g = gemm(22, 768, 768);
  const CpuWork w = cpu_work(u, g, 8 * mib);
  EXPECT_EQ(w.cores, 4);
  EXPECT_TRUE(w.gemm);
  EXPECT_DOUBLE_EQ(w.memory_ns, 8 * mib / 80);
  EXPECT_DOUBLE_EQ(cpu_work(u, g, 64 * mib).memory_ns, 64 * mib / 80);
  // Compute on the busiest core: rows in blocks of 4, 4 + 4 + 4 + 10 of m = 22, so 10 rows x 768 x 768
  // MACs / (16 lanes x FMA); an even share (no intra_op_row_block) would be 22 / 4 = 5.5 rows.
  EXPECT_DOUBLE_EQ(w.compute_cycles, 10.0 * 768 * 768 / 16);
  u.as<units::CpuParams>().intra_op_row_block = 0;
  EXPECT_DOUBLE_EQ(cpu_work(u, g, 8 * mib).compute_cycles, 22.0 * 768 * 768 / 16 / 4);
}

// Alone: dispatch (+ sync when split) + memory + compute for a GEMM (it packs, then computes), the
// larger of memory and compute otherwise; each class's element ops per element.
TEST(CpuWork, GemmPackingAddsToComputeOtherOpsTakeTheLarger) {
  Unit u = full_unit();
  u.as<units::CpuParams>().intra_op_threads = 1;
  const double mib = 1024.0 * 1024;
  Op dense;
  dense.op_class = OpClass::Dense;
  dense.features = gemm(16, 256, 256);
  const double bytes = 0.75 * mib; // L2
  const double compute = 16.0 * 256 * 256 / 16 / (3.0 * 0.8);
  EXPECT_NEAR(cpu_alone_ns(u, dense, bytes), 50 + bytes / 100 + compute, 1e-9);
  Op power;
  power.op_class = OpClass::Power;
  power.features.elements_read = power.features.elements_out = 65536;
  const double power_compute = 65536.0 / 16 * 280 / 3.0; // compute-bound: 382293 ns vs 5243 ns
  EXPECT_NEAR(cpu_alone_ns(u, power, 0.5 * mib), 50 + power_compute, 1e-6);
  Op add = power;
  add.op_class = OpClass::Add; // 1 op per element: 1365 ns of compute vs 5243 ns of memory
  EXPECT_NEAR(cpu_alone_ns(u, add, 0.5 * mib), 50 + 0.5 * mib / 100, 1e-9);
  // Split over 4 cores: + 2000 ns sync, memory at 80 GB/s, compute of the busiest core's 10 of 22 rows.
  u.as<units::CpuParams>().intra_op_threads = 4;
  dense.features = gemm(22, 768, 768);
  const double split_compute = 10.0 * 768 * 768 / 16 / (3.0 * 0.8);
  EXPECT_NEAR(cpu_alone_ns(u, dense, 8 * mib), 50 + 2000 + 8 * mib / 80 + split_compute, 1e-6);
}

// The arithmetic model's CPU features are the module's counts.
TEST(CpuWork, FeaturesAreTheModulesCounts) {
  const Unit u = full_unit();
  const OpFeatures g = gemm(22, 768, 768);
  const CpuWork w = cpu_work(u, g, g.bytes_read + g.bytes_out);
  EXPECT_DOUBLE_EQ(feature_value(Feature::ComputeCycles, g, u), w.compute_cycles);
  EXPECT_DOUBLE_EQ(feature_value(units::cpu_features().memory_cycles, g, u), w.memory_ns * 3.0);
  EXPECT_DOUBLE_EQ(feature_value(units::cpu_features().compute_memory_ratio, g, u),
                   w.compute_cycles / (w.memory_ns * 3.0));
  EXPECT_EQ(feature_name(units::cpu_features().memory_cycles), "memory_cycles");
  EXPECT_EQ(parse_feature("compute_memory_ratio"), units::cpu_features().compute_memory_ratio);
}

// core_cycles: the cycles a GEMM holds its cores alone x those cores (what dynamic power is charged on),
// op_cores: the cores; a GEMM split over 4 cores holds 4 x its (shorter) time.
TEST(CpuWork, CoreCyclesCountEveryCoreASplitGemmHolds) {
  Unit u = full_unit();
  u.as<units::CpuParams>().intra_op_threads = 4;
  Op dense;
  dense.op_class = OpClass::Dense;
  dense.features = gemm(22, 768, 768);
  const double bytes = dense.features.bytes_read + dense.features.bytes_out;
  ASSERT_EQ(cpu_op_cores(u, dense.features), 4);
  EXPECT_DOUBLE_EQ(feature_value(units::cpu_features().op_cores, dense.features, u), 4);
  EXPECT_NEAR(feature_value(units::cpu_features().core_cycles, dense.features, u),
              4 * cpu_alone_ns(u, dense, bytes) * 3.0, 1e-6);
  u.as<units::CpuParams>().intra_op_threads = 1; // one core: core_cycles are the op's own cycles
  EXPECT_DOUBLE_EQ(feature_value(units::cpu_features().op_cores, dense.features, u), 1);
  EXPECT_NEAR(feature_value(units::cpu_features().core_cycles, dense.features, u),
              cpu_alone_ns(u, dense, bytes) * 3.0, 1e-6);
  EXPECT_EQ(parse_feature("core_cycles"), units::cpu_features().core_cycles);
  EXPECT_EQ(feature_name(units::cpu_features().op_cores), "op_cores");
  // A fused tail (a bias add and an exp on the 22 x 768 results) runs after the GEMM while the op still
  // holds its cores: the module charges them for its whole duration, tail included.
  u.as<units::CpuParams>().intra_op_threads = 4;
  dense.features.fused_tail = {OpClass::Add, OpClass::Exp};
  dense.features.fused_ops = 2 * 22 * 768;
  ASSERT_GT(cpu_tail_cycles(u, dense.features), 0);
  EXPECT_NEAR(feature_value(units::cpu_features().core_cycles, dense.features, u),
              4 * cpu_alone_ns(u, dense, bytes) * 3.0, 1e-6);
}

} // namespace
} // namespace lightsim::ir
