// Issue 5's performance goal: "a retrain round on Llama-2-7B prefill costs little more than one replay".
// On ../shared/models/llama2_7b_prefill.json and configs/photonic.json it measures one replay of the
// pipeline's placement and the two kinds of retrain round sim/retrain/retrain_loop.cc runs:
// - the first (BM_RetrainRound): plan from scratch (stacked graph, elimination order, exact solve, list
//   schedule), replay the plan, replay it with ops alone for the samples, collect them, fit;
// - a later one (BM_RetrainLaterRound): re-plan under the refitted model (re-cost, re-solve in the known
//   order, schedule), replay the plan, refit; no replay with ops alone once every (op, unit) pair of
//   the placement is sampled;
// and, to explain them, their parts on their own (BM_RetrainLaterRound/replan_only: the re-plan). Quote
// BM_RetrainRound / BM_Replay and BM_RetrainLaterRound / BM_Replay. It defines its own main() so that
// libsystemc.so's main() is never used.
#include "ir/hardware/hardware.h"
#include "ir/tvm/tvm_import.h"
#include "sim/cli/retrain_command.h"
#include "sim/driver/pipeline.h"
#include "sim/retrain/retrain_loop.h"
#include "tests/test_support.h"

#include <benchmark/benchmark.h>
#include <filesystem>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

namespace {

using namespace lightsim;

struct Llama2Prefill {
  PipelineOptions options;
  ir::Hardware hw;
  std::vector<fit::RetrainInput> inputs;
};

// Loaded once; nullopt (and the benchmark skipped with a message) when the shared models are missing.
const std::optional<Llama2Prefill>& workload() {
  static const std::optional<Llama2Prefill> w = []() -> std::optional<Llama2Prefill> {
    Llama2Prefill l;
    l.options.hardware_path = test::source_path("configs/photonic.json");
    l.options.graph_path = test::model_path("llama2_7b_prefill.json");
    if (!std::filesystem::exists(l.options.graph_path)) return std::nullopt;
    l.hw = ir::load_hardware(l.options.hardware_path);
    l.inputs.push_back({l.options.graph_path, ir::import_tvm_graph_file(l.options.graph_path).graph});
    return l;
  }();
  return w;
}

bool skip_without_model(benchmark::State& state) {
  if (workload()) return false;
  state.SkipWithError(("missing " + test::model_path("llama2_7b_prefill.json")).c_str());
  return true;
}

const fit::Observer observe = replay_observer();

sched::Schedule replay(const Pipeline& run) {
  return observe(run, false);
}

void BM_Replay(benchmark::State& state) {
  if (skip_without_model(state)) return;
  const Llama2Prefill& w = *workload();
  const Pipeline run(w.options, MachineConfig{w.hw, {}}, w.inputs.front().graph);
  for (auto _ : state) {
    const sched::Schedule s = replay(run);
    benchmark::DoNotOptimize(s.makespan_s);
  }
  state.counters["ops"] = static_cast<double>(run.graph().ops.size());
}
BENCHMARK(BM_Replay)->Unit(benchmark::kMillisecond);

void BM_Plan(benchmark::State& state) {
  if (skip_without_model(state)) return;
  const Llama2Prefill& w = *workload();
  for (auto _ : state) {
    const Pipeline run(w.options, MachineConfig{w.hw, {}}, w.inputs.front().graph);
    benchmark::DoNotOptimize(run.schedule().makespan_s);
  }
}
BENCHMARK(BM_Plan)->Unit(benchmark::kMillisecond);

// Samples from one planned and replayed run (features per op on its unit, contention sweep).
void BM_CollectSamples(benchmark::State& state) {
  if (skip_without_model(state)) return;
  const Llama2Prefill& w = *workload();
  const Pipeline run(w.options, MachineConfig{w.hw, {}}, w.inputs.front().graph);
  const sched::Schedule observed = replay(run);
  for (auto _ : state) {
    std::vector<fit::Sample> samples;
    fit::collect_samples(run.graph(), run.hardware(), run.flat(), observed, 0, samples);
    benchmark::DoNotOptimize(samples.data());
  }
}
BENCHMARK(BM_CollectSamples)->Unit(benchmark::kMillisecond);

void BM_Fit(benchmark::State& state) {
  if (skip_without_model(state)) return;
  const Llama2Prefill& w = *workload();
  std::vector<fit::Sample> samples;
  fit::evaluate(w.hw, w.inputs, observe, sched::Objective::Time, &samples);
  for (auto _ : state) {
    const fit::FitResult result = fit::fit_models(w.hw, samples);
    benchmark::DoNotOptimize(result.entries.data());
  }
  state.counters["samples"] = static_cast<double>(samples.size());
}
BENCHMARK(BM_Fit)->Unit(benchmark::kMillisecond);

// The round without its fit: plan, replay, collect samples, per-class errors.
void BM_Evaluate(benchmark::State& state) {
  if (skip_without_model(state)) return;
  const Llama2Prefill& w = *workload();
  for (auto _ : state) {
    std::vector<fit::Sample> samples;
    const fit::Evaluation eval = fit::evaluate(w.hw, w.inputs, observe, sched::Objective::Time, &samples);
    benchmark::DoNotOptimize(eval.runs.data());
  }
}
BENCHMARK(BM_Evaluate)->Unit(benchmark::kMillisecond);

// The first round of fit::retrain: evaluate (plan, replay, replay with ops alone, collect samples) and fit.
void BM_RetrainRound(benchmark::State& state) {
  if (skip_without_model(state)) return;
  const Llama2Prefill& w = *workload();
  for (auto _ : state) {
    std::vector<fit::Sample> samples;
    const fit::Evaluation eval = fit::evaluate(w.hw, w.inputs, observe, sched::Objective::Time, &samples);
    const fit::FitResult result = fit::fit_models(w.hw, samples);
    benchmark::DoNotOptimize(eval.runs.data());
    benchmark::DoNotOptimize(result.entries.data());
  }
}
BENCHMARK(BM_RetrainRound)->Unit(benchmark::kMillisecond);

// The samples of one round and the model refitted on them: later rounds alternate between the base
// config and this one, so that every re-plan re-costs.
struct Refit {
  std::vector<fit::Sample> samples;
  ir::Hardware hardware;
};
const Refit& refit(const Llama2Prefill& w) {
  static const Refit r = [&w] {
    Refit out;
    fit::evaluate(w.hw, w.inputs, observe, sched::Objective::Time, &out.samples);
    out.hardware = fit::fit_models(w.hw, out.samples).hardware;
    return out;
  }();
  return r;
}

// A round after the first, as fit::retrain runs it once every (op, unit) pair of the placement has been
// sampled, or its re-plan alone (replan_only): re-plan under the refitted model (re-cost the
// stacked graph's nodes, re-solve with the first solve's elimination order, list schedule), replay the
// plan (the check) and refit the pooled samples. No replay with ops alone: the pool already holds every
// op's time alone on its unit.
void BM_RetrainLaterRound(benchmark::State& state, bool replan_only) {
  if (skip_without_model(state)) return;
  const Llama2Prefill& w = *workload();
  const Refit& r = refit(w);
  Pipeline run(w.options, MachineConfig{w.hw, {}}, w.inputs.front().graph);
  bool flip = false;
  for (auto _ : state) {
    flip = !flip;
    const ir::Hardware& hw = flip ? r.hardware : w.hw;
    run.replan(hw);
    benchmark::DoNotOptimize(run.schedule().makespan_s);
    if (replan_only) continue;
    const sched::Schedule observed = observe(run, false);
    const fit::FitResult result = fit::fit_models(hw, r.samples);
    benchmark::DoNotOptimize(observed.makespan_s);
    benchmark::DoNotOptimize(result.entries.data());
  }
}
BENCHMARK_CAPTURE(BM_RetrainLaterRound, , false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RetrainLaterRound, replan_only, true)->Unit(benchmark::kMillisecond);

// The whole loop as `lightsim --retrain --retrain-rounds 1` runs it: one round plus the evaluation of
// the refitted model (a second plan and replay) for the report's "after" column.
void BM_RetrainOneRoundWithReport(benchmark::State& state) {
  if (skip_without_model(state)) return;
  const Llama2Prefill& w = *workload();
  fit::LoopOptions options;
  options.max_rounds = 1;
  for (auto _ : state) {
    const fit::RetrainReport report = fit::retrain(w.hw, w.inputs, observe, options);
    benchmark::DoNotOptimize(report.rounds.data());
  }
}
BENCHMARK(BM_RetrainOneRoundWithReport)->Unit(benchmark::kMillisecond);

} // namespace
