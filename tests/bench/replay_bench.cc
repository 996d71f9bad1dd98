// Replay throughput (simulated ops per second) on a large synthetic FlatGraph, and the raw SystemC event
// rate of the same machine (a ring of SC_METHODs passing timed notifications), in one binary so the two
// are measured side by side. Goal (issue 4): >= 1 M ops/s and >= 10% of the raw event rate.
#include "sim/driver/pipeline.h"
#include "sim/hw/kernel.h"
#include "sim/replay/replay.h"
#include "tests/bench/replay_loop.h"
#include "tests/sim/sim_fixture.h"

#include <benchmark/benchmark.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <systemc>
#include <vector>

namespace {

using namespace lightsim;

// Layered graph: each op reads the previous op and a random op from the last 64; 70% stay on the
// previous op's unit; GEMMs and adds alternate.
struct Synthetic {
  test::GraphBuilder b;
  std::vector<int> units;
  explicit Synthetic(int n) {
    std::mt19937 rng(7);
    for (int i = 0; i < 4; ++i) {
      b.op(ir::OpClass::Input, {}, {64, 64});
      units.push_back(i % 3);
    }
    b.g.ops.reserve(static_cast<std::size_t>(n) + 4);
    for (int i = 0; i < n; ++i) {
      const auto last = static_cast<ir::OpId>(b.g.ops.size() - 1);
      const auto skip =
          static_cast<ir::OpId>(last - static_cast<ir::OpId>(rng() % std::min<std::uint32_t>(64, last + 1)));
      b.op(i % 2 ? ir::OpClass::Add : ir::OpClass::Dense, {b.out(last), b.out(skip)}, {64, 64});
      units.push_back(rng() % 10 < 7 ? units[last] : static_cast<int>(rng() % 3));
    }
    b.g.heads = {b.out(static_cast<ir::OpId>(b.g.ops.size() - 1))};
  }
};

void BM_Replay(benchmark::State& state) {
  const Synthetic g(static_cast<int>(state.range(0)));
  const ir::Hardware hw = test::sim_machine();
  const ir::TransferModel tm(hw);
  sim::ReplayStats stats;
  for (auto _ : state) {
    sched::Schedule s = sim::replay_units(g.b.g, g.units, tm, {}, &stats);
    benchmark::DoNotOptimize(s.makespan_s);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * stats.ops));
  state.counters["transfers"] = static_cast<double>(stats.transfers);
  state.counters["hops"] = static_cast<double>(stats.hops);
}
BENCHMARK(BM_Replay)->Arg(10000)->Arg(200000)->Unit(benchmark::kMillisecond);

// The measure: llama2_7b_prefill.json placed by the pipeline on configs/photonic.json, fused as the
// config says (`tvm`: 1029 ops) and unfused (`none`: 2285 ops, as the measure was first taken).
void BM_ReplayLlama2Prefill(benchmark::State& state, std::optional<ir::fusion::FuseMode> fuse) {
  const char* dir = std::getenv("LIGHTSIM_SHARED_DIR");
  const std::string base = dir && *dir ? std::string(dir) : std::string(LIGHTSIM_SOURCE_DIR) + "/../shared";
  PipelineOptions o;
  o.hardware_path = std::string(LIGHTSIM_SOURCE_DIR) + "/configs/photonic.json";
  o.graph_path = base + "/models/llama2_7b_prefill.json";
  o.fuse = fuse;
  const sim::ReplayStats stats = bench::replay_loop(state, o);
  state.counters["transfers"] = static_cast<double>(stats.transfers);
  state.counters["ops"] = static_cast<double>(stats.ops);
}
BENCHMARK_CAPTURE(BM_ReplayLlama2Prefill, as_configured, std::nullopt)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayLlama2Prefill, unfused, ir::fusion::FuseMode::None)->Unit(benchmark::kMillisecond);

// A ring of SC_METHODs: each activation notifies the next method's event 1 ps later.
struct RingNode : sc_core::sc_module {
  sc_core::sc_event ev;
  RingNode* next = nullptr;
  std::uint64_t* count = nullptr;
  std::uint64_t limit = 0;
  SC_HAS_PROCESS(RingNode);
  explicit RingNode(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    SC_METHOD(fire);
    sensitive << ev;
    dont_initialize();
  }
  void fire() {
    if (++*count < limit) next->ev.notify(sc_core::sc_time::from_value(1));
  }
};

void BM_RawSystemCEvents(benchmark::State& state) {
  const int nodes = 1000, tokens = static_cast<int>(state.range(0));
  const std::uint64_t activations = 2000000;
  for (auto _ : state) {
    state.PauseTiming();
    sim::fresh_simulation();
    std::uint64_t count = 0;
    {
      std::vector<std::unique_ptr<RingNode>> ring;
      for (int i = 0; i < nodes; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "n%d", i);
        ring.push_back(std::make_unique<RingNode>(name));
      }
      for (int i = 0; i < nodes; ++i) {
        ring[i]->next = ring[(i + 1) % nodes].get();
        ring[i]->count = &count;
        ring[i]->limit = activations;
      }
      for (int t = 0; t < tokens; ++t)
        ring[t * nodes / tokens]->ev.notify(sc_core::sc_time::from_value(1));
      state.ResumeTiming();
      sc_core::sc_start();
      state.PauseTiming();
    }
    state.ResumeTiming();
    benchmark::DoNotOptimize(count);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * activations));
}
// 1 token: one activation per time step (staggered); 100 tokens: 100 activations per time step.
BENCHMARK(BM_RawSystemCEvents)->Arg(1)->Arg(100)->Unit(benchmark::kMillisecond);

} // namespace
