// Benchmark of the profiler: profiling a whole GPT-2 prefill graph on one core (goal: 22 tokens in under a
// minute). The graph is $LIGHTSIM_PROFILE_BENCH_GRAPH (e.g. from `lightsim-graph --model gpt2 --seq 22`),
// else the shared 5-token export.
//   build/tests/bench/profile_bench --benchmark_min_time=0.01
#include "ir/tvm/tvm_import.h"
#include "sim/profile/profiler.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

std::string graph_path() {
  if (const char* p = std::getenv("LIGHTSIM_PROFILE_BENCH_GRAPH"); p && *p) return p;
  const char* dir = std::getenv("LIGHTSIM_SHARED_DIR");
  const std::string base = dir && *dir ? std::string(dir) : std::string(LIGHTSIM_SOURCE_DIR) + "/../shared";
  return base + "/models/gpt2_prefill_5.json";
}

void BM_ProfileWholeGraph(benchmark::State& state) {
  const std::string path = graph_path();
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("no graph at " + path).c_str());
    return;
  }
  const auto imported = lightsim::ir::import_tvm_graph_file(path);
  const lightsim::profile::ProfileOptions options; // the defaults lightsim-profile uses
  for (auto _ : state) {
    const auto file = lightsim::profile::profile_graph(imported.graph, options);
    benchmark::DoNotOptimize(file.end_to_end_median_s);
    state.counters["end_to_end_s"] = file.end_to_end_median_s;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(imported.graph.num_compute_ops()));
  state.SetLabel(path);
}
BENCHMARK(BM_ProfileWholeGraph)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
