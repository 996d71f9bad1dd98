// Replay of small hand-built graphs on the sim fixture's machine: invariants (every op once, inputs
// before use, no lane overlap), a hand-computed transfer-then-GEMM start time, SRAM spill, dispatch by
// predicted start, determinism across runs in one process, and a random DAG.
#include "sim/replay/replay.h"
#include "tests/sim/replay_checks.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>
#include <random>

namespace lightsim::sim {
namespace {

using test::GraphBuilder;
using test::sim_machine;
enum : int { kCpu = 0, kGpu = 1, kPhu = 2 };

// x (on the CPU) feeds a dense on the PHU, a dense on the GPU and a reshape on the CPU; their results
// meet in CPU adds, and a last dense runs on the PHU.
struct SmallGraph {
  GraphBuilder b;
  std::vector<int> units;
  ir::OpId x, w1, w2, w3, d1, d2, view, a1, a2, d3;
  SmallGraph() {
    x = b.op(ir::OpClass::Input, {}, {64, 128});
    w1 = b.op(ir::OpClass::Input, {}, {256, 128});
    w2 = b.op(ir::OpClass::Input, {}, {256, 128});
    w3 = b.op(ir::OpClass::Input, {}, {64, 256});
    d1 = b.op(ir::OpClass::Dense, {b.out(x), b.out(w1)}, {64, 256});
    d2 = b.op(ir::OpClass::Dense, {b.out(x), b.out(w2)}, {64, 256});
    view = b.op(ir::OpClass::Nop, {b.out(x)}, {128, 64});
    a1 = b.op(ir::OpClass::Add, {b.out(d1), b.out(d1)}, {64, 256});
    a2 = b.op(ir::OpClass::Add, {b.out(a1), b.out(d2)}, {64, 256});
    d3 = b.op(ir::OpClass::Dense, {b.out(a2), b.out(w3)}, {64, 64});
    b.g.heads = {b.out(d3), b.out(view)};
    units = {kCpu, kPhu, kGpu, kPhu, kPhu, kGpu, kCpu, kCpu, kCpu, kPhu};
  }
};

TEST(Replay, SmallGraphInvariantsAndHandComputedStart) {
  const ir::Hardware hw = sim_machine();
  const ir::TransferModel tm(hw);
  SmallGraph sg;
  ReplayStats stats;
  const sched::Schedule s = replay_units(sg.b.g, sg.units, tm, {}, &stats);
  test::expect_valid_replay(sg.b.g, sg.units, tm, s);
  EXPECT_EQ(stats.ops, 6u);
  // x -> PHU SRAM and x -> GPU HBM, d1 -> DRAM, d2 -> DRAM, a2 -> SRAM, w3 is already on the PHU.
  EXPECT_EQ(s.transfers.size(), 5u);
  // d1 waits for x over pcie-phu: 32768 B = 128 packets, 35840 wire B / 32 GB/s = 1120 ns + 800 ns.
  EXPECT_NEAR(s.ops[sg.d1].start_s, 1920e-9, 1e-12);
  // The two PCIe links ran at the same time (x to the GPU and to the PHU left together at t = 0).
  EXPECT_NEAR(s.ops[sg.d2].start_s, (1000 + 35840 / 32.0) * 1e-9, 1e-12);
  EXPECT_EQ(s.link_bytes[0] + s.link_bytes[1], 2 * 32768u + 3 * 65536u);
  EXPECT_GT(s.link_busy_s[0], 0);
  EXPECT_GT(s.energy_j, 0);
  double parts = 0;
  for (const auto& u : s.units)
    parts += u.dynamic_energy_j + u.static_energy_j;
  for (const auto& t : s.transfers)
    parts += t.energy_j;
  for (const auto& m : hw.memories)
    parts += m.static_power_w * s.makespan_s;
  EXPECT_NEAR(s.energy_j, parts, 1e-15);
  EXPECT_GT(s.units[kPhu].busy_s, 0);
}

TEST(Replay, MultiHopTransferIsStoreAndForward) {
  // GPU -> PHU goes HBM -> DRAM -> SRAM over two PCIe links, one after the other.
  GraphBuilder b;
  const ir::OpId x = b.op(ir::OpClass::Input, {}, {64, 64});
  const ir::OpId g = b.op(ir::OpClass::Add, {b.out(x), b.out(x)}, {64, 64});
  const ir::OpId p = b.op(ir::OpClass::Add, {b.out(g), b.out(g)}, {64, 64});
  const std::vector<int> units = {kGpu, kGpu, kPhu};
  const ir::Hardware hw = sim_machine();
  const ir::TransferModel tm(hw);
  const sched::Schedule s = replay_units(b.g, units, tm);
  test::expect_valid_replay(b.g, units, tm, s);
  ASSERT_EQ(s.transfers.size(), 1u);
  EXPECT_EQ(s.transfers[0].links, (std::vector<int>{0, 1}));
  // 16384 B = 64 packets: 17920 wire B = 560 ns per hop; latencies 1000 ns (pcie-gpu) + 800 ns (pcie-phu).
  EXPECT_NEAR(s.transfers[0].end_s - s.transfers[0].start_s, (560 + 1000 + 560 + 800) * 1e-9, 1e-12);
  EXPECT_NEAR(s.ops[p].start_s, s.transfers[0].end_s, 1e-12);
  EXPECT_NEAR(s.transfers[0].energy_j, 2 * 17920 * 40e-12, 1e-15);
}

TEST(Replay, FullSramSpillsAndSlowsThePhu) {
  SmallGraph sg;
  const ir::Hardware roomy = sim_machine();
  const ir::Hardware tight = sim_machine(40000); // x (32 KiB) fits; w1 (128 KiB) and later tensors spill
  const ir::TransferModel tm_roomy(roomy), tm_tight(tight);
  ReplayStats a, b;
  const sched::Schedule s1 = replay_units(sg.b.g, sg.units, tm_roomy, {}, &a);
  const sched::Schedule s2 = replay_units(sg.b.g, sg.units, tm_tight, {}, &b);
  test::expect_valid_replay(sg.b.g, sg.units, tm_tight, s2);
  EXPECT_EQ(a.spilled_bytes, 0);
  EXPECT_GE(b.spilled_bytes, 256.0 * 128 * 4);
  const double d1_roomy = s1.ops[sg.d1].end_s - s1.ops[sg.d1].start_s;
  const double d1_tight = s2.ops[sg.d1].end_s - s2.ops[sg.d1].start_s;
  EXPECT_GT(d1_tight, d1_roomy);
}

TEST(Replay, DispatchFollowsPredictedStarts) {
  // Two independent GEMMs on the single-lane GPU: by index a runs first; a prediction can reverse that.
  GraphBuilder b;
  const ir::OpId x = b.op(ir::OpClass::Input, {}, {64, 64});
  const ir::OpId w = b.op(ir::OpClass::Input, {}, {64, 64});
  const ir::OpId a = b.op(ir::OpClass::Dense, {b.out(x), b.out(w)}, {64, 64});
  const ir::OpId c = b.op(ir::OpClass::Dense, {b.out(x), b.out(w)}, {64, 64});
  const std::vector<int> units(4, kGpu);
  const ir::Hardware hw = sim_machine();
  const ir::TransferModel tm(hw);
  const sched::Schedule by_index = replay_units(b.g, units, tm);
  EXPECT_LT(by_index.ops[a].start_s, by_index.ops[c].start_s);
  sched::Schedule predicted = by_index;
  predicted.ops[a].start_s = 1;
  predicted.ops[c].start_s = 0;
  const sched::Schedule by_prediction = replay_units(b.g, units, tm, {.predicted = &predicted});
  EXPECT_LT(by_prediction.ops[c].start_s, by_prediction.ops[a].start_s);
  test::expect_valid_replay(b.g, units, tm, by_prediction);
}

TEST(Replay, OpsAloneRunOneAtATimePerUnit) {
  // Two independent adds on the 4-core CPU overlap and share its memory port; with ops_alone they run
  // one after the other, each as long as an add alone (what a per-op fit samples).
  GraphBuilder b;
  const ir::OpId x = b.op(ir::OpClass::Input, {}, {512, 512});
  const ir::OpId a = b.op(ir::OpClass::Add, {b.out(x), b.out(x)}, {512, 512});
  const ir::OpId c = b.op(ir::OpClass::Add, {b.out(x), b.out(x)}, {512, 512});
  b.g.heads = {b.out(a), b.out(c)};
  const std::vector<int> units(3, kCpu);
  const ir::Hardware hw = sim_machine();
  const ir::TransferModel tm(hw);
  const sched::Schedule shared = replay_units(b.g, units, tm);
  const sched::Schedule alone = replay_units(b.g, units, tm, {.ops_alone = true});
  test::expect_valid_replay(b.g, units, tm, alone);
  EXPECT_EQ(shared.ops[a].start_s, shared.ops[c].start_s);
  EXPECT_GE(alone.ops[c].start_s, alone.ops[a].end_s);
  const double a_alone = alone.ops[a].end_s - alone.ops[a].start_s;
  EXPECT_NEAR(alone.ops[c].end_s - alone.ops[c].start_s, a_alone, 1e-12);
  EXPECT_GT(shared.ops[a].end_s - shared.ops[a].start_s, 1.5 * a_alone); // port-bound: shared halves it
}

TEST(Replay, RandomDagIsValidAndDeterministic) {
  std::mt19937 rng(12345);
  GraphBuilder b;
  std::vector<int> units;
  const std::int64_t dims[] = {32, 64, 128};
  for (int i = 0; i < 8; ++i) {
    b.op(ir::OpClass::Input, {}, {64, 64});
    units.push_back(static_cast<int>(rng() % 3));
  }
  for (int i = 0; i < 400; ++i) {
    const auto n = static_cast<ir::OpId>(b.g.ops.size());
    const ir::OpId p = static_cast<ir::OpId>(rng() % n), q = static_cast<ir::OpId>(rng() % n);
    if (rng() % 2) {
      // dense of [64, 64] x [d, 64] then a Nop back to [64, 64]-sized data keeps shapes simple
      const ir::OpId d = b.op(ir::OpClass::Dense, {b.out(p), b.out(q)}, {64, 64});
      b.g.ops[d].features.gemm_n = dims[rng() % 3];
    } else {
      b.op(ir::OpClass::Add, {b.out(p), b.out(q)}, {64, 64});
    }
    units.push_back(static_cast<int>(rng() % 3));
  }
  b.g.heads = {b.out(static_cast<ir::OpId>(b.g.ops.size() - 1))};
  const ir::Hardware hw = sim_machine(256 * 1024);
  const ir::TransferModel tm(hw);
  const sched::Schedule s1 = replay_units(b.g, units, tm);
  test::expect_valid_replay(b.g, units, tm, s1);
  const sched::Schedule s2 = replay_units(b.g, units, tm);
  ASSERT_EQ(s1.ops.size(), s2.ops.size());
  for (std::size_t i = 0; i < s1.ops.size(); ++i) {
    EXPECT_EQ(s1.ops[i].start_s, s2.ops[i].start_s);
    EXPECT_EQ(s1.ops[i].end_s, s2.ops[i].end_s);
    EXPECT_EQ(s1.ops[i].lane, s2.ops[i].lane);
  }
  EXPECT_EQ(s1.makespan_s, s2.makespan_s);
  EXPECT_EQ(s1.energy_j, s2.energy_j);
}

} // namespace
} // namespace lightsim::sim
