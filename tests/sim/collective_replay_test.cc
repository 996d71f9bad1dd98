// Tests of the collectives' SystemC replay (sim/hw/collective_engine.h): chunk by chunk on the Links, it
// takes what the closed form (ir/cost/collectives.h) says where every ring step is symmetric, what the hand
// computation says where ring edges share a link port, and the pipelined tree and broadcast come within 2%
// of their closed forms for a large buffer.
#include "ir/cost/collectives.h"
#include "ir/error.h"
#include "sim/hw/collective_engine.h"
#include "sim/hw/kernel.h"
#include "tests/ir/collective_machines.h"

#include <gtest/gtest.h>

namespace lightsim::sim {
namespace {

using ir::CollectiveAlgorithm;
using ir::CollectiveKind;
using ir::CollectiveProtocol;

CollectiveReplay replay(const ir::TransferModel& tm, const ir::CollectiveConfig& lib,
                        const ir::CollectiveRequest& r) {
  fresh_simulation();
  CollectiveEngine engine("collective", tm, lib, {r}, "test");
  return engine.run().front();
}

ir::CollectiveConfig nccl_like() {
  ir::CollectiveConfig lib;
  lib.bandwidth_efficiency = 0.8;
  lib.simple = {8400, 2900, 1};
  lib.ll128 = {10000, 1400, 120.0 / 128.0};
  return lib;
}

TEST(CollectiveReplay, SymmetricRingsTakeTheClosedForm) {
  const ir::Hardware hw =
      test::devices(nlohmann::json::array({test::nvswitch({"dev0", "dev1", "dev2", "dev3"})}));
  const ir::TransferModel tm(hw);
  const ir::CollectiveConfig lib = nccl_like();
  for (CollectiveKind kind :
       {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather})
    for (CollectiveProtocol protocol : {CollectiveProtocol::Simple, CollectiveProtocol::LL128})
      for (double bytes : {4096.0, 4e6, 1073741824.0}) {
        const ir::CollectiveRequest r{kind, {0, 1, 2, 3}, bytes, CollectiveAlgorithm::Ring, protocol, 0};
        const ir::CollectiveCost model = ir::collective_cost(tm, lib, r, "test");
        const CollectiveReplay sim = replay(tm, lib, r);
        // Equal up to the rounding of each step to whole picoseconds and whole bytes.
        EXPECT_NEAR(sim.time_s, model.time_s, 1e-9 * model.time_s + 20e-12) << bytes;
        EXPECT_NEAR(sim.energy_j, model.energy_j, 1e-9 * model.energy_j) << bytes;
        EXPECT_EQ(sim.sends, (kind == CollectiveKind::AllReduce ? 6u : 3u) * 4u);
      }
  const ir::CollectiveRequest grid{CollectiveKind::AllReduce,
                                   {0, 1, 2, 3},
                                   1 << 30,
                                   CollectiveAlgorithm::Ring2D,
                                   CollectiveProtocol::Simple,
                                   2};
  EXPECT_NEAR(replay(tm, lib, grid).time_s, ir::collective_cost(tm, lib, grid, "test").time_s, 1e-10);
}

TEST(CollectiveReplay, EdgesThatShareAnUplinkShareItsBandwidthByHand) {
  const ir::Hardware hw = test::two_switches();
  const ir::TransferModel tm(hw);
  const ir::CollectiveConfig lib; // no fixed costs, full bandwidth
  const double S = 4e6, c = S / 4;
  // Ring 0 2 1 3: 0 -> 2 and 1 -> 3 cross swA alone, then hubA's uplink port together, then hubB's switch
  // port together (2 -> 1 and 3 -> 0 the same the other way): per step 3 x 500 ns + (1 + 2 + 2) c / B.
  const ir::CollectiveRequest r{
      CollectiveKind::AllReduce, {0, 2, 1, 3}, S, CollectiveAlgorithm::Ring, CollectiveProtocol::Simple, 0};
  const double step_ns = 3 * 500 + 5 * c / 100;
  EXPECT_NEAR(replay(tm, lib, r).time_s * 1e9, 6 * step_ns, 0.01);
  EXPECT_NEAR(ir::collective_cost(tm, lib, r, "test").time_s * 1e9, 6 * step_ns, 0.01);
}

TEST(CollectiveReplay, TwoCollectivesThatShareALinkTakeTheHandComputation) {
  const ir::Hardware hw = test::two_switches();
  const ir::TransferModel tm(hw);
  const ir::CollectiveConfig lib;  // no fixed costs, full bandwidth
  const double S = 4e6, c = S / 2; // two devices per group: each step moves half the buffer
  // Group A (dev0, dev2) and group B (dev1, dev3) each all-reduce S over the uplink. Alone, each of A's two
  // steps crosses three hops alone: 3 x 500 ns + 3 c / B. Together, A's 0 -> 2 and B's 1 -> 3 share hubA's
  // uplink port and hubB's switch port (and 2 -> 0, 3 -> 1 the other two): 3 x 500 ns + (1 + 2 + 2) c / B.
  const ir::CollectiveRequest a{CollectiveKind::AllReduce,  {0, 2}, S, CollectiveAlgorithm::Ring,
                                CollectiveProtocol::Simple, 0};
  ir::CollectiveRequest b = a;
  b.units = {1, 3};
  EXPECT_NEAR(replay(tm, lib, a).time_s * 1e9, 2 * (1500 + 3 * c / 100), 0.01);
  fresh_simulation();
  CollectiveEngine engine("collectives", tm, lib, {a, b}, "test");
  const std::vector<CollectiveReplay> both = engine.run();
  ASSERT_EQ(both.size(), 2u);
  EXPECT_NEAR(both[0].time_s * 1e9, 2 * (1500 + 5 * c / 100), 0.01);
  EXPECT_NEAR(both[1].time_s * 1e9, 2 * (1500 + 5 * c / 100), 0.01);
  EXPECT_EQ(both[0].sends, 4u);
}

TEST(CollectiveReplay, PipelinedTreeAndBroadcastApproachTheirClosedForms) {
  // The closed forms leave out the pipeline's fill (a few chunks per level); for 1 GiB in 512 KiB chunks the
  // replay is within 2% of them (issue 23), and a few chunks are far off (the fill dominates).
  const ir::Hardware hw =
      test::devices(nlohmann::json::array({test::nvswitch({"dev0", "dev1", "dev2", "dev3"})}));
  const ir::TransferModel tm(hw);
  const ir::CollectiveConfig lib = nccl_like();
  for (auto [kind, algorithm] : {std::pair{CollectiveKind::AllReduce, CollectiveAlgorithm::Tree},
                                 std::pair{CollectiveKind::Broadcast, CollectiveAlgorithm::Ring}}) {
    const ir::CollectiveRequest r{kind, {0, 1, 2, 3}, 1073741824.0, algorithm, CollectiveProtocol::Simple, 0};
    const ir::CollectiveCost model = ir::collective_cost(tm, lib, r, "test");
    const CollectiveReplay sim = replay(tm, lib, r);
    EXPECT_NEAR(sim.time_s / model.time_s, 1.0, 0.02) << static_cast<int>(kind);
    EXPECT_GE(sim.time_s, model.time_s); // the fill comes on top
    EXPECT_NEAR(sim.energy_j, model.energy_j, 1e-6 * model.energy_j);
  }
  // Tree all-reduce, 4 devices: depth 2, the busiest port carries 1.5 S: L + 4 (step + latency) + 1.5 S / 80.
  const ir::CollectiveRequest tree{CollectiveKind::AllReduce,
                                   {0, 1, 2, 3},
                                   1073741824.0,
                                   CollectiveAlgorithm::Tree,
                                   CollectiveProtocol::Simple,
                                   0};
  EXPECT_NEAR(ir::collective_cost(tm, lib, tree, "test").time_s * 1e9,
              8400 + 4 * (2900 + 500) + 1.5 * 1073741824.0 / 80, 1e-3);
}

TEST(CollectiveReplay, ItNeedsAResolvedAlgorithmAndProtocol) {
  const ir::Hardware hw =
      test::devices(nlohmann::json::array({test::nvswitch({"dev0", "dev1", "dev2", "dev3"})}));
  const ir::TransferModel tm(hw);
  const ir::CollectiveConfig lib;
  auto message = [&](ir::CollectiveRequest r) {
    try {
      fresh_simulation();
      CollectiveEngine engine("collective", tm, lib, {r}, "--algorithm");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  ir::CollectiveRequest r{
      CollectiveKind::AllReduce, {0, 1, 2, 3}, 1e6, CollectiveAlgorithm::Auto, CollectiveProtocol::Simple, 0};
  EXPECT_NE(message(r).find("needs an algorithm"), std::string::npos) << message(r);
  r.algorithm = CollectiveAlgorithm::Ring;
  r.protocol = CollectiveProtocol::Auto;
  EXPECT_NE(message(r).find("not auto"), std::string::npos) << message(r);
  r.units = {0, 0};
  EXPECT_NE(message(r).find("appears twice"), std::string::npos) << message(r);
  // A pipelined replay of a petabyte would be billions of chunks: refused, not attempted.
  r = {CollectiveKind::AllReduce,
       {0, 1, 2, 3},
       1e15,
       CollectiveAlgorithm::Tree,
       CollectiveProtocol::Simple,
       0};
  EXPECT_NE(message(r).find("raise collectives.pipeline_chunk_bytes"), std::string::npos) << message(r);
}

} // namespace
} // namespace lightsim::sim
