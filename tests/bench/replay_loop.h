// The end-to-end benchmarks' common loops: pipeline_loop runs the whole pipeline (import to list schedule)
// per iteration; replay_loop places a graph once (untimed), then each iteration replays that plan in the
// SystemC modules. Items processed = ops (graph nodes) / ops replayed. Not a benchmark of its own.
#pragma once

#include "sim/driver/pipeline.h"
#include "sim/replay/replay.h"

#include <benchmark/benchmark.h>
#include <cstdint>
#include <filesystem>
#include <string>

namespace lightsim::bench {

// Replays `options`' plan in `state`'s loop and returns the last replay's statistics; marks the benchmark
// skipped (with the path) when the graph file is missing.
inline sim::ReplayStats replay_loop(benchmark::State& state, const PipelineOptions& options) {
  sim::ReplayStats stats;
  if (!std::filesystem::exists(options.graph_path)) {
    state.SkipWithError(("missing " + options.graph_path).c_str());
    return stats;
  }
  const Pipeline run(options);
  for (auto _ : state) {
    sched::Schedule s = sim::replay(run.flat(), run.transfers(), {.predicted = &run.schedule()}, &stats);
    benchmark::DoNotOptimize(s.makespan_s);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * stats.ops));
  return stats;
}

// Runs `options`' pipeline in `state`'s loop; items = the graph's ops, also counter "ops". Marks the
// benchmark skipped (with the path) when the graph file is missing.
inline void pipeline_loop(benchmark::State& state, const PipelineOptions& options) {
  if (!std::filesystem::exists(options.graph_path)) {
    state.SkipWithError(("missing " + options.graph_path).c_str());
    return;
  }
  std::size_t ops = 0;
  for (auto _ : state) {
    const Pipeline p(options);
    ops = p.graph().ops.size();
    benchmark::DoNotOptimize(p.schedule().makespan_s);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ops));
  state.counters["ops"] = static_cast<double>(ops);
}

} // namespace lightsim::bench
