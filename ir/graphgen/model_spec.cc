#include "ir/graphgen/model_spec.h"

#include "ir/error.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace lightsim::ir::graphgen {
namespace {

constexpr const char* kWhere = "lightsim-graph";

// An upper bound on layers so that a typo cannot ask for billions of nodes.
constexpr std::int64_t kMaxLayers = 100000;

ModelSpec gpt2(std::string name, std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  return {std::move(name), ModelFamily::Gpt2, layers, hidden, heads, heads, 4 * hidden, 50257, 1024, 1e-5};
}

ModelSpec llama(std::string name, std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                std::int64_t kv_heads, std::int64_t ffn) {
  return {std::move(name), ModelFamily::Llama, layers, hidden, heads, kv_heads, ffn, 32000, 0, 1e-5};
}

std::int64_t positive_int(const nlohmann::json& doc, const std::string& path, const char* key, bool required,
                          std::int64_t fallback) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) {
    if (required) throw InputError(path + ": /" + key, "missing");
    return fallback;
  }
  if (!it->is_number_integer()) throw InputError(path + ": /" + key, "not an integer");
  const auto v = it->get<std::int64_t>();
  if (v <= 0) throw InputError(path + ": /" + key, "must be positive, got " + std::to_string(v));
  return v;
}

} // namespace

const std::vector<ModelSpec>& builtin_models() {
  // GPT-2: Radford et al. 2019 / Hugging Face configs. Llama-2: Touvron et al. 2023, Table 1 and the
  // released config.json files (FFN 11008 / 13824 / 28672; 70B uses 8 key/value heads).
  static const std::vector<ModelSpec> models{
      gpt2("gpt2", 12, 768, 12),
      gpt2("gpt2-medium", 24, 1024, 16),
      gpt2("gpt2-large", 36, 1280, 20),
      gpt2("gpt2-xl", 48, 1600, 25),
      llama("llama2-7b", 32, 4096, 32, 32, 11008),
      llama("llama2-13b", 40, 5120, 40, 40, 13824),
      llama("llama2-70b", 80, 8192, 64, 8, 28672),
  };
  return models;
}

ModelSpec builtin_model(const std::string& name) {
  std::string known;
  for (const ModelSpec& m : builtin_models()) {
    if (m.name == name) return m;
    if (!known.empty()) known += ", ";
    known += m.name;
  }
  throw InputError(kWhere, "unknown model '" + name + "' (known: " + known + "; or use --config FILE)");
}

void validate_model(const ModelSpec& m) {
  const std::string where = std::string(kWhere) + ": model " + m.name;
  auto positive = [&](std::int64_t v, const char* what) {
    if (v <= 0) throw InputError(where, std::string(what) + " must be positive, got " + std::to_string(v));
  };
  positive(m.layers, "layers");
  positive(m.hidden, "hidden size");
  positive(m.heads, "heads");
  positive(m.kv_heads, "kv heads");
  positive(m.ffn, "FFN size");
  positive(m.vocab, "vocab size");
  if (m.layers > kMaxLayers)
    throw InputError(where, "layers " + std::to_string(m.layers) + " is absurd (max 100000)");
  if (m.hidden % m.heads != 0)
    throw InputError(where, "heads (" + std::to_string(m.heads) + ") do not divide the hidden size (" +
                                std::to_string(m.hidden) + ")");
  if (m.heads % m.kv_heads != 0)
    throw InputError(where, "kv heads (" + std::to_string(m.kv_heads) + ") do not divide heads (" +
                                std::to_string(m.heads) + ")");
  if (m.family == ModelFamily::Gpt2 && m.kv_heads != m.heads)
    throw InputError(where, "GPT-2 models have no grouped-query attention (kv heads must equal heads)");
  if (m.family == ModelFamily::Llama && (m.hidden / m.heads) % 2 != 0)
    throw InputError(where,
                     "rotary embeddings need an even head size, got " + std::to_string(m.hidden / m.heads));
}

ModelSpec load_model_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open the model config");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw InputError(path, "the model config must be a JSON object");
  ModelSpec m;
  m.name = std::filesystem::path(path).stem().string();
  if (auto it = doc.find("_name_or_path");
      it != doc.end() && it->is_string() && !it->get<std::string>().empty())
    m.name = it->get<std::string>();
  const std::string type = doc.value("model_type", std::string());
  const bool is_gpt2 = type == "gpt2" || (type.empty() && doc.contains("n_embd"));
  const bool is_llama = type == "llama" || (type.empty() && doc.contains("hidden_size"));
  if (is_gpt2) {
    m.family = ModelFamily::Gpt2;
    m.hidden = positive_int(doc, path, "n_embd", true, 0);
    m.layers = positive_int(doc, path, "n_layer", true, 0);
    m.heads = positive_int(doc, path, "n_head", true, 0);
    m.kv_heads = m.heads;
    m.vocab = positive_int(doc, path, "vocab_size", true, 0);
    m.max_positions = positive_int(doc, path, "n_positions", false, 1024);
    m.ffn = positive_int(doc, path, "n_inner", false, 0);
    if (m.ffn == 0) {
      if (m.hidden > INT64_MAX / 4) throw InputError(path + ": /n_embd", "absurdly large");
      m.ffn = 4 * m.hidden;
    }
    if (auto it = doc.find("layer_norm_epsilon"); it != doc.end() && it->is_number())
      m.norm_eps = it->get<double>();
  } else if (is_llama) {
    m.family = ModelFamily::Llama;
    m.hidden = positive_int(doc, path, "hidden_size", true, 0);
    m.layers = positive_int(doc, path, "num_hidden_layers", true, 0);
    m.heads = positive_int(doc, path, "num_attention_heads", true, 0);
    m.kv_heads = positive_int(doc, path, "num_key_value_heads", false, m.heads);
    m.ffn = positive_int(doc, path, "intermediate_size", true, 0);
    m.vocab = positive_int(doc, path, "vocab_size", true, 0);
    if (auto it = doc.find("rms_norm_eps"); it != doc.end() && it->is_number())
      m.norm_eps = it->get<double>();
  } else {
    throw InputError(path + ": /model_type",
                     "neither a GPT-2 (n_embd ...) nor a Llama (hidden_size ...) config");
  }
  try {
    validate_model(m);
  } catch (const InputError& e) {
    throw InputError(path, e.what());
  }
  return m;
}

StepShape resolve(const GraphRequest& r) {
  validate_model(r.model);
  StepShape s;
  if (r.seq <= 0) throw InputError(kWhere, "--seq must be positive, got " + std::to_string(r.seq));
  if (r.batch <= 0) throw InputError(kWhere, "--batch must be positive, got " + std::to_string(r.batch));
  s.layers = r.layers.value_or(r.model.layers);
  if (s.layers <= 0 || s.layers > kMaxLayers)
    throw InputError(kWhere, "--layers must be in 1..100000, got " + std::to_string(s.layers));
  if (r.phase == Phase::Prefill) {
    if (r.past && *r.past != 0) throw InputError(kWhere, "--past is only for --phase decode");
    s.past = 0;
  } else {
    s.past = r.past.value_or(r.seq - 1);
    if (s.past < 0) throw InputError(kWhere, "--past must not be negative, got " + std::to_string(s.past));
    if (s.past >= r.seq)
      throw InputError(kWhere, "--past (" + std::to_string(s.past) + ") must be less than --seq (" +
                                   std::to_string(r.seq) + "): a decode step adds at least one token");
  }
  const std::int64_t tp = r.tensor_parallel;
  if (tp <= 0) throw InputError(kWhere, "--tensor-parallel must be positive, got " + std::to_string(tp));
  auto divided = [&](std::int64_t size, const char* what) {
    if (size % tp != 0)
      throw InputError(kWhere, "--tensor-parallel " + std::to_string(tp) + " does not divide the " +
                                   std::to_string(size) + " " + what + " of " + r.model.name);
    return size / tp;
  };
  s.heads = divided(r.model.heads, "attention heads");
  s.kv_heads = divided(r.model.kv_heads, "key/value heads");
  s.ffn = divided(r.model.ffn, "FFN columns");
  s.vocab = (r.model.vocab + tp - 1) / tp; // padded to a multiple of T, as Megatron and vLLM pad it
  s.total = r.seq;
  s.new_tokens = r.seq - s.past;
  if (r.model.max_positions > 0 && s.total > r.model.max_positions)
    throw InputError(kWhere, "--seq " + std::to_string(s.total) + " exceeds the " +
                                 std::to_string(r.model.max_positions) + " positions of " + r.model.name);
  return s;
}

std::optional<Phase> parse_phase(const std::string& text) {
  if (text == "prefill") return Phase::Prefill;
  if (text == "decode") return Phase::Decode;
  return std::nullopt;
}

} // namespace lightsim::ir::graphgen
