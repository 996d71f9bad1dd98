// Tests of the collectives' closed forms (ir/cost/collectives.h) against hand-computed numbers, and of their
// evaluation on a machine's links: four devices on one switch, and two two-device switches joined by one
// uplink whose ports two ring edges share.
#include "ir/cost/collectives.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "tests/ir/collective_machines.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim::ir {
namespace {

using nlohmann::json;
using test::devices;
using test::nvswitch;

CollectiveRequest request(CollectiveKind kind, double bytes, CollectiveAlgorithm algorithm, int rows = 0) {
  return {kind, {0, 1, 2, 3}, bytes, algorithm, CollectiveProtocol::Simple, rows};
}

TEST(Collectives, ClosedFormsByHand) {
  // n = 4, S = 4e6 B, B = 100 GB/s (bytes/ns), a = 500 ns per step.
  EXPECT_DOUBLE_EQ(ring_ns(CollectiveKind::AllReduce, 4, 4e6, 100, 500, 0), 6 * (500 + 1e6 / 100));
  EXPECT_DOUBLE_EQ(ring_ns(CollectiveKind::AllGather, 4, 4e6, 100, 500, 7), 7 + 3 * (500 + 1e4));
  EXPECT_DOUBLE_EQ(ring_ns(CollectiveKind::Broadcast, 4, 4e6, 100, 500, 0), 3 * 500 + 4e4);
  EXPECT_DOUBLE_EQ(tree_all_reduce_ns(4, 4e6, 100, 500, 0), 2 * 2 * 500 + 1.5 * 4e4); // no port sends 2S
  EXPECT_EQ(tree_port_load(2), 1.0);
  EXPECT_EQ(tree_port_load(8), 2.0);
  EXPECT_DOUBLE_EQ(tree_all_reduce_ns(5, 4e6, 100, 500, 0), 2 * 3 * 500 + 2 * 4e4); // depth ceil(log2 5)
  // 2 x 2: reduce-scatter in rows (500 + 2e4), all-reduce of S/2 in columns 2 (500 + 1e4), all-gather.
  EXPECT_DOUBLE_EQ(ring2d_all_reduce_ns(2, 2, 4e6, 100, 500, 100, 500, 0), 2 * 20500 + 21000);
  // nccl-tests: busbw = S / t x 2(n-1)/n for all-reduce; the ring's large-S limit is B.
  EXPECT_NEAR(bus_bandwidth_GBps(CollectiveKind::AllReduce, 4, 4e9,
                                 ring_ns(CollectiveKind::AllReduce, 4, 4e9, 100, 0, 0)),
              100, 1e-9);
  EXPECT_DOUBLE_EQ(bus_bandwidth_GBps(CollectiveKind::AllGather, 4, 4e6, 1e4), 400.0 * 3 / 4);
}

TEST(Collectives, RingOnASwitchIsTheClosedForm) {
  const Hardware hw = devices(json::array({nvswitch({"dev0", "dev1", "dev2", "dev3"})}));
  EXPECT_EQ(hw.links[0].bandwidth_GBps, 100); // 4 links x 25 GB/s per port
  const TransferModel tm(hw);
  const CollectiveConfig lib; // no fixed costs, full bandwidth
  for (double bytes : {4.0, 4096.0, 4e6, 4e9}) {
    // The formula: 2(n-1)/n x S/B + 2(n-1) a, a the link's latency.
    const CollectiveCost ar =
        collective_cost(tm, lib, request(CollectiveKind::AllReduce, bytes, CollectiveAlgorithm::Ring), "t");
    EXPECT_NEAR(ar.time_s * 1e9, 2.0 * 3 / 4 * bytes / 100 + 2 * 3 * 500, 1e-6 * ar.time_s * 1e9) << bytes;
    const CollectiveCost tree =
        collective_cost(tm, lib, request(CollectiveKind::AllReduce, bytes, CollectiveAlgorithm::Tree), "t");
    EXPECT_NEAR(tree.time_s * 1e9, tree_all_reduce_ns(4, bytes, 100, 500, 0), 1e-6 * tree.time_s * 1e9);
    const CollectiveCost grid = collective_cost(
        tm, lib, request(CollectiveKind::AllReduce, bytes, CollectiveAlgorithm::Ring2D, 2), "t");
    EXPECT_NEAR(grid.time_s * 1e9, ring2d_all_reduce_ns(2, 2, bytes, 100, 500, 100, 500, 0),
                1e-6 * grid.time_s * 1e9);
  }
  // Energy: every step each of the 4 edges moves S/4 at 10 pJ/B: 6 steps x 4 x 1e6 B x 10 pJ.
  const CollectiveCost ar =
      collective_cost(tm, lib, request(CollectiveKind::AllReduce, 4e6, CollectiveAlgorithm::Ring), "t");
  EXPECT_NEAR(ar.energy_j, 6 * 4 * 1e6 * 10e-12, 1e-15);
  // The library's constants: launch once, a step cost per step, LL128's payload share on the wire.
  CollectiveConfig nccl;
  nccl.bandwidth_efficiency = 0.8;
  nccl.simple = {8400, 3400, 1};
  const CollectiveCost slow =
      collective_cost(tm, nccl, request(CollectiveKind::AllReduce, 4e6, CollectiveAlgorithm::Ring), "t");
  EXPECT_NEAR(slow.time_s * 1e9, 8400 + 6 * (3400 + 500 + 1e6 / 80), 1e-3);
  // Auto takes the cheapest of what the group can run (here: 4 devices, 2 rows for the 2D ring). On 4
  // devices the tree's busiest port sends 1.5 S, as every ring port does, in 4 steps instead of 6.
  for (double bytes : {4e3, 4e9}) {
    double cheapest = 1e300;
    for (CollectiveAlgorithm a :
         {CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree, CollectiveAlgorithm::Ring2D})
      cheapest = std::min(
          cheapest, collective_cost(tm, lib, request(CollectiveKind::AllReduce, bytes, a, 2), "t").time_s);
    const CollectiveCost pick = collective_cost(
        tm, lib, request(CollectiveKind::AllReduce, bytes, CollectiveAlgorithm::Auto, 2), "t");
    EXPECT_EQ(pick.time_s, cheapest) << bytes;
    EXPECT_EQ(pick.algorithm, CollectiveAlgorithm::Tree) << bytes;
  }
}

TEST(Collectives, RingEdgesThatShareAnUplinkShareItsBandwidth) {
  const Hardware hw = test::two_switches();
  const TransferModel tm(hw);
  const CollectiveConfig lib;
  const double S = 4e6, c = S / 4; // chunk per step
  // Ring 0 1 2 3: the slowest edges (1 -> 2, 3 -> 0) cross three hops, each alone on its port.
  CollectiveRequest r = request(CollectiveKind::AllReduce, S, CollectiveAlgorithm::Ring);
  EXPECT_NEAR(collective_cost(tm, lib, r, "t").time_s * 1e9, 6 * (3 * 500 + 3 * c / 100), 1e-3);
  // Ring 0 2 1 3: 0 -> 2 and 1 -> 3 both leave through hubA's uplink port and hubB's switch port (and
  // 2 -> 1, 3 -> 0 the other way): each edge's hops carry 1, 2 and 2 flows.
  r.units = {0, 2, 1, 3};
  EXPECT_NEAR(collective_cost(tm, lib, r, "t").time_s * 1e9, 6 * (3 * 500 + (1 + 2 + 2) * c / 100), 1e-3);
}

TEST(Collectives, BadRequestsAreOneLine) {
  const Hardware hw = devices(json::array({nvswitch({"dev0", "dev1", "dev2", "dev3"})}));
  const TransferModel tm(hw);
  const CollectiveConfig lib;
  auto message = [&](CollectiveRequest r) {
    try {
      collective_cost(tm, lib, r, "--units");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CollectiveRequest r = request(CollectiveKind::AllReduce, 1e6, CollectiveAlgorithm::Ring);
  r.units = {0};
  EXPECT_NE(message(r).find("at least two units"), std::string::npos) << message(r);
  r.units = {0, 1, 1};
  EXPECT_NE(message(r).find("'dev1' appears twice"), std::string::npos) << message(r);
  r = request(CollectiveKind::AllGather, 1e6, CollectiveAlgorithm::Tree);
  EXPECT_NE(message(r).find("tree runs all-reduce only"), std::string::npos) << message(r);
  r = request(CollectiveKind::AllReduce, 1e6, CollectiveAlgorithm::Ring2D, 3);
  EXPECT_NE(message(r).find("rows > 1 that divide"), std::string::npos) << message(r);
}

TEST(Collectives, SectionIsReadWithItsFieldTable) {
  const json config = {
      {"collectives",
       {{"bandwidth_efficiency", 0.8},
        {"simple", {{"launch_ns", 8400}, {"step_ns", 3400}}},
        {"ll128", {{"launch_ns", 10000}, {"step_ns", 1900}, {"payload_fraction", 0.9375}}}}}};
  const auto read_collective_config = [](const json& j, const std::string& source) {
    CollectiveConfig c;
    detail::ConfigObject o(j.at("collectives"), source, "collectives");
    collective_fields().read_all(o, c);
    return c;
  };
  const CollectiveConfig c = read_collective_config(config, "x.json");
  EXPECT_EQ(c.bandwidth_efficiency, 0.8);
  EXPECT_EQ(c.simple, (ProtocolParams{8400, 3400, 1}));
  EXPECT_EQ(c.ll128.step_ns, 1900);
  EXPECT_THROW(read_collective_config({{"collectives", {{"bandwidth_efficiency", 1.5}}}}, "x.json"),
               InputError);
  EXPECT_THROW(read_collective_config({{"collectives", {{"simple", {{"step_ns", -1}}}}}}, "x.json"),
               InputError);
  EXPECT_THROW(read_collective_config({{"collectives", {{"typo", 1}}}}, "x.json"), InputError);
}

} // namespace
} // namespace lightsim::ir
