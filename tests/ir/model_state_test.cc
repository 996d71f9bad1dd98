// Which graph inputs are model state (ir/model_state.h): the KV-cache names of the exporters lightsim reads,
// by word, with a plausible rank; nothing else fed per run.
#include "ir/model_state.h"

#include <gtest/gtest.h>

namespace lightsim::ir {
namespace {

TEST(ModelStateInput, KvCacheNamesOfTheExportersAreState) {
  const std::vector<std::int64_t> cache{1, 32, 127, 128};
  for (const char* name : {"past_k_0", "past_v_31", "past_key_values.0.key", "past_key_values.11.value",
                           "key_cache", "cache_v_3", "kv_cache", "layers.2.kvcache_k", "model/Past/Key"})
    EXPECT_TRUE(is_model_state_input(name, cache)) << name;
  EXPECT_TRUE(is_model_state_input("past_k_0", {32, 127, 128}));       // no batch axis
  EXPECT_TRUE(is_model_state_input("kv_cache", {2, 1, 32, 127, 128})); // K and V stacked
}

TEST(ModelStateInput, OtherInputsAreNot) {
  const std::vector<std::int64_t> cache{1, 32, 127, 128};
  // Words, not substrings: "pastry", "cached_mask"'s "cached", "kvx" are no cache words.
  for (const char* name :
       {"input_ids", "attention_mask", "position_ids", "p0", "pastry", "cached_mask", "kvx", "image"})
    EXPECT_FALSE(is_model_state_input(name, cache)) << name;
  EXPECT_FALSE(is_model_state_input("past_k_0", {1, 127}));           // rank 2: not a cache
  EXPECT_FALSE(is_model_state_input("past_k_0", {1, 1, 1, 1, 1, 1})); // rank 6
  EXPECT_FALSE(is_model_state_input("past_k_0", {1, 32, 0, 128}));    // empty (a first step without a cache)
}

} // namespace
} // namespace lightsim::ir
