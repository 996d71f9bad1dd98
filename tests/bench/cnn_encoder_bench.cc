// lightsim end to end on the CNN and encoder graphs lightsim-graph writes (issue 15), against the same on
// the LLM graphs of before: ResNet-50 at batch 256 and BERT-large at 4096 tokens (generated once into a
// temp file), GPT-2 and Llama-2-7B prefill (the shared exports). Per graph the pipeline as the CLI runs it
// (import from the file, config load, stack, exact solve for time, list schedule) and the SystemC replay
// of its plan on configs/photonic.json. Items are ops (graph nodes), so the rates read as ops/s and
// compare directly across graphs.
//   build/tests/bench/cnn_encoder_bench [--benchmark_filter=...]
#include "ir/graphgen/builder.h"
#include "ir/graphgen/tvm_lower.h"
#include "ir/graphgen/tvm_writer.h"
#include "sim/driver/pipeline.h"
#include "sim/io/atomic_file.h"
#include "sim/replay/replay.h"
#include "sim/units/registry.h"
#include "tests/bench/replay_loop.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <systemc>
#include <unistd.h>

namespace {

using namespace lightsim;

// The graph file for `name`: a shared export, or a graph generated once per process.
std::string graph_file(const std::string& name) {
  static std::map<std::string, std::string> files;
  if (auto it = files.find(name); it != files.end()) return it->second;
  std::string path;
  if (name == "resnet50_b256" || name == "bert_large_s4096") {
    ir::graphgen::GraphRequest r;
    const bool resnet = name == "resnet50_b256";
    r.model = ir::graphgen::builtin_model(resnet ? "resnet50" : "bert-large");
    r.seq = resnet ? 0 : 4096;
    r.batch = resnet ? 256 : 1;
    path = (std::filesystem::temp_directory_path() /
            ("cnn_encoder_bench_" + std::to_string(::getpid()) + "_" + name + ".json"))
               .string();
    const ir::graphgen::ExprGraph g = ir::graphgen::build_model_graph(r);
    const ir::graphgen::TvmGraph t = ir::graphgen::lower_to_tvm(g);
    write_file_atomically(path, "graph", [&](std::ostream& out) { ir::graphgen::write_tvm_graph(t, out); });
  } else {
    const char* dir = std::getenv("LIGHTSIM_SHARED_DIR");
    path = (dir && *dir ? std::string(dir) : std::string(LIGHTSIM_SOURCE_DIR) + "/../shared") + "/models/" +
           name + ".json";
  }
  return files[name] = path;
}

PipelineOptions options(const std::string& name) {
  PipelineOptions o;
  o.hardware_path = std::string(LIGHTSIM_SOURCE_DIR) + "/configs/photonic.json";
  o.graph_path = graph_file(name);
  return o;
}

void BM_Pipeline(benchmark::State& state, const char* name) {
  bench::pipeline_loop(state, options(name));
}

void BM_Replay(benchmark::State& state, const char* name) {
  const sim::ReplayStats stats = bench::replay_loop(state, options(name));
  state.counters["ops"] = static_cast<double>(stats.ops);
}

BENCHMARK_CAPTURE(BM_Pipeline, resnet50_b256, "resnet50_b256")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pipeline, bert_large_s4096, "bert_large_s4096")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pipeline, gpt2_prefill, "gpt2_prefill_5")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pipeline, llama2_7b_prefill, "llama2_7b_prefill")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, resnet50_b256, "resnet50_b256")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, bert_large_s4096, "bert_large_s4096")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, llama2_7b_prefill, "llama2_7b_prefill")->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv) {
  lightsim::register_unit_kinds();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const char* generated : {"resnet50_b256", "bert_large_s4096"})
    std::filesystem::remove(graph_file(generated));
  return 0;
}

// libsystemc.so defines main() and calls sc_main; this binary has its own main, so sc_main is never run.
int sc_main(int, char**) {
  return 0;
}
