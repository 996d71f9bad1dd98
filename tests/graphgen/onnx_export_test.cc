// lightsim-graph's models written as ONNX (ir/onnx/onnx_writer.h) and imported back: the same op classes,
// MACs and bytes as their TVM form; the ONNX file passes libonnx's checker. And the real GPT-2 export
// (PyTorch's exporter, opset 18) against lightsim-graph --model gpt2 --seq 64 (issue 26).
#include "ir/error.h"
#include "ir/onnx/onnx_import.h"
#include "ir/onnx/onnx_writer.h"
#include "ir/partition/tensor_parallel.h"
#include "ir/tvm/tvm_import.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <sstream>

namespace lightsim::test {
namespace {

using ir::Graph;
using ir::OpClass;
using ir::graphgen::Phase;

Graph tvm_form(const ir::graphgen::GraphRequest& r) {
  return ir::import_tvm_graph_text(generate_json_text(r), "tvm.json").graph;
}

struct RoundTrip {
  Graph tvm, onnx;
  std::string bytes;
};

RoundTrip round_trip(const ir::graphgen::GraphRequest& r) {
  RoundTrip t;
  t.tvm = tvm_form(r);
  std::ostringstream out;
  ir::write_onnx_graph(t.tvm, out);
  t.bytes = out.str();
  t.onnx = ir::import_onnx_bytes(t.bytes, "m.onnx").graph;
  return t;
}

std::vector<const ir::Op*> compute_ops(const Graph& g) {
  std::vector<const ir::Op*> ops;
  for (const ir::Op& op : g.ops)
    if (op.op_class != OpClass::Input) ops.push_back(&op);
  return ops;
}

// Bytes of the inputs and weights, each name once (the ONNX import gives each reader of a small shared
// constant its own copy, under the constant's name).
double param_bytes(const Graph& g) {
  std::map<std::string, double> bytes;
  for (const ir::Op& op : g.ops)
    if (op.op_class == OpClass::Input)
      bytes[op.name] = static_cast<double>(g.tensors[static_cast<std::size_t>(op.outputs[0])].bytes);
  double total = 0;
  for (const auto& [name, b] : bytes)
    total += b;
  return total;
}

class OnnxRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(OnnxRoundTrip, SameClassesMacsAndBytesAsTheTvmForm) {
  const std::string model = GetParam();
  const bool image = model == "resnet18" || model == "mobilenet-v2" || model == "vit-b16";
  ir::graphgen::GraphRequest r = request(model, Phase::Prefill,
                                         image                       ? 0
                                         : model.starts_with("bert") ? 16
                                                                     : 8);
  if (model != "resnet18" && model != "mobilenet-v2") r.layers = 2;
  const RoundTrip t = round_trip(r);
  const auto a = compute_ops(t.tvm), b = compute_ops(t.onnx);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i]->name + " (" + a[i]->func_name + ")");
    EXPECT_EQ(a[i]->op_class, b[i]->op_class);
    EXPECT_DOUBLE_EQ(a[i]->features.macs, b[i]->features.macs);
    EXPECT_DOUBLE_EQ(a[i]->features.bytes_out, b[i]->features.bytes_out);
    EXPECT_DOUBLE_EQ(a[i]->features.bytes_read, b[i]->features.bytes_read);
  }
  EXPECT_DOUBLE_EQ(param_bytes(t.tvm), param_bytes(t.onnx));
  // The file is valid ONNX by libonnx's checker (opset 17, which it knows), beside an (empty) weights file
  // for the external references to point to.
  const std::string dir = temp_dir();
  std::ofstream(dir + "/m.onnx", std::ios::binary) << t.bytes;
  std::ofstream(dir + "/weights.bin").put('\0');
  EXPECT_NO_THROW(::onnx::checker::check_model(dir + "/m.onnx"));
}

INSTANTIATE_TEST_SUITE_P(Models, OnnxRoundTrip,
                         ::testing::Values("gpt2", "llama2-7b", "bert-base", "resnet18", "mobilenet-v2",
                                           "vit-b16"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           std::string n = p.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// GEMM shapes (batch, m, n, k) of every GEMM-like op, in graph order.
std::vector<std::array<std::int64_t, 4>> gemms(const Graph& g) {
  std::vector<std::array<std::int64_t, 4>> out;
  for (const ir::Op& op : g.ops)
    if (ir::is_gemm_like(op.op_class)) {
      const ir::OpFeatures& f = op.features;
      out.push_back({f.gemm_batch, f.gemm_m, std::min(f.gemm_n, f.gemm_k), std::max(f.gemm_n, f.gemm_k)});
    }
  std::sort(out.begin(), out.end());
  return out;
}

double total_macs(const Graph& g) {
  double macs = 0;
  for (const ir::Op& op : g.ops)
    macs += op.features.macs;
  return macs;
}

TEST(OnnxGpt2, RealExportAgreesWithLightsimGraphOnMacsAndGemmShapes) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph onnx = ir::import_onnx_file(model_path("onnx/gpt2_s64.onnx")).graph;
  const Graph tvm = tvm_form(request("gpt2", Phase::Prefill, 64));
  const double a = total_macs(onnx), b = total_macs(tvm);
  EXPECT_NEAR(a / b, 1.0, 0.005) << "onnx " << a << " lightsim-graph " << b;
  std::printf("GPT-2 s64 MACs: ONNX export %.6g, lightsim-graph %.6g (ratio %.6f)\n", a, b, a / b);
  EXPECT_EQ(gemms(onnx), gemms(tvm)); // one for one: 48 projections, 24 attention products, the LM head
  EXPECT_EQ(gemms(onnx).size(), 12u * 6 + 1);
  std::map<OpClass, int> onnx_classes, tvm_classes;
  for (const ir::Op& op : onnx.ops)
    ++onnx_classes[op.op_class];
  for (const ir::Op& op : tvm.ops)
    ++tvm_classes[op.op_class];
  EXPECT_EQ(onnx_classes[OpClass::LayerNorm], 25); // one op each, where TVM's form decomposes them
  EXPECT_EQ(tvm_classes[OpClass::LayerNorm], 0);
  EXPECT_EQ(onnx_classes[OpClass::Softmax], tvm_classes[OpClass::Softmax]);
}

// `lightsim --tp 2` on the real ONNX export (ir/partition/tensor_parallel.h): the same GEMMs, MACs and
// all-reduces as lightsim-graph's shard (--tensor-parallel 2 --all-reduces), though the exporters differ.
TEST(OnnxGpt2, RealExportShardsAsLightsimGraphsShard) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph onnx =
      ir::shard_tensor_parallel(ir::import_onnx_file(model_path("onnx/gpt2_s64.onnx")).graph, 2);
  ir::graphgen::GraphRequest r = request("gpt2", Phase::Prefill, 64);
  r.tensor_parallel = 2;
  r.all_reduces = true;
  const Graph tvm = tvm_form(r);
  EXPECT_NEAR(total_macs(onnx) / total_macs(tvm), 1.0, 0.005);
  EXPECT_EQ(gemms(onnx), gemms(tvm));
  const auto all_reduces = [](const Graph& g) {
    return std::count_if(g.ops.begin(), g.ops.end(),
                         [](const ir::Op& op) { return op.op_class == OpClass::AllReduce; });
  };
  EXPECT_EQ(all_reduces(onnx), 2 * 12 + 1);
  EXPECT_EQ(all_reduces(onnx), all_reduces(tvm));
}

} // namespace
} // namespace lightsim::test
