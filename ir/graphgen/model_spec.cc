#include "ir/graphgen/model_spec.h"

#include "ir/error.h"
#include "ir/json_reader.h"
#include "ir/names.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace lightsim::ir::graphgen {
namespace {

// An upper bound on layers so that a typo cannot ask for billions of nodes.
constexpr std::int64_t kMaxLayers = 100000;

ModelSpec transformer(std::string name, ModelFamily family, std::int64_t layers, std::int64_t hidden,
                      std::int64_t heads, std::int64_t ffn, std::int64_t vocab, double eps) {
  ModelSpec m;
  m.name = std::move(name);
  m.family = family;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = m.kv_heads = heads;
  m.ffn = ffn;
  m.vocab = vocab;
  m.norm_eps = eps;
  return m;
}

ModelSpec gpt2(std::string name, std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  ModelSpec m =
      transformer(std::move(name), ModelFamily::Gpt2, layers, hidden, heads, 4 * hidden, 50257, 1e-5);
  m.max_positions = 1024;
  return m;
}

ModelSpec bert(std::string name, std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  ModelSpec m =
      transformer(std::move(name), ModelFamily::Bert, layers, hidden, heads, 4 * hidden, 30522, 1e-12);
  m.type_vocab = 2;
  return m;
}

ModelSpec image_model(std::string name, ModelFamily family) {
  ModelSpec m;
  m.name = std::move(name);
  m.family = family;
  m.image_size = 224;
  m.classes = 1000;
  return m;
}

ModelSpec resnet(std::string name, std::vector<std::int64_t> blocks, bool bottleneck) {
  ModelSpec m = image_model(std::move(name), ModelFamily::Resnet);
  m.classes = 1000;
  m.stage_blocks = std::move(blocks);
  m.bottleneck = bottleneck;
  return m;
}

ModelSpec llama(std::string name, std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                std::int64_t kv_heads, std::int64_t ffn) {
  ModelSpec m = transformer(std::move(name), ModelFamily::Llama, layers, hidden, heads, ffn, 32000, 1e-5);
  m.kv_heads = kv_heads;
  return m;
}

ModelSpec vit(std::string name, std::int64_t layers, std::int64_t hidden, std::int64_t heads,
              std::int64_t patch) {
  ModelSpec m = transformer(std::move(name), ModelFamily::Vit, layers, hidden, heads, 4 * hidden, 0, 1e-6);
  m.image_size = 224;
  m.classes = 1000;
  m.patch = patch;
  return m;
}

ModelSpec deit(std::string name, std::int64_t hidden, std::int64_t heads) {
  ModelSpec m = vit(std::move(name), 12, hidden, heads, 16);
  m.timm_attention = true;
  return m;
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
      // torchvision: He et al. 2016 (v1.5: stride on the 3x3), Sandler et al. 2018, Dosovitskiy et al. 2021;
      // BERT: Devlin et al. 2019 (vocab 30522, 2 token types, 512 learned positions, eps 1e-12).
      resnet("resnet18", {2, 2, 2, 2}, false),
      resnet("resnet50", {3, 4, 6, 3}, true),
      image_model("mobilenet-v2", ModelFamily::MobilenetV2),
      bert("bert-base", 12, 768, 12),
      bert("bert-large", 24, 1024, 16),
      vit("vit-b16", 12, 768, 12, 16),
      // DeiT (Touvron et al. 2021, Table 1): ViT's architecture at 224x224, patch 16, MLP 4 x hidden;
      // Ti 192 / 3 heads, S 384 / 6, B 768 / 12, as timm builds them. Without the distillation token.
      deit("deit-t", 192, 3),
      deit("deit-s", 384, 6),
      deit("deit-b", 768, 12),
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
  throw InputError("unknown model '" + name + "' (known: " + known + "; or use --config FILE)");
}

bool is_decoder(ModelFamily f) {
  return f == ModelFamily::Gpt2 || f == ModelFamily::Llama;
}

bool takes_sequence(ModelFamily f) {
  return is_decoder(f) || f == ModelFamily::Bert;
}

void validate_model(const ModelSpec& m) {
  const std::string where = "model " + m.name;
  auto positive = [&](std::int64_t v, const char* what) {
    if (v <= 0) throw InputError(where, std::string(what) + " must be positive, got " + std::to_string(v));
  };
  if (m.family == ModelFamily::Resnet || m.family == ModelFamily::MobilenetV2) {
    positive(m.image_size, "image size");
    positive(m.classes, "classes");
    if (m.family == ModelFamily::Resnet && m.stage_blocks.size() != 4)
      throw InputError(where, "a ResNet has 4 stages");
    return;
  }
  positive(m.layers, "layers");
  positive(m.hidden, "hidden size");
  positive(m.heads, "heads");
  positive(m.kv_heads, "kv heads");
  positive(m.ffn, "FFN size");
  if (m.family != ModelFamily::Vit) positive(m.vocab, "vocab size");
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
  if (m.family == ModelFamily::Vit && (m.image_size <= 0 || m.patch <= 0 || m.image_size % m.patch != 0))
    throw InputError(where, "the patch size must divide the image size");
  if (m.family == ModelFamily::Llama && (m.hidden / m.heads) % 2 != 0)
    throw InputError(where,
                     "rotary embeddings need an even head size, got " + std::to_string(m.hidden / m.heads));
}

ModelSpec load_model_config(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (the model config)");
  }
  return parse_model_config(text, path);
}

ModelSpec parse_model_config(std::string_view text, const std::string& path) {
  const nlohmann::json doc = parse_json_text(text, path);
  if (!doc.is_object()) throw InputError(path, "the model config must be a JSON object");
  ModelSpec m;
  m.name = std::filesystem::path(path).stem().string();
  if (auto it = doc.find("_name_or_path");
      it != doc.end() && it->is_string() && !it->get<std::string>().empty())
    m.name = it->get<std::string>();
  const auto type_it = doc.find("model_type");
  if (type_it != doc.end() && !type_it->is_string())
    throw InputError(path + ": /model_type", std::string("must be a string, got ") + type_it->type_name());
  const std::string type = type_it != doc.end() ? type_it->get<std::string>() : std::string();
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
                     (type.empty()
                          ? std::string("absent, and neither n_embd (GPT-2) nor hidden_size (Llama) is there")
                          : "'" + type + "' is not a model type lightsim-graph builds") +
                         ": known model types are gpt2 and llama (Hugging Face's names)");
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
  const ModelFamily f = r.model.family;
  if (r.batch <= 0) throw InputError("--batch must be positive, got " + std::to_string(r.batch));
  if (!is_decoder(f)) {
    if (r.phase == Phase::Decode)
      throw InputError(r.model.name + " is not a decoder: --phase decode does not apply");
    if (r.past) throw InputError("--past is only for decoders (" + r.model.name + " is not one)");
    if (r.tensor_parallel != 1 || r.merge_projections)
      throw InputError("--tensor-parallel and --merge-projections are for the LLMs (" + r.model.name +
                       " is not one)");
  }
  if (!takes_sequence(f)) {
    if (r.seq != 0)
      throw InputError("--seq does not apply to " + r.model.name + " (a " +
                       std::to_string(r.model.image_size) + "x" + std::to_string(r.model.image_size) +
                       " image model)");
    if (f != ModelFamily::Vit && r.layers)
      throw InputError("--layers does not apply to " + r.model.name + " (a CNN)");
    s.layers = f == ModelFamily::Vit ? r.layers.value_or(r.model.layers) : 0;
    if (f == ModelFamily::Vit && (s.layers <= 0 || s.layers > kMaxLayers))
      throw InputError("--layers must be in 1..100000, got " + std::to_string(s.layers));
    const std::int64_t grid = f == ModelFamily::Vit ? r.model.image_size / r.model.patch : 0;
    s.new_tokens = s.total = f == ModelFamily::Vit ? grid * grid + 1 : 0;
    return s;
  }
  if (r.seq <= 0) throw InputError("--seq must be positive, got " + std::to_string(r.seq));
  s.layers = r.layers.value_or(r.model.layers);
  if (s.layers <= 0 || s.layers > kMaxLayers)
    throw InputError("--layers must be in 1..100000, got " + std::to_string(s.layers));
  if (r.phase == Phase::Prefill) {
    if (r.past && *r.past != 0) throw InputError("--past is only for --phase decode");
    s.past = 0;
  } else {
    s.past = r.past.value_or(r.seq - 1);
    if (s.past < 1)
      throw InputError("--phase decode reads a KV cache: --past must be at least 1, got " +
                       std::to_string(s.past) +
                       (r.past ? "" : " (--past defaults to --seq - 1: give --seq 2 or more, or --past)"));
    if (s.past >= r.seq)
      throw InputError("--past (" + std::to_string(s.past) + ") must be less than --seq (" +
                       std::to_string(r.seq) + "): a decode step adds at least one token");
  }
  const std::int64_t tp = r.tensor_parallel;
  if (tp <= 0) throw InputError("--tensor-parallel must be positive, got " + std::to_string(tp));
  if (r.all_reduces && tp < 2)
    throw InputError("--all-reduces needs --tensor-parallel 2 or more (one shard has nothing to reduce)");
  auto divided = [&](std::int64_t size, const char* what) {
    if (size % tp != 0)
      throw InputError("--tensor-parallel " + std::to_string(tp) + " does not divide the " +
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
    throw InputError("--seq " + std::to_string(s.total) + " exceeds the " +
                     std::to_string(r.model.max_positions) + " positions of " + r.model.name);
  return s;
}

std::optional<Phase> parse_phase(const std::string& text) {
  static constexpr NameTable kPhases{std::array{std::pair{Phase::Prefill, std::string_view("prefill")},
                                                std::pair{Phase::Decode, std::string_view("decode")}}};
  return kPhases.parse(text);
}

} // namespace lightsim::ir::graphgen
