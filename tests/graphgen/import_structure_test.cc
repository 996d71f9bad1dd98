// Generated graphs read through lightsim's own importer (ir/tvm/tvm_import.h) are structurally the real TVM
// exports: same number of ops, same multiset of (op class, output shapes, dtypes), same func_name counts,
// same dependency structure up to renumbering (canonical ancestor / descendant labels, compared as sorted
// multisets), same features; and lightsim's results (ops per unit, makespan, energy) on them match.
// Graphs with no real counterpart (llama2-70b, other lengths) import cleanly with every op classified.
#include "ir/graphgen/tvm_writer.h"
#include "ir/tvm/tvm_import.h"
#include "sim/driver/pipeline.h"
#include "sim/io/atomic_file.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <map>

namespace lightsim {
namespace {

using namespace ir::graphgen;

std::string write_generated(const GraphRequest& r, const std::string& name) {
  const std::string path = test::temp_dir() + "/" + name;
  const test::Generated g = test::generate(r);
  write_file_atomically(path, "graph", [&](std::ostream& out) { write_tvm_graph(g.lowered, out); });
  return path;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  return (h ^ v) * 0x100000001b3ULL + (h >> 29);
}

std::uint64_t op_label(const ir::Graph& g, const ir::Op& op) {
  std::uint64_t h = mix(0xcbf29ce484222325ULL, static_cast<std::uint64_t>(op.op_class));
  for (ir::TensorId t : op.outputs) {
    h = mix(h, static_cast<std::uint64_t>(g.tensors[t].dtype));
    for (std::int64_t d : g.tensors[t].shape)
      h = mix(h, static_cast<std::uint64_t>(d));
    h = mix(h, 0xff);
  }
  return h;
}

// Canonical labels: per op, its own label combined with the sorted labels of its producers (with the
// output index read), in topological order, so a label describes the op's whole ancestry; then the same
// over consumers in reverse order for the descendants. Renumbering ops changes neither multiset.
std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>> canonical_labels(const ir::Graph& g) {
  const std::size_t n = g.ops.size();
  std::vector<std::uint64_t> up(n), down(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::uint64_t> parents;
    for (ir::TensorId t : g.ops[i].inputs)
      parents.push_back(
          mix(up[g.tensors[t].producer], static_cast<std::uint64_t>(g.tensors[t].output_index)));
    std::sort(parents.begin(), parents.end());
    std::uint64_t h = op_label(g, g.ops[i]);
    for (std::uint64_t p : parents)
      h = mix(h, p);
    up[i] = h;
  }
  for (std::size_t i = n; i-- > 0;) {
    std::vector<std::uint64_t> children;
    for (std::size_t k = 0; k < g.ops[i].outputs.size(); ++k)
      for (ir::OpId c : g.consumers[g.ops[i].outputs[k]])
        children.push_back(mix(down[c], k));
    std::sort(children.begin(), children.end());
    std::uint64_t h = up[i];
    for (std::uint64_t c : children)
      h = mix(h, c);
    down[i] = h;
  }
  std::sort(up.begin(), up.end());
  std::sort(down.begin(), down.end());
  return {up, down};
}

using OpKey = std::tuple<ir::OpClass, std::vector<std::vector<std::int64_t>>, std::vector<ir::DType>>;

std::map<OpKey, int> op_multiset(const ir::Graph& g) {
  std::map<OpKey, int> m;
  for (const ir::Op& op : g.ops) {
    OpKey key{op.op_class, {}, {}};
    for (ir::TensorId t : op.outputs) {
      std::get<1>(key).push_back(g.tensors[t].shape);
      std::get<2>(key).push_back(g.tensors[t].dtype);
    }
    ++m[key];
  }
  return m;
}

std::map<std::string, int> func_counts(const ir::Graph& g) {
  std::map<std::string, int> m;
  for (const ir::Op& op : g.ops)
    ++m[op.func_name];
  return m;
}

void expect_same_structure(const GraphRequest& r, const std::string& file) {
  const ir::Graph real = ir::import_tvm_graph_file(test::model_path(file)).graph;
  const ir::Graph gen = ir::import_tvm_graph_file(write_generated(r, file)).graph;
  EXPECT_EQ(gen.num_compute_ops(), real.num_compute_ops());
  EXPECT_EQ(gen.ops.size(), real.ops.size());
  EXPECT_EQ(op_multiset(gen), op_multiset(real));
  EXPECT_EQ(func_counts(gen), func_counts(real));
  EXPECT_EQ(canonical_labels(gen), canonical_labels(real));
  double macs_gen = 0, macs_real = 0, bytes_gen = 0, bytes_real = 0;
  for (const ir::Op& op : gen.ops)
    macs_gen += op.features.macs, bytes_gen += op.features.bytes_out;
  for (const ir::Op& op : real.ops)
    macs_real += op.features.macs, bytes_real += op.features.bytes_out;
  EXPECT_EQ(macs_gen, macs_real);
  EXPECT_EQ(bytes_gen, bytes_real);
}

TEST(ImportStructure, Gpt2Prefill5) {
  LIGHTSIM_NEED_SHARED_MODELS();
  expect_same_structure(test::request("gpt2", Phase::Prefill, 5), "gpt2_prefill_5.json");
}

TEST(ImportStructure, Gpt2Decode5PlusOne) {
  LIGHTSIM_NEED_SHARED_MODELS();
  expect_same_structure(test::request("gpt2", Phase::Decode, 6), "gpt2_decoder_5.json");
}

TEST(ImportStructure, Llama2_7bPrefill10) {
  LIGHTSIM_NEED_SHARED_MODELS();
  expect_same_structure(test::request("llama2-7b", Phase::Prefill, 10), "llama2_7b_prefill.json");
}

TEST(ImportStructure, Llama2_7bDecode10PlusOne) {
  LIGHTSIM_NEED_SHARED_MODELS();
  expect_same_structure(test::request("llama2-7b", Phase::Decode, 11), "llama2_7b_decoder.json");
}

TEST(ImportStructure, LabelsSeeRewiring) {
  // The comparison must fail when one dependency is rewired.
  LIGHTSIM_NEED_SHARED_MODELS();
  ir::Graph gen =
      ir::import_tvm_graph_file(write_generated(test::request("gpt2", Phase::Prefill, 5), "g.json")).graph;
  const auto before = canonical_labels(gen);
  for (ir::Op& op : gen.ops)
    if (op.op_class == ir::OpClass::Softmax) {
      const ir::TensorId in = op.inputs[0];
      // Feed the first softmax from the last argument of its producer (the where's fill value) instead.
      op.inputs[0] = gen.ops[gen.tensors[in].producer].inputs.back();
      break;
    }
  gen.finalize();
  EXPECT_NE(canonical_labels(gen), before);
}

TEST(ImportStructure, GeneratedModelsImportCleanly) {
  for (const char* model : {"gpt2-medium", "llama2-13b", "llama2-70b"})
    for (Phase phase : {Phase::Prefill, Phase::Decode}) {
      GraphRequest r = test::request(model, phase, 37, 2);
      r.layers = 2;
      const ir::ImportResult result = ir::import_tvm_graph_file(write_generated(r, "m.json"));
      EXPECT_TRUE(result.warnings.empty()) << model;
      for (const ir::Op& op : result.graph.ops)
        EXPECT_NE(op.op_class, ir::OpClass::Opaque) << op.func_name;
      // The importer's MAC count agrees with the generator's.
      const test::Macs m = test::count_macs(test::generate(r), r.model.ffn, r.model.vocab);
      double macs = 0;
      for (const ir::Op& op : result.graph.ops)
        macs += op.features.macs;
      EXPECT_DOUBLE_EQ(macs, m.attention + m.ffn + m.lm_head) << model;
    }
}

// lightsim's results on a generated graph equal those on the real export (issue 3: within 0.1%).
void expect_same_results(const GraphRequest& r, const std::string& file, const std::string& config) {
  PipelineOptions real_opts{test::source_path("configs/" + config), test::model_path(file)};
  PipelineOptions gen_opts{test::source_path("configs/" + config), write_generated(r, file)};
  const Pipeline real(real_opts), gen(gen_opts);
  const sched::Schedule& a = real.schedule();
  const sched::Schedule& b = gen.schedule();
  EXPECT_NEAR(b.makespan_s, a.makespan_s, 1e-3 * a.makespan_s);
  EXPECT_NEAR(b.energy_j, a.energy_j, 1e-3 * a.energy_j);
  auto per_unit = [](const Pipeline& p) {
    std::map<int, int> m;
    for (std::size_t op = 0; op < p.graph().ops.size(); ++op)
      if (p.graph().ops[op].op_class != ir::OpClass::Input) ++m[p.flat().unit_of(static_cast<ir::OpId>(op))];
    return m;
  };
  EXPECT_EQ(per_unit(gen), per_unit(real));
}

TEST(ImportStructure, SameResultsAsRealExportsOnPhotonic) {
  LIGHTSIM_NEED_SHARED_MODELS();
  expect_same_results(test::request("gpt2", Phase::Prefill, 5), "gpt2_prefill_5.json", "photonic.json");
  expect_same_results(test::request("llama2-7b", Phase::Decode, 11), "llama2_7b_decoder.json",
                      "photonic.json");
}

TEST(ImportStructure, SameResultsAsRealExportsOnLightcode) {
  LIGHTSIM_NEED_SHARED_MODELS();
  expect_same_results(test::request("gpt2", Phase::Decode, 6), "gpt2_decoder_5.json", "lightcode.json");
  expect_same_results(test::request("llama2-7b", Phase::Prefill, 10), "llama2_7b_prefill.json",
                      "lightcode.json");
}

} // namespace
} // namespace lightsim
