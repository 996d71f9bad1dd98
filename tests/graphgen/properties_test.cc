// Properties of generated graphs where no real export exists: determinism, valid storage plans, the
// grouped-query attention of llama2-70b, --config equivalence, --dtype, --batch and --layers.
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <map>

namespace lightsim {
namespace {

using namespace ir::graphgen;

TEST(Properties, Deterministic) {
  GraphRequest r = test::request("llama2-70b", Phase::Decode, 33);
  r.layers = 3;
  EXPECT_EQ(test::generate_json_text(r), test::generate_json_text(r));
}

// No two entries that are live at the same time share a storage id (reshapes alias their input, as in
// TVM); inputs, constants and outputs keep their storage to the end.
void expect_valid_storage(const test::Generated& g) {
  const TvmGraph& t = g.lowered;
  const std::size_t entries = t.storage_id.size();
  std::vector<std::int64_t> first(entries), last(entries);
  std::vector<std::int64_t> root(entries); // entry whose buffer this entry is (reshape aliasing)
  for (std::size_t n = 0; n < t.nodes.size(); ++n)
    for (std::int64_t e = t.node_row_ptr[n]; e < t.node_row_ptr[n + 1]; ++e) {
      first[e] = last[e] = static_cast<std::int64_t>(n);
      root[e] = e;
      if (t.nodes[n].is_null) last[e] = static_cast<std::int64_t>(t.nodes.size());
      if (t.nodes[n].func_name == "__nop") {
        const TvmEntryRef in = t.nodes[n].inputs[0];
        root[e] = root[t.node_row_ptr[in.node] + in.index];
        EXPECT_EQ(t.storage_id[e], t.storage_id[root[e]]) << "reshape node " << n;
      }
    }
  for (std::size_t n = 0; n < t.nodes.size(); ++n)
    for (const TvmEntryRef& in : t.nodes[n].inputs) {
      const std::int64_t r = root[t.node_row_ptr[in.node] + in.index];
      last[r] = std::max(last[r], static_cast<std::int64_t>(n));
    }
  for (const TvmEntryRef& h : t.heads)
    last[root[t.node_row_ptr[h.node] + h.index]] = static_cast<std::int64_t>(t.nodes.size());
  // Per storage id, the live ranges of distinct buffers must not overlap.
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> ranges;
  for (std::size_t e = 0; e < entries; ++e)
    if (root[e] == static_cast<std::int64_t>(e)) ranges[t.storage_id[e]].push_back({first[e], last[e]});
  for (auto& [sid, list] : ranges) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i)
      ASSERT_GE(list[i].first, list[i - 1].second) << "storage " << sid << " shared by overlapping buffers";
  }
}

TEST(Properties, StoragePlansAreValid) {
  for (const char* model : {"gpt2", "llama2-7b", "llama2-70b"})
    for (Phase phase : {Phase::Prefill, Phase::Decode}) {
      GraphRequest r = test::request(model, phase, 17, 2);
      r.layers = 3;
      SCOPED_TRACE(model);
      expect_valid_storage(test::generate(r));
    }
}

TEST(Properties, Llama70bGroupedQueryAttention) {
  GraphRequest r = test::request("llama2-70b", Phase::Decode, 100);
  r.layers = 2;
  const nlohmann::json doc = test::generate_json(r);
  const auto& shapes = doc["attrs"]["shape"][1];
  const auto& rows = doc["node_row_ptr"];
  // KV cache inputs and outputs hold the 8 kv heads; the attention matmuls see all 64 heads.
  EXPECT_EQ(doc["nodes"][1]["name"], "past_k_0");
  EXPECT_EQ(shapes[rows[1].get<int>()], nlohmann::json({1, 8, 99, 128}));
  for (std::size_t h = 1; h < doc["heads"].size(); ++h) {
    const int node = doc["heads"][h][0];
    EXPECT_EQ(shapes[rows[node].get<int>()], nlohmann::json({1, 8, 100, 128})) << "head " << h;
  }
  int repeats = 0, bmm = 0;
  for (std::size_t n = 0; n < doc["nodes"].size(); ++n) {
    const auto& node = doc["nodes"][n];
    if (node["op"] != "tvm_op") continue;
    const std::string func = node["attrs"]["func_name"];
    const auto& out = shapes[rows[n].get<int>()];
    if (func.find("concatenate") != std::string::npos && out == nlohmann::json({1, 8, 8, 100, 128})) {
      ++repeats;
      EXPECT_EQ(node["inputs"].size(), 8u);
    }
    if (func.find("nn_batch_matmul") != std::string::npos) {
      ++bmm;
      EXPECT_EQ(out[0], 64);
    }
  }
  EXPECT_EQ(repeats, 2 * 2); // k and v, per layer
  EXPECT_EQ(bmm, 2 * 2);
}

TEST(Properties, ConfigFileEqualsBuiltin) {
  const std::string path = test::temp_dir() + "/config.json";
  std::ofstream(path) << R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 32000,
    "rms_norm_eps": 1e-05, "_name_or_path": "meta-llama/Llama-2-7b-hf"})";
  GraphRequest from_file = test::request("llama2-7b", Phase::Prefill, 9);
  from_file.model = load_model_config(path);
  EXPECT_EQ(from_file.model.name, "meta-llama/Llama-2-7b-hf");
  EXPECT_EQ(test::generate_json_text(from_file),
            test::generate_json_text(test::request("llama2-7b", Phase::Prefill, 9)));

  std::ofstream(path)
      << R"({"n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "n_positions": 1024})";
  GraphRequest gpt = test::request("gpt2", Phase::Decode, 8);
  gpt.model = load_model_config(path);
  EXPECT_EQ(test::generate_json_text(gpt), test::generate_json_text(test::request("gpt2", Phase::Decode, 8)));
}

TEST(Properties, DtypeBatchAndLayers) {
  GraphRequest r = test::request("gpt2", Phase::Prefill, 6, 4);
  r.dtype = ir::DType::Float16;
  r.layers = 2;
  const nlohmann::json doc = test::generate_json(r);
  std::map<std::string, int> dtypes;
  for (const auto& t : doc["attrs"]["dltype"][1])
    ++dtypes[t.get<std::string>()];
  EXPECT_EQ(dtypes.count("float32"), 0u);
  EXPECT_GT(dtypes["float16"], 0);
  EXPECT_EQ(doc["attrs"]["shape"][1][0], nlohmann::json({4, 6})); // input_ids
  EXPECT_EQ(doc["heads"].size(), 1u + 2 * 2);
  const int logits = doc["heads"][0][0];
  EXPECT_EQ(doc["attrs"]["shape"][1][doc["node_row_ptr"][logits].get<int>()], nlohmann::json({4, 6, 50257}));
}

TEST(Properties, OpsPerLayerAreConstant) {
  // Every extra layer adds the same number of nodes (no length-dependent structure).
  auto nodes = [](const char* model, Phase phase, std::int64_t layers) {
    GraphRequest r = test::request(model, phase, 64);
    r.layers = layers;
    return static_cast<std::int64_t>(test::generate(r).lowered.nodes.size());
  };
  for (const char* model : {"gpt2", "llama2-7b", "llama2-70b"})
    for (Phase phase : {Phase::Prefill, Phase::Decode}) {
      const std::int64_t per_layer = nodes(model, phase, 2) - nodes(model, phase, 1);
      EXPECT_EQ(nodes(model, phase, 5) - nodes(model, phase, 1), 4 * per_layer) << model;
    }
}

} // namespace
} // namespace lightsim
