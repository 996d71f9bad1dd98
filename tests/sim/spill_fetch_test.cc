// The replay's fetches of spilled activations by a unit's load stage (sim/replay/load_stages.cc) must not
// deadlock its program's loads: a fetch holds its buffers until its consumer ends, so it is only issued
// for a consumer the load program has passed (scheduler/load_stage.h gives the argument). Found on
// ResNet-18 with every GEMM on photonic.json's PHU, where parameters that spilled out of the PHU's SRAM at
// t = 0 were fetched for the last dense while the program's next conv2d weight needed those buffers.
#include "scheduler/load_stage.h"
#include "sim/replay/replay.h"
#include "tests/sim/replay_checks.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>

namespace lightsim::sim {
namespace {

using test::GraphBuilder;

TEST(LoadStage, AsideLoadOnlyForAnOpTheProgramHasPassed) {
  sched::LoadStage stage({.depth = 2, .buffer_bytes = 100}, {4, 7});
  EXPECT_FALSE(stage.passed(7));
  EXPECT_THROW(stage.issue_aside(7, 50), std::logic_error); // it could hold buffers 4's load needs
  stage.issue(200);                                         // 4's load: both buffers
  stage.arrived();
  stage.skip(); // 7 loads nothing
  EXPECT_TRUE(stage.passed(4));
  EXPECT_TRUE(stage.passed(7));
  EXPECT_FALSE(stage.passed(5));          // not in the program
  EXPECT_FALSE(stage.issue_aside(7, 50)); // passed, but no room until 4 ends
  stage.release(4);
  EXPECT_TRUE(stage.issue_aside(7, 50));
}

// On the sim fixture's PHU (one array, SRAM spilling to a 100 GB/s, 100 ns DRAM; 2 prefetch buffers of
// 64 KiB), weights in host DRAM streamed over pcie-phu: y = dense(a, w) with w 128 KiB (both buffers),
// v = dense(a, u) with u 32 KiB (one buffer), z = add(x, v). The SRAM holds the buffers and a; x (16 KiB)
// spills at t = 0, when z still waits for v. Fetched at once (as the replay did), x would take a buffer that
// y's load needs, and z holds it until it ends, after v, whose load comes after y's: a deadlock. The load
// program is y, v, z: the fetch waits until the program passes z, i.e. until v's load has arrived (z loads
// nothing), which itself waited for y to end and free both buffers. Then x goes into the room v's load left
// while v runs.
TEST(Prefetch, SpillFetchWaitsUntilTheProgramPassesItsConsumer) {
  GraphBuilder b;
  const ir::OpId a = b.op(ir::OpClass::Input, {}, {64, 128});
  const ir::OpId x = b.op(ir::OpClass::Input, {}, {64, 64});
  const ir::OpId w = b.op(ir::OpClass::Input, {}, {256, 128});
  const ir::OpId u = b.op(ir::OpClass::Input, {}, {64, 128});
  const ir::OpId y = b.op(ir::OpClass::Dense, {b.out(a), b.out(w)}, {64, 256});
  const ir::OpId v = b.op(ir::OpClass::Dense, {b.out(a), b.out(u)}, {64, 64});
  const ir::OpId z = b.op(ir::OpClass::Add, {b.out(x), b.out(v)}, {64, 64});
  b.g.ops[w].is_param = b.g.ops[u].is_param = true;
  b.g.heads = {b.out(y), b.out(z)};
  b.g.finalize();
  std::vector<int> units(b.g.ops.size(), 2);
  units[w] = units[u] = 0; // in host DRAM: streamed
  constexpr double kKiB = 1024;
  ir::Hardware hw = test::sim_machine((2 * 64 + 32) * kKiB); // the buffers and a
  hw.units[2].cores = 1;
  hw.units[2].prefetch = {.depth = 2, .buffer_bytes = 64 * kKiB};
  ir::set_latency_hiding(hw, true);
  const ir::TransferModel tm(hw);
  const sched::Schedule s = replay_units(b.g, units, tm);
  test::expect_valid_replay(b.g, units, tm, s); // every op ran, after its inputs

  // y's load at t = 0; v's once y ended (no buffer free before); x's fetch when v's load arrived.
  EXPECT_EQ(s.ops[y].load_start_s, 0);
  EXPECT_EQ(s.ops[y].load_bytes, 128 * kKiB);
  EXPECT_DOUBLE_EQ(s.ops[v].load_start_s, s.ops[y].end_s);
  EXPECT_EQ(s.ops[v].load_bytes, 32 * kKiB);
  EXPECT_DOUBLE_EQ(s.ops[z].load_start_s, s.ops[v].load_end_s);
  EXPECT_EQ(s.ops[z].load_bytes, 16 * kKiB);
  // The fetch: 100 ns + 16384 B at 100 GB/s, behind v; z starts when both are done.
  EXPECT_NEAR(s.ops[z].load_end_s - s.ops[z].load_start_s, 263.84e-9, 1e-15);
  EXPECT_DOUBLE_EQ(s.ops[z].start_s, std::max(s.ops[v].end_s, s.ops[z].load_end_s));
  EXPECT_EQ(s.units[2].loads, 3u);
  // Every load stalled its op (nothing ran while y's and v's loads were in flight), the fetch partly.
  EXPECT_NEAR(s.units[2].load_stall_s,
              (s.ops[y].load_end_s - 0) + (s.ops[v].load_end_s - s.ops[y].end_s) +
                  std::max(0.0, s.ops[z].load_end_s - s.ops[v].end_s),
              1e-15);
}

} // namespace
} // namespace lightsim::sim
