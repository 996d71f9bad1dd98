// lightsim-graph's vLLM-style fused projections (--merge-projections) and Megatron tensor-parallel shards
// (--tensor-parallel T): the GEMMs have the fused / sharded shapes, the MACs are those of the unfused
// graph (divided by T), the graphs import as valid TVM JSON, and a T that does not divide the heads, kv
// heads or FFN is refused with one line.
#include "ir/error.h"
#include "ir/graphgen/tvm_writer.h"
#include "ir/tvm/tvm_import.h"
#include "sim/io/atomic_file.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace lightsim {
namespace {

using namespace ir::graphgen;
using Shape = std::vector<std::int64_t>;

struct Gemm {
  bool dense;
  Shape a, b; // input shapes
};

std::vector<Gemm> gemms(const test::Generated& g) {
  std::vector<Gemm> out;
  const TvmGraph& t = g.lowered;
  for (const TvmNode& n : t.nodes) {
    if (n.is_null) continue;
    const bool dense = n.func_name.find("nn_dense") != std::string::npos;
    if (!dense && n.func_name.find("nn_batch_matmul") == std::string::npos) continue;
    out.push_back({dense, t.entry_type(n.inputs[0].node, n.inputs[0].index).shape,
                   t.entry_type(n.inputs[1].node, n.inputs[1].index).shape});
  }
  return out;
}

double macs(const std::vector<Gemm>& gs) {
  double m = 0;
  for (const Gemm& g : gs)
    m += g.dense ? static_cast<double>(g.a[0] * g.b[0] * g.a[1])
                 : static_cast<double>(g.a[0] * g.a[1] * g.b[1] * g.a[2]);
  return m;
}

// Weight shapes of the dense ops, in node order.
std::vector<Shape> dense_weights(const std::vector<Gemm>& gs) {
  std::vector<Shape> w;
  for (const Gemm& g : gs)
    if (g.dense) w.push_back(g.b);
  return w;
}

GraphRequest llama(const std::string& model, std::int64_t seq, bool merge, std::int64_t tp) {
  GraphRequest r = test::request(model, Phase::Prefill, seq);
  r.layers = 1;
  r.merge_projections = merge;
  r.tensor_parallel = tp;
  return r;
}

void imports_cleanly(const GraphRequest& r, const std::string& name) {
  const std::string path = test::temp_dir() + "/" + name;
  const test::Generated g = test::generate(r);
  write_file_atomically(path, "graph", [&](std::ostream& out) { write_tvm_graph(g.lowered, out); });
  const ir::ImportResult imported = ir::import_tvm_graph_file(path);
  EXPECT_TRUE(imported.warnings.empty());
  EXPECT_GT(imported.graph.num_compute_ops(), 0u);
}

TEST(MergedProjections, LlamaQkvAndGateUpAreOneDenseEach) {
  const std::vector<Gemm> merged = gemms(test::generate(llama("llama2-7b", 32, true, 1)));
  const std::vector<Gemm> plain = gemms(test::generate(llama("llama2-7b", 32, false, 1)));
  // QKV 4096 -> 12288, output 4096 -> 4096, gate+up 4096 -> 22016, down 11008 -> 4096, LM head.
  EXPECT_EQ(dense_weights(merged),
            (std::vector<Shape>{{12288, 4096}, {4096, 4096}, {22016, 4096}, {4096, 11008}, {32000, 4096}}));
  EXPECT_EQ(dense_weights(plain).size(), 8u);
  EXPECT_DOUBLE_EQ(macs(merged), macs(plain)); // the same work, fewer and larger GEMMs
  const std::string text = test::generate_json_text(llama("llama2-7b", 32, true, 1));
  EXPECT_NE(text.find("fused_split"), std::string::npos); // split apart again after each fused GEMM
  imports_cleanly(llama("llama2-7b", 32, true, 1), "merged.json");
}

TEST(MergedProjections, GroupedQueryAttentionSlicesUnequalParts) {
  // llama2-70b: 64 query heads, 8 kv heads of 128: QKV 8192 -> 8192 + 2 x 1024, sliced by strided slices.
  const std::vector<Gemm> merged = gemms(test::generate(llama("llama2-70b", 8, true, 1)));
  EXPECT_EQ(dense_weights(merged).front(), (Shape{10240, 8192}));
  EXPECT_DOUBLE_EQ(macs(merged), macs(gemms(test::generate(llama("llama2-70b", 8, false, 1)))));
  imports_cleanly(llama("llama2-70b", 8, true, 1), "merged_gqa.json");
}

TEST(TensorParallel, LlamaShardShapesAndMacs) {
  const double full = macs(gemms(test::generate(llama("llama2-7b", 256, true, 1))));
  for (std::int64_t t : {2, 4, 8}) {
    SCOPED_TRACE("T = " + std::to_string(t));
    const std::vector<Gemm> g = gemms(test::generate(llama("llama2-7b", 256, true, t)));
    // Column-parallel: n / T (QKV, gate+up, LM head); row-parallel: k / T (output, down).
    EXPECT_EQ(
        dense_weights(g),
        (std::vector<Shape>{
            {12288 / t, 4096}, {4096, 4096 / t}, {22016 / t, 4096}, {4096, 11008 / t}, {32000 / t, 4096}}));
    for (const Gemm& x : g) {
      if (!x.dense) {
        EXPECT_EQ(x.a[0], 32 / t); // attention over this shard's heads
      }
    }
    EXPECT_DOUBLE_EQ(macs(g) * static_cast<double>(t), full);
    imports_cleanly(llama("llama2-7b", 256, true, t), "tp" + std::to_string(t) + ".json");
  }
}

TEST(TensorParallel, Gpt2ShardsItsFusedQkvAndFfn) {
  GraphRequest r = test::request("gpt2", Phase::Prefill, 16);
  r.layers = 1;
  r.tensor_parallel = 4;
  const std::vector<Gemm> g = gemms(test::generate(r));
  EXPECT_EQ(
      dense_weights(g),
      (std::vector<Shape>{{2304 / 4, 768}, {768, 768 / 4}, {3072 / 4, 768}, {768, 3072 / 4}, {12565, 768}}));
  // (The vocabulary, 50257, is padded to a multiple of 4: 4 x 12565.)
}

TEST(TensorParallel, MustDivideHeadsFfnAndVocabulary) {
  auto error = [](GraphRequest r) {
    try {
      test::generate(r);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(llama("llama2-7b", 8, true, 3))
                .find("--tensor-parallel 3 does not divide the 32 attention heads"),
            std::string::npos);
  EXPECT_NE(error(llama("llama2-7b", 8, true, 0)).find("--tensor-parallel must be positive"),
            std::string::npos);
  EXPECT_NE(error(llama("llama2-70b", 8, true, 16)).find("does not divide the 8 key/value heads"),
            std::string::npos);
}

} // namespace
} // namespace lightsim
