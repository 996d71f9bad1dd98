// Benchmarks of lightsim-graph's generator: build + lower + stream the JSON of llama2-70b prefill at 4096
// tokens (80 layers, grouped-query attention), of GPT-2 prefill, of ResNet-50 at batch 256 and of
// BERT-large at 4096 tokens. Items are TVM nodes, so the rates read as nodes/s; bytes are JSON bytes
// written.
//   build/tests/bench/graphgen_bench [--benchmark_filter=...]
// Goals: llama2-70b prefill @4096 well under a second (issue 3); resnet50 --batch 256 and bert-large
// --seq 4096 under a second each (issue 15). JSON streamed, not held in memory.
#include "ir/graphgen/builder.h"
#include "ir/graphgen/tvm_lower.h"
#include "ir/graphgen/tvm_writer.h"
#include "sim/io/atomic_file.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

using namespace lightsim::ir::graphgen;

GraphRequest request(const std::string& model, std::int64_t seq, std::int64_t batch = 1) {
  GraphRequest r;
  r.model = builtin_model(model);
  r.phase = Phase::Prefill;
  r.seq = seq;
  r.batch = batch;
  return r;
}

// The whole of `lightsim-graph ... -o FILE`: build, lower, write to a temp file and rename it.
void generate_to_file(benchmark::State& state, const std::string& model, std::int64_t seq,
                      std::int64_t batch = 1) {
  const GraphRequest r = request(model, seq, batch);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("graphgen_bench_" + std::to_string(::getpid()) + ".json"))
          .string();
  std::int64_t nodes = 0;
  for (auto _ : state) {
    const ExprGraph g = build_model_graph(r);
    const TvmGraph t = lower_to_tvm(g);
    lightsim::write_file_atomically(path, "graph", [&](std::ostream& out) { write_tvm_graph(t, out); });
    nodes = static_cast<std::int64_t>(t.nodes.size());
  }
  const auto bytes = static_cast<std::int64_t>(std::filesystem::file_size(path));
  std::filesystem::remove(path);
  state.SetItemsProcessed(state.iterations() * nodes);
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["json_MB"] = static_cast<double>(bytes) / 1e6;
}

void BM_Llama2_70bPrefill4096(benchmark::State& state) {
  generate_to_file(state, "llama2-70b", 4096);
}
void BM_Gpt2Prefill128(benchmark::State& state) {
  generate_to_file(state, "gpt2", 128);
}
void BM_Gpt2Prefill5(benchmark::State& state) {
  generate_to_file(state, "gpt2", 5);
}
void BM_Resnet50Batch256(benchmark::State& state) {
  generate_to_file(state, "resnet50", 0, 256);
}
void BM_BertLargeSeq4096(benchmark::State& state) {
  generate_to_file(state, "bert-large", 4096);
}

// Build and lower only (no I/O), to separate generation from writing.
void BM_Llama2_70bPrefill4096BuildAndLower(benchmark::State& state) {
  const GraphRequest r = request("llama2-70b", 4096);
  for (auto _ : state) {
    const ExprGraph g = build_model_graph(r);
    benchmark::DoNotOptimize(lower_to_tvm(g).nodes.size());
  }
}

BENCHMARK(BM_Llama2_70bPrefill4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Llama2_70bPrefill4096BuildAndLower)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gpt2Prefill128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gpt2Prefill5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Resnet50Batch256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BertLargeSeq4096)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
