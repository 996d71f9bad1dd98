// Trace writing speed: rows of /ops per second for a 1 M-op trace (goal >= 10 M rows/s, issue 4).
// The whole trace is written (meta, ops, units, links, check; no transfers), so the rate is end to end
// for a run of that size; with a simulated schedule it also includes the check table.
#include "sim/trace/trace_writer.h"
#include "tests/sim/trace_fixture.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

void write_ops_trace(benchmark::State& state, bool simulated) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const lightsim::test::TraceFixture f = lightsim::test::make_large_fixture(n, simulated);
  lightsim::sim::TraceInputs in;
  in.graph = &f.graph;
  in.hardware = &f.hw;
  in.predicted = &f.predicted;
  in.simulated = simulated ? &f.simulated : nullptr;
  in.hardware_config_json = "{}";
  in.objective = "time";
  in.created = "bench";
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("lightsim-trace-bench-" + std::to_string(::getpid()) + ".h5"))
                               .string();
  for (auto _ : state)
    lightsim::sim::write_trace(path, in);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n)); // items = /ops rows
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove(path);
}

void BM_TraceWritePredicted(benchmark::State& state) {
  write_ops_trace(state, false);
}
void BM_TraceWriteSimulated(benchmark::State& state) {
  write_ops_trace(state, true);
}

BENCHMARK(BM_TraceWritePredicted)->Arg(1 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TraceWriteSimulated)->Arg(1 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
