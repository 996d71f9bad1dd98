// The generated graphs are identical to the real TVM exports in ../shared/models: every node (op, name,
// func_name, inputs, attributes except the opaque hash), arg_nodes, heads, node_row_ptr, and every
// per-entry shape, dltype, storage_id and device_index. Stronger than the structural comparison through
// the importer (import_structure_test.cc), and independent of it.
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>

namespace lightsim {
namespace {

using ir::graphgen::Phase;

nlohmann::json load(const std::string& file) {
  std::ifstream in(test::model_path(file));
  return nlohmann::json::parse(in);
}

void strip_hashes(nlohmann::json& doc) {
  for (auto& node : doc["nodes"])
    if (node.contains("attrs")) node["attrs"].erase("hash");
}

// Nodes sharing a func_name share one hash, and distinct func_names have distinct hashes.
void expect_hash_per_function(const nlohmann::json& doc) {
  std::map<std::string, std::string> hash_of;
  std::map<std::string, std::string> func_of_hash;
  for (const auto& node : doc["nodes"]) {
    if (node["op"] != "tvm_op") continue;
    const std::string func = node["attrs"]["func_name"];
    const std::string hash = node["attrs"]["hash"];
    EXPECT_EQ(hash.size(), 16u);
    if (func == "__nop") continue; // one __nop per reshape signature, as in TVM
    auto [it, fresh] = hash_of.emplace(func, hash);
    EXPECT_EQ(it->second, hash) << func;
    if (fresh) {
      EXPECT_TRUE(func_of_hash.emplace(hash, func).second) << func;
    }
  }
}

void expect_identical(const ir::graphgen::GraphRequest& r, const std::string& file) {
  nlohmann::json generated = test::generate_json(r);
  nlohmann::json real = load(file);
  expect_hash_per_function(generated);
  strip_hashes(generated);
  strip_hashes(real);
  ASSERT_EQ(generated["nodes"].size(), real["nodes"].size());
  for (std::size_t i = 0; i < real["nodes"].size(); ++i)
    ASSERT_EQ(generated["nodes"][i], real["nodes"][i]) << file << " node " << i;
  EXPECT_EQ(generated["arg_nodes"], real["arg_nodes"]);
  EXPECT_EQ(generated["heads"], real["heads"]);
  EXPECT_EQ(generated["node_row_ptr"], real["node_row_ptr"]);
  for (const char* key : {"shape", "dltype", "storage_id", "device_index"})
    EXPECT_EQ(generated["attrs"][key], real["attrs"][key]) << key;
}

TEST(ExactExport, Gpt2Prefill5) {
  LIGHTSIM_NEED_SHARED_MODELS();
  expect_identical(test::request("gpt2", Phase::Prefill, 5), "gpt2_prefill_5.json");
}

TEST(ExactExport, Gpt2Decode5PlusOne) {
  LIGHTSIM_NEED_SHARED_MODELS();
  // 5 cached tokens + 1 new: --seq 6 (past defaults to seq-1).
  expect_identical(test::request("gpt2", Phase::Decode, 6), "gpt2_decoder_5.json");
}

TEST(ExactExport, Llama2_7bPrefill10) {
  LIGHTSIM_NEED_SHARED_MODELS();
  expect_identical(test::request("llama2-7b", Phase::Prefill, 10), "llama2_7b_prefill.json");
}

TEST(ExactExport, Llama2_7bDecode10PlusOne) {
  LIGHTSIM_NEED_SHARED_MODELS();
  auto r = test::request("llama2-7b", Phase::Decode, 11);
  r.past = 10;
  expect_identical(r, "llama2_7b_decoder.json");
}

} // namespace
} // namespace lightsim
