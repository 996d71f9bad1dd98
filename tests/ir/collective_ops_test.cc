// Collectives as ops of a graph (ir/cost/collectives.h): a ccl_allreduce / ccl_allgather /
// ccl_reduce_scatter node with attrs.num_workers is a stack whose nodes are the units that have a group of
// that size (consecutive units of one kind), each costed in closed form on its group; a node without a
// group size, one whose shapes contradict it, or a machine without such a group is one clear error.
#include "ir/cost/collectives.h"
#include "ir/cost/device_plan.h"
#include "ir/cost/stacked_graph.h"
#include "ir/error.h"
#include "ir/tvm/tvm_import.h"
#include "tests/ir/collective_machines.h"
#include "tests/ir/tvm_snippet.h"

#include <gtest/gtest.h>

namespace lightsim::ir {
namespace {

using test::TvmSnippet;
using Shape = std::vector<std::int64_t>;

Graph collective_graph(const std::string& relay_op, const Shape& in, const Shape& out,
                       const nlohmann::json& attrs) {
  TvmSnippet s;
  const int x = s.input("x", in, "float16");
  s.op("collective", "tvmgen_default_fused_" + relay_op, {{x, 0}}, {{out, "float16"}}, attrs);
  return import_tvm_graph(s.to_json(), "shard.json").graph;
}

std::string import_error(const std::string& relay_op, const Shape& in, const Shape& out,
                         const nlohmann::json& attrs) {
  try {
    collective_graph(relay_op, in, out, attrs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

Hardware four_on_a_switch() {
  return test::devices(nlohmann::json::array({test::nvswitch({"dev0", "dev1", "dev2", "dev3"})}));
}

TEST(CollectiveOps, ClassesAndFeatures) {
  const Graph g = collective_graph("ccl_allreduce", {2048, 4096}, {2048, 4096}, {{"num_workers", "4"}});
  const Op& op = g.ops[1];
  EXPECT_EQ(op.op_class, OpClass::AllReduce);
  EXPECT_TRUE(is_collective(op.op_class));
  EXPECT_EQ(op.features.collective_workers, 4);
  EXPECT_EQ(op.features.collective_bytes, 2048.0 * 4096 * 2);
  EXPECT_EQ(op.features.macs, 0);
  // nccl-tests' sizes: an all-gather's output, a reduce-scatter's input.
  EXPECT_EQ(collective_graph("ccl_allgather", {8, 16}, {32, 16}, {{"num_workers", 4}})
                .ops[1]
                .features.collective_bytes,
            32 * 16 * 2);
  const Graph rs = collective_graph("ccl_reduce_scatter", {32, 16}, {8, 16}, {{"num_workers", 4}});
  EXPECT_EQ(rs.ops[1].op_class, OpClass::ReduceScatter);
  EXPECT_EQ(rs.ops[1].features.collective_bytes, 32 * 16 * 2);
}

TEST(CollectiveOps, EachUnitRunsItOnItsBlockOfTheGroupSize) {
  const Hardware hw = four_on_a_switch();
  const TransferModel tm(hw);
  const Graph pairs = collective_graph("ccl_allreduce", {1 << 20}, {1 << 20}, {{"num_workers", 2}});
  EXPECT_EQ(collective_group(hw, 0, pairs.ops[1]), (std::vector<int>{0, 1}));
  EXPECT_EQ(collective_group(hw, 3, pairs.ops[1]), (std::vector<int>{2, 3}));
  const Graph three = collective_graph("ccl_allreduce", {1 << 20}, {1 << 20}, {{"num_workers", 3}});
  EXPECT_EQ(collective_group(hw, 2, three.ops[1]), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(collective_group(hw, 3, three.ops[1]).empty()) << "no full block of three from dev3";

  // The graph is one device's shard: the first device runs it, the other three run their own shards.
  const DevicePlan plan = device_plan(pairs, hw);
  EXPECT_EQ(plan.closed, (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(plan.stages, (std::vector<std::vector<int>>{{0, 1}}));
  const StackedGraph sg = build_stacked_graph(pairs, hw, tm);
  ASSERT_EQ(sg.nodes(1).size(), 1u);
  EXPECT_EQ(sg.nodes(1)[0].unit, 0);
  ASSERT_EQ(sg.nodes(0).size(), 1u) << "its input is resident in dev0's memory only";
  const CollectiveCost c =
      collective_cost(tm, hw.collectives, {CollectiveKind::AllReduce, {0, 1}, 2.0 * (1 << 20)}, "test");
  EXPECT_DOUBLE_EQ(sg.nodes(1)[0].cost.time_s, c.time_s);
  EXPECT_DOUBLE_EQ(sg.nodes(1)[0].cost.energy_j, c.energy_j);
  EXPECT_GT(c.energy_j, 0);
  // The closed form by hand: a ring of two over one switch port each way, 2 MiB: 2 (n - 1) steps of
  // S / n at 100 GB/s plus 500 ns each (no launch or step costs in this machine's library).
  EXPECT_NEAR(c.time_s, 2 * (500e-9 + (1 << 20) / 100e9), 1e-15);
  // A graph without collectives keeps every unit.
  EXPECT_TRUE(device_plan(Graph{}, hw).empty());
}

TEST(CollectiveOps, BadInputIsOneClearError) {
  EXPECT_EQ(import_error("ccl_allreduce", {64}, {64}, nlohmann::json::object()),
            "shard.json: nodes[1] 'collective': a collective needs attrs.num_workers, its group's size (2 or "
            "more), got 0");
  EXPECT_EQ(import_error("ccl_allgather", {64}, {64}, {{"num_workers", 4}}),
            "shard.json: nodes[1] 'collective': all_gather over 4 workers of 64 elements cannot give 64");
  EXPECT_EQ(import_error("ccl_reduce_scatter", {66}, {16}, {{"num_workers", 4}}),
            "shard.json: nodes[1] 'collective': reduce_scatter over 4 workers of 66 elements cannot give 16");
  EXPECT_NE(import_error("ccl_allreduce", {64}, {64}, {{"num_workers", "many"}}).find("attrs.num_workers"),
            std::string::npos);
  const Hardware hw = four_on_a_switch();
  const TransferModel tm(hw);
  const Graph eight = collective_graph("ccl_allreduce", {64}, {64}, {{"num_workers", 8}});
  try {
    build_stacked_graph(eight, hw, tm);
    ADD_FAILURE() << "a group of 8 on 4 devices";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "shard.json: node 1 'collective': no unit of devices.json can run op class "
              "'all_reduce' (it needs 8 units of one kind)");
  }
}

TEST(CollectiveOps, TheConfigSectionTravelsWithTheHardware) {
  nlohmann::json lib = {{"bandwidth_efficiency", 0.8}, {"simple", {{"launch_ns", 8400}, {"step_ns", 2900}}}};
  Hardware hw = four_on_a_switch();
  EXPECT_EQ(hw.collectives, CollectiveConfig{}) << "defaults without a section";
  nlohmann::json j = hardware_to_json(hw);
  EXPECT_FALSE(j.contains("collectives"));
  j["collectives"] = lib;
  const Hardware with = hardware_from_json(j, "with.json");
  EXPECT_EQ(with.collectives.bandwidth_efficiency, 0.8);
  EXPECT_EQ(with.collectives.simple.step_ns, 2900);
  EXPECT_EQ(hardware_to_json(with)["collectives"], lib) << "written back as read";
  j["collectives"] = {{"simple", {{"step_ns", -1}}}};
  EXPECT_THROW(hardware_from_json(j, "bad.json"), InputError);
}

} // namespace
} // namespace lightsim::ir
