// Benchmarks of the core pipeline on the real TVM exports: import, stacking, exact solve and list
// scheduling, separately and together. Items are ops (graph nodes), so the rates read as ops/s.
//   build/tests/bench/pipeline_bench [--benchmark_filter=...]
// The prototype (Python) takes ~0.5 s for the whole pipeline on GPT-2 prefill (1108 nodes).
#include "ir/cost/stacked_graph.h"
#include "ir/hardware/hardware.h"
#include "ir/tvm/tvm_import.h"
#include "scheduler/list_scheduler.h"
#include "scheduler/solver.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

using namespace lightsim;

std::string model(const std::string& file) {
  const char* dir = std::getenv("LIGHTSIM_SHARED_DIR");
  const std::string base = dir && *dir ? std::string(dir) : std::string(LIGHTSIM_SOURCE_DIR) + "/../shared";
  return base + "/models/" + file;
}

std::string config(const std::string& name) {
  return std::string(LIGHTSIM_SOURCE_DIR) + "/configs/" + name;
}

bool available(benchmark::State& state, const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  state.SkipWithError(("missing " + path).c_str());
  return false;
}

void BM_Import(benchmark::State& state, const char* file) {
  const std::string path = model(file);
  if (!available(state, path)) return;
  std::size_t ops = 0;
  for (auto _ : state) {
    ir::ImportResult r = ir::import_tvm_graph_file(path);
    ops = r.graph.ops.size();
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ops));
}

// One stage on a graph prepared outside the timed loop.
void BM_Stage(benchmark::State& state, const char* file, int stage) {
  const std::string path = model(file);
  if (!available(state, path)) return;
  const ir::Graph graph = ir::import_tvm_graph_file(path).graph;
  const ir::Hardware hw = ir::load_hardware(config("photonic.json"));
  const ir::TransferModel transfers(hw);
  const ir::StackedGraph sg = ir::build_stacked_graph(graph, hw, transfers);
  const sched::FlatGraph flat = sched::solve(sg);
  const sched::SolvePlan plan = sched::plan_elimination(sg);
  for (auto _ : state) {
    if (stage == 0) benchmark::DoNotOptimize(ir::build_stacked_graph(graph, hw, transfers));
    if (stage == 1) benchmark::DoNotOptimize(sched::solve(sg));
    if (stage == 2) benchmark::DoNotOptimize(sched::list_schedule(flat));
    if (stage == 3) benchmark::DoNotOptimize(sched::solve(sg, plan)); // re-solve, order already known
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * graph.ops.size()));
}

// The whole core flow from files, as the CLI runs it (config load included).
void BM_Pipeline(benchmark::State& state, const char* file) {
  const std::string path = model(file);
  if (!available(state, path)) return;
  std::size_t ops = 0;
  for (auto _ : state) {
    const ir::Graph graph = ir::import_tvm_graph_file(path).graph;
    const ir::Hardware hw = ir::load_hardware(config("photonic.json"));
    const ir::TransferModel transfers(hw);
    const ir::StackedGraph sg = ir::build_stacked_graph(graph, hw, transfers);
    const sched::FlatGraph flat = sched::solve(sg);
    benchmark::DoNotOptimize(sched::list_schedule(flat));
    ops = graph.ops.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ops));
}

BENCHMARK_CAPTURE(BM_Import, gpt2_prefill, "gpt2_prefill_5.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Import, llama2_7b_prefill, "llama2_7b_prefill.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, stack_gpt2_prefill, "gpt2_prefill_5.json", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, stack_llama2_7b_prefill, "llama2_7b_prefill.json", 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, solve_gpt2_prefill, "gpt2_prefill_5.json", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, solve_llama2_7b_prefill, "llama2_7b_prefill.json", 1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, resolve_planned_llama2_7b_prefill, "llama2_7b_prefill.json", 3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, schedule_gpt2_prefill, "gpt2_prefill_5.json", 2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, schedule_llama2_7b_prefill, "llama2_7b_prefill.json", 2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pipeline, gpt2_prefill, "gpt2_prefill_5.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pipeline, llama2_7b_prefill, "llama2_7b_prefill.json")->Unit(benchmark::kMillisecond);

} // namespace
