// Tensor-parallel sharding of imported graphs (ir/partition/tensor_parallel.h, issue 23): one shard of a
// real TVM export (Llama-2-7B and GPT-2, prefill and decode) is op for op the shard lightsim-graph writes
// with --tensor-parallel T --all-reduces (same op classes, shapes and dtypes in the same order, the same
// inputs, weights and KV cache, the same MACs and bytes), whose own structure is checked against Megatron-LM
// in tests/cli/tensor_parallel_test.cc; a degree that does not divide the heads, a graph that is a shard
// already and one with nothing to divide are refused in one line.
#include "ir/error.h"
#include "ir/partition/tensor_parallel.h"
#include "ir/tvm/tvm_import.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/ir/tvm_snippet.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <sstream>

namespace lightsim::ir {
namespace {

using graphgen::Phase;

std::string shape_key(const Graph& g, TensorId t) {
  const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
  std::ostringstream s;
  s << dtype_name(tensor.dtype) << "[";
  for (std::int64_t e : tensor.shape)
    s << e << ",";
  s << "]";
  return s.str();
}

// One line per op in graph order: its class, its inputs' and outputs' shapes and dtypes; inputs and weights
// say whether they are parameters or model state.
std::vector<std::string> signature(const Graph& g) {
  std::vector<std::string> lines;
  for (const Op& op : g.ops) {
    std::ostringstream line;
    line << op_class_name(op.op_class);
    if (op.op_class == OpClass::Input) line << (op.is_param ? " param" : op.is_state ? " state" : " input");
    for (TensorId t : op.inputs)
      line << ' ' << shape_key(g, t);
    line << " ->";
    for (TensorId t : op.outputs)
      line << ' ' << shape_key(g, t);
    if (op.attrs && op.attrs->num_workers) line << " workers " << op.attrs->num_workers;
    lines.push_back(line.str());
  }
  return lines;
}

// Compute ops in order, and inputs / weights as a sorted list (the generator may write them elsewhere).
struct Signature {
  std::vector<std::string> compute, inputs, heads;
};
Signature split_signature(const Graph& g) {
  Signature s;
  const std::vector<std::string> all = signature(g);
  for (std::size_t i = 0; i < g.ops.size(); ++i)
    (g.ops[i].op_class == OpClass::Input ? s.inputs : s.compute).push_back(all[i]);
  std::sort(s.inputs.begin(), s.inputs.end());
  for (TensorId h : g.heads)
    s.heads.push_back(shape_key(g, h));
  return s;
}

struct Totals {
  double macs = 0, bytes_read = 0, bytes_out = 0;
  int all_reduces = 0;
};
Totals totals(const Graph& g) {
  Totals t;
  for (const Op& op : g.ops) {
    t.macs += op.features.macs;
    t.bytes_read += op.features.bytes_read;
    t.bytes_out += op.features.bytes_out;
    t.all_reduces += op.op_class == OpClass::AllReduce;
  }
  return t;
}

// A real export (`file`), or lightsim-graph's whole model where there is none (Llama-2-70B's grouped-query
// attention, cut to `layers` layers).
struct ExportCase {
  std::string file, model;
  Phase phase;
  std::int64_t seq, past, degree, layers;
};

std::ostream& operator<<(std::ostream& os, const ExportCase& c) {
  return os << (c.file.empty() ? c.model : c.file) << " T=" << c.degree;
}

class ShardOfExport : public ::testing::TestWithParam<ExportCase> {};

TEST_P(ShardOfExport, IsTheShardLightsimGraphWrites) {
  const ExportCase& c = GetParam();
  graphgen::GraphRequest r = test::request(c.model, c.phase, c.seq);
  if (c.past > 0) r.past = c.past;
  if (c.file.empty()) r.layers = c.layers;
  Graph exported;
  if (c.file.empty()) {
    exported = import_tvm_graph(test::generate_json(r), "whole.json").graph;
  } else {
    LIGHTSIM_NEED_SHARED_MODELS();
    exported = import_tvm_graph_file(test::model_path(c.file)).graph;
  }
  const Graph shard = shard_tensor_parallel(exported, c.degree);

  r.tensor_parallel = c.degree;
  r.all_reduces = true;
  const Graph written = import_tvm_graph(test::generate_json(r), "written.json").graph;

  const Signature got = split_signature(shard), want = split_signature(written);
  ASSERT_EQ(got.compute.size(), want.compute.size());
  for (std::size_t i = 0; i < want.compute.size(); ++i)
    ASSERT_EQ(got.compute[i], want.compute[i]) << "compute op " << i;
  EXPECT_EQ(got.inputs, want.inputs);
  EXPECT_EQ(got.heads, want.heads);

  const Totals a = totals(shard), b = totals(written), whole = totals(exported);
  EXPECT_EQ(a.macs, b.macs);
  EXPECT_EQ(a.bytes_read, b.bytes_read);
  EXPECT_EQ(a.bytes_out, b.bytes_out);
  EXPECT_EQ(a.all_reduces, 2 * c.layers + 1); // two per layer and the embedding's
  EXPECT_LT(a.macs, whole.macs / static_cast<double>(c.degree) * 1.01);
}

INSTANTIATE_TEST_SUITE_P(
    Exports, ShardOfExport,
    ::testing::Values(ExportCase{"llama2_7b_prefill.json", "llama2-7b", Phase::Prefill, 10, 0, 2, 32},
                      ExportCase{"llama2_7b_prefill.json", "llama2-7b", Phase::Prefill, 10, 0, 8, 32},
                      ExportCase{"llama2_7b_decoder.json", "llama2-7b", Phase::Decode, 11, 10, 4, 32},
                      ExportCase{"gpt2_prefill_5.json", "gpt2", Phase::Prefill, 5, 0, 4, 12},
                      ExportCase{"gpt2_decoder_5.json", "gpt2", Phase::Decode, 6, 5, 2, 12},
                      ExportCase{"", "llama2-70b", Phase::Prefill, 16, 0, 8, 2},
                      ExportCase{"", "llama2-70b", Phase::Decode, 17, 16, 8, 2}));

std::string shard_error(const Graph& g, std::int64_t degree) {
  try {
    shard_tensor_parallel(g, degree);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ShardOfExport, DegreeThatDoesNotDivideTheHeadsIsOneLine) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph g = import_tvm_graph_file(test::model_path("llama2_7b_prefill.json")).graph;
  const std::string e = shard_error(g, 3);
  EXPECT_NE(e.find("--tp 3: does not divide the 4096 of axis 0 of [4096, 4096]"), std::string::npos) << e;
  EXPECT_NE(e.find("attention heads"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_NE(shard_error(g, 0).find("--tp 0: must be at least 1"), std::string::npos);
  EXPECT_EQ(shard_tensor_parallel(g, 1).ops.size(), g.ops.size());
}

TEST(ShardOfExport, AShardIsNotShardedAgain) {
  graphgen::GraphRequest r = test::request("llama2-7b", Phase::Prefill, 10);
  r.layers = 1;
  r.tensor_parallel = 2;
  r.all_reduces = true;
  const Graph written = import_tvm_graph(test::generate_json(r), "shard.json").graph;
  EXPECT_NE(shard_error(written, 2).find("the graph has collectives already"), std::string::npos);
}

TEST(ShardOfExport, NothingToDivideIsOneLine) {
  test::TvmSnippet s;
  const int x = s.input("x", {8, 64}, "float32");
  const int w = s.input("w", {64, 64}, "float32");
  const int y = s.op("proj", "tvmgen_default_fused_nn_dense", {{x, 0}, {w, 0}}, {{{8, 64}, "float32"}});
  s.op("act", "tvmgen_default_fused_tanh", {{y, 0}}, {{{8, 64}, "float32"}});
  const Graph g = import_tvm_graph(s.to_json(), "one_dense.json").graph;
  EXPECT_NE(shard_error(g, 2).find("one_dense.json: --tp 2: the graph has no projection to divide"),
            std::string::npos)
      << shard_error(g, 2);
}

} // namespace
} // namespace lightsim::ir
