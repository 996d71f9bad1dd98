// "Why not" (issue 25, item 6): for each unit, the ops it did not get, priced on it against where they ran.
// Checked against an independent count on photonic.json and a transformer block: every compute op that
// ran elsewhere is counted once per other unit, as one it cannot run (its model lacks the class: the PHU
// and softmax) or one it could; the compute priced on it is the arithmetic model's op_cost there; the
// classes sum to the whole; the tie factor is compute / (cost where ran - transfers here), "never" when the
// transfers alone cost more. The report and --json carry it.
#include "ir/cost/cost_model.h"
#include "sim/cli/unit_alternatives.h"
#include "sim/driver/pipeline.h"
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim {
namespace {

PipelineOptions block_on_photonic() {
  PipelineOptions o;
  o.hardware_path = test::source_path("configs/photonic.json");
  o.graph_path = test::source_path("tests/data/transformer_block.json");
  return o;
}

TEST(UnitAlternatives, CountsAndComputeMatchAnIndependentTally) {
  const Pipeline run(block_on_photonic());
  const ir::Graph& g = run.graph();
  const ir::Hardware& hw = run.hardware();
  const std::vector<UnitAlternatives> rows = unit_alternatives(run);
  ASSERT_EQ(rows.size(), hw.units.size());
  for (std::size_t u = 0; u < hw.units.size(); ++u) {
    std::size_t elsewhere = 0, could = 0;
    double compute_here_s = 0, compute_ran_s = 0;
    for (std::size_t op = 0; op < g.ops.size(); ++op) {
      const ir::Op& desc = g.ops[op];
      if (desc.op_class == ir::OpClass::Input || desc.op_class == ir::OpClass::Nop) continue;
      if (run.flat().unit_of(static_cast<ir::OpId>(op)) == static_cast<int>(u)) continue;
      ++elsewhere;
      if (!ir::can_run(hw, static_cast<int>(u), desc)) continue;
      ++could;
      compute_here_s += ir::op_cost(hw, static_cast<int>(u), desc).time_s;
      compute_ran_s += run.flat().cost_of(static_cast<ir::OpId>(op)).time_s;
    }
    const NotChosen& all = rows[u].all;
    SCOPED_TRACE(hw.units[u].name);
    EXPECT_EQ(all.ops, elsewhere);
    EXPECT_EQ(all.could_run, could);
    EXPECT_EQ(all.not_in_model + all.kind_refuses + all.plan_excludes + all.could_run, all.ops);
    EXPECT_NEAR(all.compute_here.time_s, compute_here_s, 1e-12 * compute_here_s);
    EXPECT_NEAR(all.compute_where_ran.time_s, compute_ran_s, 1e-12 * compute_ran_s);
    NotChosen sum;
    for (const NotChosen& c : rows[u].by_class)
      sum.add(c);
    EXPECT_EQ(sum.ops, all.ops);
    EXPECT_EQ(sum.could_run, all.could_run);
    EXPECT_NEAR(sum.transfers_here.energy_j, all.transfers_here.energy_j,
                1e-12 * all.transfers_here.energy_j);
  }
  // The PHU's model has no softmax: every softmax of the block is one it cannot run.
  const int phu = hw.find_unit("phu0");
  ASSERT_GE(phu, 0);
  const NotChosen& softmax =
      rows[static_cast<std::size_t>(phu)].by_class[static_cast<std::size_t>(ir::OpClass::Softmax)];
  EXPECT_GT(softmax.ops, 0u);
  EXPECT_EQ(softmax.not_in_model, softmax.ops);
}

TEST(UnitAlternatives, TieFactorIsTheComputeTheBudgetAllows) {
  NotChosen r;
  r.could_run = 3;
  r.compute_here = {4.0, 8.0};
  r.transfers_here = {1.0, 1.0};
  r.compute_where_ran = {2.0, 3.0};
  r.transfers_where_ran = {1.0, 2.0};
  EXPECT_DOUBLE_EQ(*tie_factor(r, &ir::Cost::time_s), 4.0 / (3.0 - 1.0));
  EXPECT_DOUBLE_EQ(*tie_factor(r, &ir::Cost::energy_j), 8.0 / (5.0 - 1.0));
  r.transfers_here.time_s = 3.0; // the transfers alone cost what the ops did where they ran
  EXPECT_FALSE(tie_factor(r, &ir::Cost::time_s).has_value());
  r.could_run = 0;
  EXPECT_EQ(tie_factor(r, &ir::Cost::time_s), 0.0);
}

TEST(UnitAlternatives, ReportAndJsonSayWhy) {
  const std::string command = test::lightsim() + " --hw " + test::shipped_config("photonic.json") +
                              " --graph " + test::source_path("tests/data/transformer_block.json");
  const test::CommandResult text = test::run_command(command);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("why not:"), std::string::npos) << text.out;
  const test::CommandResult r = test::run_command(command + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  std::size_t compute_ops = 0;
  for (const nlohmann::json& u : j["units"])
    compute_ops += u["launches"].get<std::size_t>();
  for (const nlohmann::json& u : j["units"]) {
    const nlohmann::json& n = u["not_chosen"];
    SCOPED_TRACE(u["name"].get<std::string>());
    // Every compute op is either this unit's or one it did not get.
    EXPECT_EQ(n["ops"].get<std::size_t>() + u["launches"].get<std::size_t>(), compute_ops);
    for (const auto& [cls, c] : n["by_class"].items()) {
      if (c["could_run"] == 0) {
        EXPECT_TRUE(c["tie_factor"]["time"].is_null()) << cls;
        continue;
      }
      const double ran = c["where_ran"]["compute"]["time_s"].get<double>() +
                         c["where_ran"]["transfers"]["time_s"].get<double>();
      const double transfers = c["here"]["transfers"]["time_s"].get<double>();
      if (transfers >= ran)
        EXPECT_EQ(c["tie_factor"]["time"], "never") << cls;
      else
        EXPECT_DOUBLE_EQ(c["tie_factor"]["time"].get<double>(),
                         c["here"]["compute"]["time_s"].get<double>() / (ran - transfers))
            << cls;
    }
  }
}

} // namespace
} // namespace lightsim
