// Parallel plans end to end (issue 23's performance goal): Llama-2-70B fp16 prefill at 4096 tokens as one
// of 8 tensor-parallel shards (161 all-reduces) on configs/h100x8.json, generated once into a temp file;
// the pipeline as the CLI runs it (import, fusion as flash, the plan's stages, stack, exact solve for
// time, list schedule), the SystemC replay of its plan, and both with 40 of the 80 layers and as 2
// pipeline stages of TP 4 shards; and the whole model sharded at import (`lightsim --tp 8`,
// ir/partition/tensor_parallel.h) instead of by the generator. Items are ops, so equal rates at 40 and 80
// layers mean time linear in ops.
//   build/tests/bench/parallel_bench [--benchmark_filter=...]
#include "ir/graphgen/builder.h"
#include "ir/graphgen/tvm_lower.h"
#include "ir/graphgen/tvm_writer.h"
#include "sim/driver/pipeline.h"
#include "sim/io/atomic_file.h"
#include "tests/bench/replay_loop.h"

#include <benchmark/benchmark.h>
#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>

namespace {

using namespace lightsim;

struct Plan {
  std::int64_t layers, tensor_parallel;
  int pipeline_stages;
  bool shard_on_import = false; // the file holds the whole model; the pipeline's --tp shards it
};

// The shard's graph file, written once per process and plan.
PipelineOptions options(const Plan& plan) {
  static std::map<std::string, std::string> files;
  const std::int64_t written_tp = plan.shard_on_import ? 1 : plan.tensor_parallel;
  const std::string key = std::to_string(plan.layers) + "-" + std::to_string(written_tp);
  if (!files.count(key)) {
    ir::graphgen::GraphRequest r;
    r.model = ir::graphgen::builtin_model("llama2-70b");
    r.seq = 4096;
    r.dtype = ir::DType::Float16;
    r.layers = plan.layers;
    r.tensor_parallel = written_tp;
    r.all_reduces = written_tp > 1;
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("parallel_bench_" + std::to_string(::getpid()) + "_" + key + ".json"))
                                 .string();
    const ir::graphgen::ExprGraph g = ir::graphgen::build_model_graph(r); // t points into it
    const ir::graphgen::TvmGraph t = ir::graphgen::lower_to_tvm(g);
    write_file_atomically(path, "graph", [&](std::ostream& out) { ir::graphgen::write_tvm_graph(t, out); });
    files[key] = path;
  }
  PipelineOptions o;
  o.hardware_path = std::string(LIGHTSIM_SOURCE_DIR) + "/configs/h100x8.json";
  o.graph_path = files[key];
  o.fuse = ir::fusion::FuseMode::Flash;
  o.pipeline_stages = plan.pipeline_stages;
  if (plan.shard_on_import) o.tensor_parallel = static_cast<int>(plan.tensor_parallel);
  return o;
}

void BM_Pipeline(benchmark::State& state, Plan plan) {
  bench::pipeline_loop(state, options(plan));
}

void BM_Replay(benchmark::State& state, Plan plan) {
  const sim::ReplayStats stats = bench::replay_loop(state, options(plan));
  state.counters["ops"] = static_cast<double>(stats.ops);
}

BENCHMARK_CAPTURE(BM_Pipeline, tp8_80_layers, Plan{80, 8, 1})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pipeline, tp8_40_layers, Plan{40, 8, 1})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pipeline, tp4_pp2_80_layers, Plan{80, 4, 2})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pipeline, tp8_80_layers_sharded_on_import, Plan{80, 8, 1, true})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, tp8_80_layers, Plan{80, 8, 1})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, tp8_40_layers, Plan{40, 8, 1})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, tp4_pp2_80_layers, Plan{80, 4, 2})->Unit(benchmark::kMillisecond);

} // namespace
