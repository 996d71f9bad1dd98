// The CPU module (sim/hw/cpu.h) against hand-computed numbers: a GEMM's packing adds to its compute while
// an element op takes the larger of the two; the working set picks the cache level whose bandwidth it
// streams at; a GEMM split over k cores streams k flows that share the memory port with another op (and is
// charged dynamic power on its k cores); two ops in flight share the port (energy: dynamic power x duration
// under `compute`, operand bytes under `dram`).
#include "ir/cost/unit_work.h"
#include "sim/hw/kernel.h"
#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_module.h"
#include "sim/units/cpu/cpu_work.h"
#include "tests/sim/at_process.h"
#include "tests/sim/sim_fixture.h"

#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <systemc>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::sim {
namespace {

constexpr double kPs = 1e-3;             // ns
constexpr double kMiB = 1024.0 * 1024.0; // bytes

struct Recorder : sc_core::sc_module, OpDoneIf {
  std::map<ir::OpId, double> done_ns;
  std::map<ir::OpId, double> energy;
  std::map<ir::OpId, ir::EnergyBreakdown> parts;
  explicit Recorder(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  void op_done(ir::OpId op, int, const ir::EnergyBreakdown& e) override {
    done_ns[op] = static_cast<double>(now_ps()) * kPs;
    energy[op] = e.total();
    parts[op] = e;
  }
};

using test::At; // runs a callback at a simulated time

ir::Op dense_op(std::int64_t m, std::int64_t n, std::int64_t k) {
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.features = {.macs = static_cast<double>(m * n * k),
                 .elements_out = static_cast<double>(m * n),
                 .gemm_batch = 1,
                 .gemm_m = m,
                 .gemm_n = n,
                 .gemm_k = k};
  return op;
}

ir::Op add_op(double elements) {
  ir::Op op;
  op.op_class = ir::OpClass::Add;
  op.features = {.elements_in = 2 * elements, .elements_out = elements, .elements_read = 2 * elements};
  return op;
}

// 3 GHz, 16 lanes with FMA: 48 MACs per ns per core, 48 element ops per ns; 50 ns dispatch; no caches, a
// 100 GB/s port (tests/sim/sim_fixture.h).
TEST(CpuModule, GemmPackingAddsToComputeElementOpsTakeTheLarger) {
  fresh_simulation();
  const ir::Hardware hw = test::sim_machine();
  Cpu cpu("cpu", hw.units[0]);
  const ir::Op dense = dense_op(64, 64, 64);
  // Packs 49152 B at 100 GB/s (491.52 ns), then computes 262144 MACs at 48 per ns (5461.33 ns).
  EXPECT_NEAR(cpu.op_ns({.op = 0, .lane = 0, .desc = &dense, .home_bytes = 49152}),
              50 + 491.52 + 262144.0 / 48, 1e-9);
  const ir::Op add = add_op(1e6);
  // 2e6 element ops (41666.7 ns) while 12 MB stream (120000 ns): the larger.
  EXPECT_NEAR(cpu.op_ns({.op = 1, .lane = 0, .desc = &add, .home_bytes = 12e6}), 50 + 120000, 1e-9);
  // Compute-bound when its class takes 10 ops per element: 416666.7 ns.
  ir::Unit u = hw.units[0];
  u.as<units::CpuParams>().elementwise_ops[static_cast<std::size_t>(ir::OpClass::Add)] = 10;
  Cpu slow("slow", u);
  EXPECT_NEAR(slow.op_ns({.op = 1, .lane = 0, .desc = &add, .home_bytes = 12e6}), 50 + 2e7 / 48, 1e-6);
}

// L2 1 MiB at 200 GB/s per core, L3 32 MiB at 50 GB/s per core (60 shared), memory 20 GB/s per core
// through a 30 GB/s port. An add of 0.5 MiB streams from L2, of 8 MiB from L3, of 64 MiB from memory.
TEST(CpuModule, WorkingSetPicksTheBandwidthLevel) {
  fresh_simulation();
  ir::Hardware hw = test::sim_machine();
  units::CpuParams& p = hw.units[0].as<units::CpuParams>();
  p.caches = {{"l2", 1 * kMiB, 200, 0}, {"l3", 32 * kMiB, 50, 60}};
  p.core_memory_GBps = 20;
  p.memory_port_GBps = 30;
  Recorder rec("rec");
  MainMemory dram("dram", hw.memories[0], 0);
  Cpu cpu("cpu", hw.units[0]);
  cpu.done.bind(rec);
  cpu.memory.bind(dram.target);
  const ir::Op add = add_op(1000); // 41.7 ns of compute: memory-bound everywhere
  const double sizes[3] = {0.5 * kMiB, 8 * kMiB, 64 * kMiB};
  const double rates[3] = {200, 50, 20};
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(cpu.op_ns({.op = i, .lane = 0, .desc = &add, .home_bytes = sizes[i]}),
                50 + sizes[i] / rates[i], 1e-9)
        << i;
  // The same in simulation, one after the other (10 ms apart).
  At a("a", 0, [&] { cpu.start({.op = 0, .lane = 0, .desc = &add, .home_bytes = sizes[0]}); });
  At b("b", 1e7, [&] { cpu.start({.op = 1, .lane = 0, .desc = &add, .home_bytes = sizes[1]}); });
  At c("c", 2e7, [&] { cpu.start({.op = 2, .lane = 0, .desc = &add, .home_bytes = sizes[2]}); });
  sc_core::sc_start();
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(rec.done_ns.at(i), 1e7 * i + 50 + sizes[i] / rates[i], 0.01) << i;
}

// The test machine with a CPU that splits GEMMs over up to `threads` cores (4 rows of m per core at least,
// 1000 ns fork / join), each core streaming at most core_GBps from memory.
ir::Hardware split_gemm_machine(double core_GBps, int threads) {
  ir::Hardware hw = test::sim_machine();
  units::CpuParams& p = hw.units[0].as<units::CpuParams>();
  p.core_memory_GBps = core_GBps;
  p.intra_op_threads = threads;
  p.intra_op_min_rows = 4;
  p.intra_op_sync_ns = 1000;
  return hw;
}

// A GEMM split over 4 cores (m = 16, 4 rows per core) with a 64 MiB working set: 4 flows of 16 MiB, each
// capped at 20 GB/s, through a 30 GB/s port. Alone: 64 MiB / 30 GB/s = 2236962.13 ns of packing, then
// 16*512*512 / 48 / 4 = 21845.33 ns of compute, + 1000 ns sync + 50 ns dispatch.
// With an add of 64 MiB started at the same time on another core: five flows share 30 GB/s, 6 GB/s each;
// the GEMM's flows end at 16 MiB / 6 = 2796202.67 ns (then it computes: ends at 2819098.0 ns); the add's
// last 48 MiB then stream alone at its core's 20 GB/s: 2516582.4 ns more, it ends at 5312835.07 ns.
TEST(CpuModule, GemmSplitOverCoresSharesThePortWithAnotherOp) {
  fresh_simulation();
  ir::Hardware hw = split_gemm_machine(20, 4);
  hw.units[0].as<units::CpuParams>().memory_port_GBps = 30;
  Recorder rec("rec");
  MainMemory dram("dram", hw.memories[0], 0);
  Cpu cpu("cpu", hw.units[0]);
  cpu.done.bind(rec);
  cpu.memory.bind(dram.target);
  const ir::Op dense = dense_op(16, 512, 512);
  const ir::Op add = add_op(1000);
  const OpWork gemm{.op = 0, .lane = 0, .desc = &dense, .home_bytes = 64 * kMiB};
  EXPECT_EQ(cpu.work_of(gemm).cores, 4);
  EXPECT_NEAR(cpu.op_ns(gemm), 50 + 1000 + 64 * kMiB / 30 + 16.0 * 512 * 512 / 48 / 4, 1e-6);
  At go("go", 0, [&] {
    cpu.start(gemm);
    cpu.start({.op = 1, .lane = 4, .desc = &add, .home_bytes = 64 * kMiB});
  });
  sc_core::sc_start();
  const double gemm_flows = 16 * kMiB / 6;
  EXPECT_NEAR(rec.done_ns.at(0), gemm_flows + 16.0 * 512 * 512 / 48 / 4 + 1000 + 50, 0.01);
  EXPECT_NEAR(rec.done_ns.at(1), gemm_flows + 48 * kMiB / 20 + 50, 0.01);
  // The GEMM held 4 cores for its whole duration: 4 x 20 W of dynamic power; the add one core.
  EXPECT_NEAR(rec.parts.at(0)[ir::EnergyComponent::Compute], 4 * 20 * rec.done_ns.at(0) * 1e-9, 1e-9);
  EXPECT_NEAR(rec.parts.at(1)[ir::EnergyComponent::Compute], 20 * rec.done_ns.at(1) * 1e-9, 1e-9);
}

// Eigen hands the rows of m out in blocks of 4, the rest to the last thread: m = 14 on 2 cores is 4 + 10
// rows, so the GEMM computes 10/14 of its MACs on its busiest core, not 7/14 (m = 16: 8 + 8, even).
// 14*512*512 MACs x 10/14 / 48 lanes = 54613.33 ns of compute (16 GB/s per core x 2 = 32 GB/s below the
// 100 GB/s port: 2 MiB / 32 = 65536 ns of packing), + 1000 ns sync + 50 ns dispatch.
TEST(CpuModule, GemmSplitHandsOutRowsInBlocksAndTheLastCoreTakesTheRest) {
  fresh_simulation();
  ir::Hardware hw = split_gemm_machine(16, 2);
  units::CpuParams& p = hw.units[0].as<units::CpuParams>();
  const ir::Op m14 = dense_op(14, 512, 512), m16 = dense_op(16, 512, 512);
  EXPECT_DOUBLE_EQ(units::cpu_split_share(hw.units[0], m14.features, 2), 0.5); // no block: an even share
  p.intra_op_row_block = 4;
  EXPECT_DOUBLE_EQ(units::cpu_split_share(hw.units[0], m14.features, 2), 10.0 / 14.0);
  EXPECT_DOUBLE_EQ(units::cpu_split_share(hw.units[0], m16.features, 2), 0.5);
  EXPECT_DOUBLE_EQ(units::cpu_split_share(hw.units[0], m14.features, 1), 1.0);
  Recorder rec("rec");
  MainMemory dram("dram", hw.memories[0], 0);
  Cpu cpu("cpu", hw.units[0]);
  cpu.done.bind(rec);
  cpu.memory.bind(dram.target);
  const OpWork gemm{.op = 0, .lane = 0, .desc = &m14, .home_bytes = 2 * kMiB};
  EXPECT_EQ(cpu.work_of(gemm).cores, 2);
  const double expected_ns = 50 + 1000 + 2 * kMiB / 32.0 + 14.0 * 512 * 512 * (10.0 / 14.0) / 48;
  EXPECT_NEAR(cpu.op_ns(gemm), expected_ns, 1e-6);
  At go("go", 0, [&] { cpu.start(gemm); });
  sc_core::sc_start();
  EXPECT_NEAR(rec.done_ns.at(0), expected_ns, 0.01);
}

// Two adds of 12 MB at once share the 100 GB/s port: 24 MB / 100 = 240000 ns (+ 50 dispatch) each.
TEST(CpuModule, ConcurrentOpsShareTheMemoryPort) {
  fresh_simulation();
  const ir::Hardware hw = test::sim_machine();
  Recorder rec("rec");
  MainMemory dram("dram", hw.memories[0], 0);
  Cpu cpu("cpu", hw.units[0]);
  cpu.done.bind(rec);
  cpu.memory.bind(dram.target);
  const ir::Op add = add_op(1e6);
  At go("go", 0, [&] {
    cpu.start({.op = 0, .lane = 0, .desc = &add, .home_bytes = 12e6});
    cpu.start({.op = 1, .lane = 1, .desc = &add, .home_bytes = 12e6});
  });
  sc_core::sc_start();
  EXPECT_NEAR(rec.done_ns.at(0), 240050, 0.01);
  EXPECT_NEAR(rec.done_ns.at(1), 240050, 0.01);
  // Energy: 20 W dynamic x 240050 ns (compute) + 12 MB x 20 pJ/B (dram).
  EXPECT_NEAR(rec.parts.at(0)[ir::EnergyComponent::Compute], 20 * 240050e-9, 1e-9);
  EXPECT_NEAR(rec.parts.at(0)[ir::EnergyComponent::Dram], 12e6 * 20e-12, 1e-12);
  EXPECT_NEAR(rec.energy.at(0), 20 * 240050e-9 + 12e6 * 20e-12, 1e-9);
}

} // namespace
} // namespace lightsim::sim
