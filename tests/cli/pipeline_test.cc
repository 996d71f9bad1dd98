// The core pipeline end to end on the real TVM exports and the shipped configs: every op placed, the
// prototype's figures reproduced under its own constants, and the objectives behaving as promised.
#include "scheduler/list_scheduler.h"
#include "sim/cli/progress.h"
#include "sim/driver/pipeline.h"
#include "tests/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

namespace lightsim {
namespace {

const char* const kModels[] = {"gpt2_prefill_5.json", "gpt2_decoder_5.json", "llama2_7b_prefill.json",
                               "llama2_7b_decoder.json"};
const char* const kConfigs[] = {"configs/photonic.json", "configs/cpu.json", "configs/gpu.json",
                                "configs/lightcode.json", "configs/lightcode-cpu.json"};

PipelineOptions options(const std::string& config, const std::string& model,
                        sched::Objective objective = sched::Objective::Time) {
  PipelineOptions o;
  o.hardware_path = test::source_path(config);
  o.graph_path = test::model_path(model);
  o.objective = objective;
  return o;
}

TEST(Pipeline, EveryGraphRunsOnEveryShippedConfig) {
  LIGHTSIM_NEED_SHARED_MODELS();
  for (const char* model : kModels)
    for (const char* config : kConfigs) {
      SCOPED_TRACE(std::string(model) + " on " + config);
      const Pipeline run(options(config, model));
      const auto& ops = run.schedule().ops;
      ASSERT_EQ(ops.size(), run.graph().ops.size());
      for (std::size_t op = 0; op < ops.size(); ++op) {
        const int unit = run.flat().unit_of(static_cast<ir::OpId>(op));
        ASSERT_GE(unit, 0);
        EXPECT_EQ(ops[op].unit, unit);
        if (run.graph().ops[op].op_class != ir::OpClass::Input) {
          EXPECT_GE(ops[op].lane, 0);
        }
      }
      EXPECT_GT(run.schedule().makespan_s, 0);
      EXPECT_GT(run.schedule().energy_j, 0);
    }
}

TEST(Pipeline, LightcodeCpuReproducesThePrototypeMakespanOnGpt2) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Pipeline run(options("configs/lightcode-cpu.json", "gpt2_prefill_5.json"));
  EXPECT_NEAR(run.schedule().makespan_s, 0.0916, 0.0916 * 0.01);
  EXPECT_EQ(run.graph().num_compute_ops(), 810u);
}

TEST(Pipeline, LightcodePutsEveryMatmulOnThePhuAndBeatsThePrototypePlacement) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Pipeline run(options("configs/lightcode.json", "gpt2_prefill_5.json"));
  const ir::Hardware& hw = run.hardware();
  const int phu = hw.find_unit("phu0"), cpu = hw.find_unit("cpu0");
  ASSERT_GE(phu, 0);
  ASSERT_GE(cpu, 0);
  // The prototype's placement: matmuls on the PHU, everything else (inputs and weights too) on the CPU.
  std::vector<int> prototype(run.graph().ops.size(), -1);
  int matmuls = 0;
  for (std::size_t op = 0; op < run.graph().ops.size(); ++op) {
    const ir::OpClass c = run.graph().ops[op].op_class;
    const bool matmul = c == ir::OpClass::Dense || c == ir::OpClass::BatchMatmul;
    if (matmul) {
      ++matmuls;
      EXPECT_EQ(run.flat().unit_of(static_cast<ir::OpId>(op)), phu) << run.graph().ops[op].name;
    }
    const auto nodes = run.stacked().nodes(static_cast<ir::OpId>(op));
    for (std::size_t j = 0; j < nodes.size(); ++j)
      if (nodes[j].unit == (matmul ? phu : cpu)) prototype[op] = static_cast<int>(j);
    ASSERT_GE(prototype[op], 0) << run.graph().ops[op].name;
  }
  EXPECT_EQ(matmuls, 73);
  const double prototype_cost = sched::sum_cost(run.stacked(), prototype, sched::LinearCost::seconds());
  EXPECT_LE(run.flat().objective_value, prototype_cost);
}

// configs/lightcode.json is the prototype's machine with its constants, and lightsim places the ops itself
// (the prototype fixes matmuls on the PHU, the rest on the CPU), so the makespan of its time objective is
// never above the prototype's (../shared/reference/lightcode.md; Llama-2-7B computed by the prototype) for
// the shared models. A memory capacity the prototype does not have fails this: an SRAM too small for
// Llama-2-7B's fp32 weights streams them over the bus every inference (0.399 s prefill, 0.0995 s decode).
TEST(Pipeline, LightcodeTimeObjectiveIsNeverSlowerThanThePrototype) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const std::pair<const char*, double> prototype_makespan_s[] = {{"gpt2_prefill_5.json", 0.00411},
                                                                 {"llama2_7b_prefill.json", 0.35216},
                                                                 {"llama2_7b_decoder.json", 0.03541}};
  for (const auto& [model, seconds] : prototype_makespan_s) {
    const Pipeline run(options("configs/lightcode.json", model));
    ASSERT_EQ(run.flat().objective, sched::Objective::Time);
    EXPECT_GT(run.schedule().makespan_s, 0) << model;
    EXPECT_LE(run.schedule().makespan_s, seconds) << model;
  }
}

TEST(Pipeline, MakespanObjectiveNeverLosesToItsStart) {
  LIGHTSIM_NEED_SHARED_MODELS();
  for (const char* model : {"gpt2_prefill_5.json", "llama2_7b_decoder.json"}) {
    const Pipeline time(options("configs/photonic.json", model));
    const Pipeline makespan(options("configs/photonic.json", model, sched::Objective::Makespan));
    EXPECT_LE(makespan.schedule().makespan_s, time.schedule().makespan_s) << model;
    EXPECT_DOUBLE_EQ(makespan.search_stats().start_value, time.schedule().makespan_s) << model;
    EXPECT_DOUBLE_EQ(makespan.flat().objective_value, makespan.schedule().makespan_s);
  }
}

// The promise: the energy objective's placement never costs more total energy (static power
// over the makespan included) than the time objective's, nor the edp objective's more energy x delay.
TEST(Pipeline, EnergyAndEdpObjectivesNeverLoseToTheTimeObjective) {
  LIGHTSIM_NEED_SHARED_MODELS();
  for (const char* config : {"configs/gpu.json", "configs/photonic.json"})
    for (const char* model : kModels) {
      SCOPED_TRACE(std::string(model) + " on " + config);
      const Pipeline time(options(config, model));
      const Pipeline energy(options(config, model, sched::Objective::Energy));
      const Pipeline edp(options(config, model, sched::Objective::Edp));
      const sched::Schedule& t = time.schedule();
      EXPECT_LE(energy.schedule().energy_j, t.energy_j);
      EXPECT_LE(edp.schedule().energy_j * edp.schedule().makespan_s, t.energy_j * t.makespan_s);
      // The time placement is among the starts, with its true value, and the search never loses.
      for (const Pipeline* run : {&energy, &edp}) {
        const sched::ObjectiveReport& r = run->objective_report();
        ASSERT_GE(r.starts.size(), 2u);
        EXPECT_EQ(r.starts[0].name, "time");
        EXPECT_DOUBLE_EQ(r.starts[0].value, sched::schedule_value(t, run->options().objective));
        EXPECT_DOUBLE_EQ(r.search.start_value, r.starts[r.start].value);
        EXPECT_LE(r.search.final_value, r.search.start_value);
        EXPECT_DOUBLE_EQ(run->flat().objective_value, r.search.final_value);
      }
      EXPECT_DOUBLE_EQ(energy.flat().objective_value, energy.schedule().energy_j);
    }
}

TEST(Pipeline, ScheduleRespectsDependenciesAndLanes) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Pipeline run(options("configs/photonic.json", "llama2_7b_prefill.json"));
  const ir::Graph& g = run.graph();
  const sched::Schedule& s = run.schedule();
  for (std::size_t op = 0; op < g.ops.size(); ++op)
    for (ir::TensorId t : g.ops[op].inputs)
      EXPECT_LE(s.ops[g.tensors[t].producer].end_s, s.ops[op].start_s + 1e-15) << g.ops[op].name;
  for (const sched::ScheduledTransfer& tr : s.transfers) {
    EXPECT_GE(tr.start_s, s.ops[tr.src_op].end_s - 1e-15);
    EXPECT_LE(tr.end_s, s.ops[tr.dst_op].start_s + 1e-15);
  }
  // No two ops overlap on one lane.
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
  for (const sched::ScheduledOp& o : s.ops)
    if (o.lane >= 0) lanes[{o.unit, o.lane}].push_back({o.start_s, o.end_s});
  for (auto& [lane, spans] : lanes) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first + 1e-15);
  }
}

TEST(Pipeline, SameInputsGiveTheSamePlacementAndSchedule) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Pipeline a(options("configs/photonic.json", "llama2_7b_decoder.json"));
  const Pipeline b(options("configs/photonic.json", "llama2_7b_decoder.json"));
  EXPECT_EQ(a.flat().choice, b.flat().choice);
  EXPECT_EQ(a.schedule().makespan_s, b.schedule().makespan_s);
  EXPECT_EQ(a.schedule().energy_j, b.schedule().energy_j);
}

} // namespace
} // namespace lightsim

namespace lightsim {
namespace {

TEST(Progress, DrawsTheStageAfterTheDelayAndErasesItself) {
  std::ostringstream out;
  {
    Progress progress(true, out, std::chrono::milliseconds(0), std::chrono::milliseconds(5));
    progress.stage("simulating");
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
  }
  const std::string text = out.str();
  EXPECT_NE(text.find("lightsim: simulating... "), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K"); // the line is erased at the end
}

TEST(Progress, SaysNothingForShortRunsOrWhenDisabled) {
  std::ostringstream quick, off;
  { Progress progress(true, quick, std::chrono::milliseconds(10000)); }
  {
    Progress progress(false, off, std::chrono::milliseconds(0), std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(quick.str().empty());
  EXPECT_TRUE(off.str().empty());
}

} // namespace
} // namespace lightsim
