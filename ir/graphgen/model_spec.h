// ModelSpec: the hyper-parameters of a model that lightsim-graph can emit: decoder-only transformers (GPT-2
// style: LayerNorm, tanh-GELU, fused QKV; Llama style: RMSNorm, rotary embeddings, SiLU-gated FFN,
// grouped-query attention), encoders (BERT, ViT) and CNNs (ResNet, MobileNet-v2); the built-in table of
// published configurations, and GraphRequest: what graph to build (phase, lengths, batch, dtype, layer
// count).
//
// It is not the builder (ir/graphgen/builder.h). Every check of user-given values lives here and throws
// lightsim::InputError with one line naming the parameter.
#pragma once

#include "ir/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::ir::graphgen {

enum class ModelFamily : std::uint8_t { Gpt2, Llama, Resnet, MobilenetV2, Bert, Vit };

// Decoders take --phase and --seq (context length); BERT takes --seq (tokens); image models take neither.
bool is_decoder(ModelFamily f);
bool takes_sequence(ModelFamily f);

struct ModelSpec {
  std::string name;
  ModelFamily family = ModelFamily::Gpt2;
  std::int64_t layers = 0;
  std::int64_t hidden = 0;   // d_model
  std::int64_t heads = 0;    // attention (query) heads
  std::int64_t kv_heads = 0; // key/value heads (== heads without grouped-query attention)
  std::int64_t ffn = 0;      // FFN inner size
  std::int64_t vocab = 0;
  std::int64_t max_positions = 0; // GPT-2's learned position table bounds the context; 0 = unbounded
  double norm_eps = 1e-5;
  std::int64_t type_vocab = 0; // BERT: token types
  // Image models: input resolution, classes, ViT's patch size, ResNet's blocks per stage and block kind.
  std::int64_t image_size = 0, classes = 0, patch = 0;
  std::vector<std::int64_t> stage_blocks;
  bool bottleneck = false;
  // ViT attention as timm's Attention computes it (DeiT): batch-first, one qkv linear reshaped to
  // [B, N, 3, H, d]; else torchvision's nn.MultiheadAttention (sequence-first).
  bool timm_attention = false;
};

// gpt2, gpt2-medium, gpt2-large, gpt2-xl, llama2-7b, llama2-13b, llama2-70b, resnet18, resnet50,
// mobilenet-v2, bert-base, bert-large, vit-b16, deit-t, deit-s, deit-b.
const std::vector<ModelSpec>& builtin_models();
// Throws InputError listing the known names when `name` is not one.
ModelSpec builtin_model(const std::string& name);
// A Hugging Face config.json (GPT-2 keys n_embd/n_layer/n_head/n_inner/vocab_size/n_positions, or Llama keys
// hidden_size/num_hidden_layers/num_attention_heads/num_key_value_heads/intermediate_size/vocab_size/
// rms_norm_eps). Throws InputError naming the file and key on any problem.
ModelSpec load_model_config(const std::string& path);
// The same from the file's text; `path` names it in messages and gives the default name (its stem).
ModelSpec parse_model_config(std::string_view text, const std::string& path);

// Throws InputError when the hyper-parameters cannot describe a model (non-positive sizes, heads not
// dividing the hidden size, kv heads not dividing heads, odd rotary head size).
void validate_model(const ModelSpec& model);

enum class Phase : std::uint8_t { Prefill, Decode };

struct GraphRequest {
  ModelSpec model;
  Phase phase = Phase::Prefill;
  // Tokens in the context after this step. Prefill: all of them are new. Decode: `past` of them come from
  // the KV cache (inputs past_k_i / past_v_i) and seq - past are new (one by default). BERT: its tokens.
  // Image models: 0 (not given).
  std::int64_t seq = 0;
  std::optional<std::int64_t> past;
  std::int64_t batch = 1;
  DType dtype = DType::Float32;       // of weights and activations (ids stay int64, GPT-2 masks uint1)
  std::optional<std::int64_t> layers; // override of model.layers
  // vLLM-style fused projections: Llama's q, k and v as ONE dense (then sliced apart) and gate and up as
  // ONE dense (then split), as GPT-2's c_attn always is.
  bool merge_projections = false;
  // Megatron-style tensor parallelism: the graph of ONE of `tensor_parallel` GPUs' shards. Attention heads
  // (and kv heads) and FFN columns are divided by it (it must divide them), the vocabulary too (padded up
  // to a multiple of T); the column-parallel projections (q, k, v, gate, up, LM head) have n / T outputs,
  // the row-parallel ones (attention output, down) k / T inputs. The all-reduces after the row-parallel
  // projections and the vocabulary-parallel embedding are written when `all_reduces` is set (one
  // ccl_allreduce node each, attrs num_workers = T: 2 per layer + 1), else left out. The LM head's
  // logits stay sharded (the gather to the sampler is not written).
  std::int64_t tensor_parallel = 1;
  bool all_reduces = false;
  // Mixed precision: the weights' (parameters') dtype where it differs from the activations' (a design that
  // keeps int4 weights and int8 activations); unset: `dtype`.
  std::optional<DType> weight_dtype = std::nullopt;
};

// The resolved lengths of a request.
struct StepShape {
  std::int64_t new_tokens = 0; // query length
  std::int64_t past = 0;       // cached tokens
  std::int64_t total = 0;      // new_tokens + past (key/value length)
  std::int64_t layers = 0;     // transformer layers (0 for CNNs)
  // Per shard (GraphRequest::tensor_parallel): attention heads, kv heads, FFN size, vocabulary.
  std::int64_t heads = 0, kv_heads = 0, ffn = 0, vocab = 0;
};

// Validates the request (model included) and resolves its lengths; throws InputError.
StepShape resolve(const GraphRequest& request);

std::optional<Phase> parse_phase(const std::string& text);

} // namespace lightsim::ir::graphgen
