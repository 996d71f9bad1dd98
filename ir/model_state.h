// Model state among a graph's inputs: an input fed per run that a runtime keeps on the device between runs
// (the KV cache of a decode step), told apart from the other inputs by its name and shape, as exports name
// it: TVM exports and lightsim-graph `past_k_<layer>` / `past_v_<layer>`, Hugging Face ONNX exports
// `past_key_values.<layer>.key` / `.value`, other runtimes `key_cache`, `cache_v`, `kv_cache` ...
// (a name with a `past`, `cache` or `kv` word, or a word starting with `kvcache`) of rank 3 to 5 ([batch,
// heads, tokens, head dim], with or without the batch, or K and V stacked).
//
// It is not where state lives: that is the config's placement.state (ir/hardware/residency.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace lightsim::ir {

bool is_model_state_input(std::string_view name, const std::vector<std::int64_t>& shape);

} // namespace lightsim::ir
