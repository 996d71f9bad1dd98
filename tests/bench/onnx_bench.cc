// ONNX import against TVM JSON import of the same model (issue 26): Llama-2-7B prefill at 4096 tokens,
// written once per process by lightsim-graph's builders as TVM JSON and as ONNX (ir/onnx/onnx_writer.h);
// BM_ImportTvm and BM_ImportOnnx import each file; BM_ImportOnnx reports onnx_over_tvm, the ratio of the
// median CPU times of one import (goal: at most 1).
// BM_ImportOnnxEmbedded500MB imports a generated model whose weights (500 MB) are embedded in the file
// (goal: under 2 s); the file is written once to $TMPDIR (LIGHTSIM_BIG_ONNX names it to keep it, e.g. to
// measure a whole lightsim run's peak memory with /usr/bin/time -v), never committed.
//   build/tests/bench/onnx_bench [--benchmark_filter=...]
#include "ir/graphgen/builder.h"
#include "ir/graphgen/tvm_lower.h"
#include "ir/graphgen/tvm_writer.h"
#include "ir/onnx/onnx_import.h"
#include "ir/onnx/onnx_writer.h"
#include "ir/tvm/tvm_import.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <onnx/onnx_pb.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace lightsim::ir;

double cpu_seconds() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; // this process's CPU time
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))).string();
}

struct Files {
  std::string tvm, onnx;
  Files() : tvm(temp_path("llama7b-4096.json")), onnx(temp_path("llama7b-4096.onnx")) {
    graphgen::GraphRequest r;
    r.model = graphgen::builtin_model("llama2-7b");
    r.phase = graphgen::Phase::Prefill;
    r.seq = 4096;
    std::ostringstream text;
    graphgen::write_tvm_graph(graphgen::lower_to_tvm(graphgen::build_model_graph(r)), text);
    std::ofstream(tvm) << text.str();
    std::ofstream out(onnx, std::ios::binary);
    write_onnx_graph(import_tvm_graph_text(text.str(), tvm).graph, out);
  }
  ~Files() {
    std::filesystem::remove(tvm);
    std::filesystem::remove(onnx);
  }
};

const Files& files() {
  static const Files f;
  return f;
}

std::vector<double> tvm_times, onnx_times;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void BM_ImportTvm(benchmark::State& state) {
  const std::string& path = files().tvm;
  for (auto _ : state) {
    const double start = cpu_seconds();
    ImportResult r = import_tvm_graph_file(path);
    tvm_times.push_back(cpu_seconds() - start);
    benchmark::DoNotOptimize(r.graph.ops.size());
  }
}
BENCHMARK(BM_ImportTvm)->Unit(benchmark::kMillisecond);

void BM_ImportOnnx(benchmark::State& state) {
  const std::string& path = files().onnx;
  for (auto _ : state) {
    const double start = cpu_seconds();
    ImportResult r = import_onnx_file(path);
    onnx_times.push_back(cpu_seconds() - start);
    benchmark::DoNotOptimize(r.graph.ops.size());
  }
  state.counters["onnx_over_tvm"] = median(onnx_times) / std::max(median(tvm_times), 1e-12);
  state.counters["tvm_ms"] = 1e3 * median(tvm_times);
}
BENCHMARK(BM_ImportOnnx)->Unit(benchmark::kMillisecond);

// 125 GEMMs of 1024 x 1024 float weights (4 MiB each, embedded as raw_data): 500 MiB of weights.
std::string big_model() {
  const char* keep = std::getenv("LIGHTSIM_BIG_ONNX");
  const std::string path = keep ? keep : temp_path("embedded-500mb.onnx");
  if (std::filesystem::exists(path)) return path;
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x0");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  for (std::int64_t d : {64, 1024})
    in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  const std::string weights(std::size_t{1024} * 1024 * 4, '\x01');
  const auto value = [](const char* prefix, int i) { // (GCC 12's -Wrestrict misfires on "x" + to_string)
    std::string name = prefix;
    name += std::to_string(i);
    return name;
  };
  for (int i = 0; i < 125; ++i) {
    auto* w = g->add_initializer();
    w->set_name(value("w", i));
    w->set_data_type(::onnx::TensorProto::FLOAT);
    w->add_dims(1024);
    w->add_dims(1024);
    w->set_raw_data(weights);
    auto* n = g->add_node();
    n->set_op_type("MatMul");
    n->set_name(value("mm", i));
    n->add_input(value("x", i));
    n->add_input(w->name());
    n->add_output(value("x", i + 1));
  }
  g->add_output()->set_name("x125");
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
  return path;
}

void BM_ImportOnnxEmbedded500MB(benchmark::State& state) {
  const std::string path = big_model();
  for (auto _ : state) {
    ImportResult r = import_onnx_file(path);
    benchmark::DoNotOptimize(r.graph.ops.size());
  }
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  if (!std::getenv("LIGHTSIM_BIG_ONNX")) std::filesystem::remove(path);
}
BENCHMARK(BM_ImportOnnxEmbedded500MB)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace

BENCHMARK_MAIN();
