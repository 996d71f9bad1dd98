// Pipeline stages (ir/partition/pipeline_stages.h), micro-batches (ir/partition/micro_batches.h) and the
// device plan that maps them to units
// (ir/cost/device_plan.h): a chain of GEMMs splits into stages of equal weight bytes, stages never decrease
// along an edge, weights follow their consumer, and a stage's ops may use only its device among the units
// of the devices' kind; too many stages for the weights or for the machine is one clear error.
#include "ir/cost/device_plan.h"
#include "ir/cost/stacked_graph.h"
#include "ir/error.h"
#include "ir/partition/micro_batches.h"
#include "ir/partition/pipeline_stages.h"
#include "ir/tvm/tvm_import.h"
#include "tests/ir/collective_machines.h"
#include "tests/ir/tvm_snippet.h"

#include <gtest/gtest.h>
#include <stdexcept>

namespace lightsim::ir {
namespace {

using test::TvmSnippet;

// x -> add(p0) -> add(itself) -> add(p1) -> ...: `layers` adds of an 8 x 64 fp16 weight (the weighted ops,
// named dense<l> for their role), each followed by a weightless add; with `all_reduce_workers`, an
// all-reduce after each weighted op (a tensor-parallel shard).
// prefix + l, built by appending (GCC 12's -Wrestrict misfires on "x" + std::to_string at -O3).
std::string numbered(const char* prefix, int l) {
  std::string name(prefix);
  name += std::to_string(l);
  return name;
}

Graph chain(int layers, int all_reduce_workers = 0) {
  TvmSnippet s;
  int x = s.input("x", {8, 64}, "float16");
  for (int l = 0; l < layers; ++l) {
    const int w = s.input(numbered("p", l), {8, 64}, "float16");
    x = s.op(numbered("dense", l), "tvmgen_default_fused_add", {{x, 0}, {w, 0}}, {{{8, 64}, "float16"}});
    if (all_reduce_workers)
      x = s.op(numbered("ar", l), "tvmgen_default_fused_ccl_allreduce", {{x, 0}}, {{{8, 64}, "float16"}},
               {{"num_workers", all_reduce_workers}});
    x = s.op(numbered("relu", l), "tvmgen_default_fused_add", {{x, 0}, {x, 0}}, {{{8, 64}, "float16"}});
  }
  return import_tvm_graph(s.to_json(), "chain.json").graph;
}

std::string stage_error(Graph g, int stages) {
  try {
    assign_pipeline_stages(g, stages);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

OpId named_id(const Graph& g, const std::string& name) {
  for (std::size_t id = 0; id < g.ops.size(); ++id)
    if (g.ops[id].name == name) return static_cast<OpId>(id);
  throw std::logic_error("no op " + name);
}

const Op& named(const Graph& g, const std::string& name) {
  return g.ops[static_cast<std::size_t>(named_id(g, name))];
}

TEST(PipelineStages, EqualWeightSharesInTopologicalOrder) {
  Graph g = chain(4);
  EXPECT_EQ(pipeline_stage_count(g), 0);
  assign_pipeline_stages(g, 2);
  EXPECT_EQ(pipeline_stage_count(g), 2);
  // Weight midpoints at 1/8, 3/8, 5/8, 7/8 of the bytes: two dense ops per stage; the elementwise op after
  // a dense takes the stage where the weights read so far end.
  EXPECT_EQ(named(g, "dense0").pipeline_stage, 0);
  EXPECT_EQ(named(g, "dense1").pipeline_stage, 0);
  EXPECT_EQ(named(g, "relu1").pipeline_stage, 1);
  EXPECT_EQ(named(g, "dense2").pipeline_stage, 1);
  EXPECT_EQ(named(g, "dense3").pipeline_stage, 1);
  EXPECT_EQ(named(g, "p2").pipeline_stage, 1) << "a weight takes its consumer's stage";
  EXPECT_EQ(named(g, "x").pipeline_stage, 0);
  for (const Op& op : g.ops)
    for (TensorId t : op.inputs)
      EXPECT_LE(
          g.ops[static_cast<std::size_t>(g.tensors[static_cast<std::size_t>(t)].producer)].pipeline_stage,
          op.pipeline_stage)
          << op.name;
  Graph four = chain(4);
  assign_pipeline_stages(four, 4);
  for (int l = 0; l < 4; ++l)
    EXPECT_EQ(named(four, numbered("dense", l)).pipeline_stage, l);
}

TEST(PipelineStages, BadInputIsOneClearError) {
  EXPECT_EQ(stage_error(chain(4), 5),
            "chain.json: --pp 5 is more than the graph's 4 ops that read weights (a "
            "stage needs at least one)");
  EXPECT_EQ(stage_error(chain(4), 0), "chain.json: --pp 0: must be at least 1");
  TvmSnippet s;
  const int x = s.input("x", {8}, "float32");
  s.op("relu", "tvmgen_default_fused_nn_relu", {{x, 0}}, {{{8}, "float32"}});
  EXPECT_EQ(stage_error(import_tvm_graph(s.to_json(), "free.json").graph, 2),
            "free.json: --pp 2: the graph reads no weights, and stages split it by its weights");
}

TEST(MicroBatches, CopiesShareTheWeightsAndKeepTheirStages) {
  Graph g = chain(2);
  assign_pipeline_stages(g, 2);
  const std::size_t params = 2, ops = g.ops.size(), tensors = g.tensors.size();
  const Graph three = replicate_micro_batches(g, 3);
  ASSERT_EQ(three.ops.size(), ops + 2 * (ops - params));
  EXPECT_EQ(three.tensors.size(), tensors + 2 * (tensors - params));
  EXPECT_EQ(three.heads.size(), 3 * g.heads.size());
  for (int k = 1; k < 3; ++k) {
    const std::string suffix = ":mb" + std::to_string(k);
    const Op& dense = named(three, "dense1" + suffix);
    EXPECT_EQ(dense.micro_batch, k);
    EXPECT_EQ(dense.pipeline_stage, named(g, "dense1").pipeline_stage);
    EXPECT_EQ(named(three, "x" + suffix).op_class, OpClass::Input) << "a per-run input per micro-batch";
    EXPECT_THROW(named(three, "p1" + suffix), std::logic_error) << "weights are not copied";
    // The copy reads copy 0's weight and its own activations.
    EXPECT_EQ(dense.inputs[1], named(three, "p1").outputs[0]);
    EXPECT_NE(dense.inputs[0], named(three, "dense1").inputs[0]);
    EXPECT_EQ(three.tensors[static_cast<std::size_t>(dense.inputs[0])].producer,
              named_id(three, "relu0" + suffix));
  }
  EXPECT_EQ(three.consumers[static_cast<std::size_t>(named(three, "p0").outputs[0])].size(), 3u);
  EXPECT_EQ(replicate_micro_batches(g, 1).ops.size(), ops);
  try {
    replicate_micro_batches(g, 0);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "chain.json: --micro-batches 0: must be at least 1");
  }
}

TEST(DevicePlan, StagesOnDevicesAndShardsOnTheirGroups) {
  const Hardware hw =
      test::devices(nlohmann::json::array({test::nvswitch({"dev0", "dev1", "dev2", "dev3"})}));
  const TransferModel tm(hw);
  // Two stages, no collectives: stage s on dev s; dev2 and dev3 run nothing.
  Graph g = chain(4);
  assign_pipeline_stages(g, 2);
  const DevicePlan plan = device_plan(g, hw);
  EXPECT_EQ(plan.stages, (std::vector<std::vector<int>>{{0}, {1}}));
  EXPECT_EQ(plan.closed, (std::vector<bool>{false, false, true, true}));
  const StackedGraph sg = build_stacked_graph(g, hw, tm);
  for (std::size_t id = 0; id < g.ops.size(); ++id) {
    ASSERT_EQ(sg.nodes(static_cast<OpId>(id)).size(), 1u) << g.ops[id].name;
    EXPECT_EQ(sg.nodes(static_cast<OpId>(id))[0].unit, g.ops[id].pipeline_stage) << g.ops[id].name;
  }
  // Two stages of two-device shards: Megatron's rank order, stage s on the s-th pair.
  Graph shard = chain(4, 2);
  assign_pipeline_stages(shard, 2);
  const DevicePlan both = device_plan(shard, hw);
  EXPECT_EQ(both.stages, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(both.closed, (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(build_stacked_graph(shard, hw, tm).nodes(named_id(shard, "ar3"))[0].unit, 2);
  // Four stages of pairs need eight devices.
  Graph big = chain(4, 2);
  assign_pipeline_stages(big, 4);
  try {
    device_plan(big, hw);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "chain.json: 4 pipeline stages of 2-unit shards need 8 units of one kind ('cpu'), and "
                 "devices.json has 4");
  }
}

} // namespace
} // namespace lightsim::ir
