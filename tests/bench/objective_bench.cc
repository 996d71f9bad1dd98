// The objectives and the capacity pricing on Llama-2-7B prefill (2285 ops, ../shared/models), each run
// as `lightsim --json` does minus the CLI: load the config, import the graph, build the stacked graph,
// plan for the objective (exact solves under the memories' capacities, list schedules, the schedule
// search) and compute the report's memory use. Measured against today's run in the same process: the time
// objective as lightsim ran it before capacity and the energy search (one exact solve, one list schedule).
// At the end it prints each objective's CPU time as a ratio to today's run.
//   build/tests/bench/objective_bench [--benchmark_filter=...] [--benchmark_repetitions=N]
#include "ir/cost/stacked_graph.h"
#include "ir/hardware/hardware.h"
#include "ir/tvm/tvm_import.h"
#include "scheduler/list_scheduler.h"
#include "scheduler/memory_use.h"
#include "scheduler/solver.h"
#include "sim/driver/pipeline.h"
#include "sim/units/registry.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <systemc>

namespace {

using namespace lightsim;

std::string model_path() {
  const char* dir = std::getenv("LIGHTSIM_SHARED_DIR");
  const std::string base = dir && *dir ? std::string(dir) : std::string(LIGHTSIM_SOURCE_DIR) + "/../shared";
  return base + "/models/llama2_7b_prefill.json";
}

std::string config(const char* name) {
  return std::string(LIGHTSIM_SOURCE_DIR) + "/configs/" + name;
}

bool available(benchmark::State& state) {
  if (std::filesystem::exists(model_path())) return true;
  state.SkipWithError(("missing " + model_path()).c_str());
  return false;
}

// Today's run: the time objective without capacity, from files.
void BM_Today(benchmark::State& state, const char* hw_name) {
  if (!available(state)) return;
  for (auto _ : state) {
    const ir::Hardware hw = ir::load_hardware(config(hw_name));
    const ir::Graph graph = ir::import_tvm_graph_file(model_path()).graph;
    const ir::TransferModel transfers(hw);
    const ir::StackedGraph sg = ir::build_stacked_graph(graph, hw, transfers);
    const sched::FlatGraph flat = sched::solve(sg);
    benchmark::DoNotOptimize(sched::list_schedule(flat).makespan_s);
  }
}

// An objective as lightsim runs it now, capacity pricing and schedule search included. With hbm_gib > 0
// the GPU's HBM is that small (Llama-2-7B's fp32 weights are 25.7 GB), so the capacity pricing binds.
void BM_Objective(benchmark::State& state, const char* hw_name, sched::Objective objective,
                  double hbm_gib = 0) {
  if (!available(state)) return;
  PipelineOptions options;
  options.hardware_path = config(hw_name);
  options.graph_path = model_path();
  options.objective = objective;
  for (auto _ : state) {
    MachineConfig machine = load_machine_config(options.hardware_path);
    ir::Hardware& hw = machine.hardware;
    if (hbm_gib > 0)
      hw.memories[static_cast<std::size_t>(hw.find_memory("hbm0"))].capacity_bytes = hbm_gib * (1 << 30);
    const Pipeline run(options, std::move(machine));
    benchmark::DoNotOptimize(sched::memory_use(run.flat(), run.schedule()).data());
    state.counters["evaluations"] = static_cast<double>(run.search_stats().evaluations);
    state.counters["capacity_solves"] = static_cast<double>(run.objective_report().capacity.solves);
  }
}

BENCHMARK_CAPTURE(BM_Today, photonic, "photonic.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Objective, photonic_time, "photonic.json", sched::Objective::Time)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Objective, photonic_energy, "photonic.json", sched::Objective::Energy)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Objective, photonic_edp, "photonic.json", sched::Objective::Edp)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Objective, photonic_time_hbm8GiB, "photonic.json", sched::Objective::Time, 8.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Objective, photonic_energy_hbm8GiB, "photonic.json", sched::Objective::Energy, 8.0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Today, gpu, "gpu.json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Objective, gpu_energy, "gpu.json", sched::Objective::Energy)
    ->Unit(benchmark::kMillisecond);

// The console output, plus each run's CPU time divided by today's run on the same config.
class RatioReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      const bool mean = r.run_type == Run::RT_Aggregate && r.aggregate_name == "mean";
      if (r.run_type == Run::RT_Iteration || mean) cpu_ms_[r.run_name.str()] = r.GetAdjustedCPUTime();
    }
  }
  void print_ratios() const {
    for (const auto& [name, ms] : cpu_ms_) {
      const std::string hw = name.find("gpu") != std::string::npos ? "gpu" : "photonic";
      const auto today = cpu_ms_.find("BM_Today/" + hw);
      if (today == cpu_ms_.end() || name == today->first) continue;
      std::printf("%-32s %8.2f ms CPU = %5.2f x today's run (%s, %.2f ms)\n", name.c_str(), ms,
                  ms / today->second, today->first.c_str(), today->second);
    }
  }

private:
  std::map<std::string, double> cpu_ms_;
};

} // namespace

int main(int argc, char** argv) {
  lightsim::register_unit_kinds();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}

// libsystemc.so (linked through the unit kinds) defines main() and calls sc_main; this binary has its own
// main, so sc_main is never run.
int sc_main(int, char**) {
  return 0;
}
