// GPT-2 (LayerNorm, tanh-GELU, fused QKV projection + split) as TVM imports the Hugging Face ONNX export.
// Its QKV projection is fused already, so --merge-projections changes nothing here.
#include "ir/graphgen/builder_parts.h"

namespace lightsim::ir::graphgen::detail {
namespace {

// mean / subtract / power / mean / add eps / rsqrt / multiply / multiply gamma / add beta.
ExprRef layer_norm(BuilderOps& b, ExprRef x, std::int64_t hidden) {
  const ExprRef mean = b.mean_last(x);
  const ExprRef centred = b.binary("subtract", x, mean);
  const ExprRef squared = b.binary("power", centred, b.scalar());
  const ExprRef var = b.mean_last(squared);
  const ExprRef inv = b.unary("rsqrt", b.binary("add", var, b.scalar()));
  const ExprRef normed = b.binary("multiply", centred, inv);
  return b.binary("add", b.binary("multiply", normed, b.weight({hidden})), b.weight({hidden}));
}

// x (any shape holding B*Q rows of k_in) -> [B*Q, k_in] -> dense [N, k_in] -> + bias [N] -> [B, Q, N].
// A row-parallel linear given `all_reduce_over` > 1 all-reduces the product before its bias is added
// (Megatron-LM's RowParallelLinear adds the bias once, after the reduction).
ExprRef linear(BuilderOps& b, ExprRef x, std::int64_t batch, std::int64_t tokens, std::int64_t k_in,
               std::int64_t n_out, std::int64_t all_reduce_over = 1) {
  ExprRef y = b.dense(b.reshape(x, {checked_mul(batch, tokens), k_in}), b.weight({n_out, k_in}));
  if (all_reduce_over > 1) y = b.all_reduce(y, all_reduce_over);
  return b.reshape(b.binary("add", y, b.weight({n_out})), {batch, tokens, n_out});
}

// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
ExprRef gelu_tanh(BuilderOps& b, ExprRef x) {
  const ExprRef half = b.binary("multiply", x, b.scalar());
  const ExprRef cube = b.binary("multiply", b.binary("power", x, b.scalar()), b.scalar());
  const ExprRef inner = b.binary("multiply", b.binary("add", x, cube), b.scalar());
  return b.binary("multiply", half, b.binary("add", b.unary("tanh", inner), b.scalar()));
}

} // namespace

void build_gpt2(ExprGraph& g, const GraphRequest& r, const StepShape& s) {
  const ModelSpec& m = r.model;
  BuilderOps b(g, r.dtype, r.weight_dtype);
  const std::int64_t B = r.batch, Q = s.new_tokens, P = s.past, T = s.total;
  // Per tensor-parallel shard: H heads, F FFN columns, V vocabulary entries (all of them at T = 1).
  const std::int64_t D = m.hidden, H = s.heads, d = D / m.heads, F = s.ffn, V = s.vocab, width = H * d;
  const std::int64_t rows = checked_mul(B, Q), bh = checked_mul(B, H);
  checked_mul(checked_mul(bh, Q), T);

  const ExprRef ids = b.input("input_ids", {B, Q}, DType::Int64);
  const auto [past_k, past_v] =
      r.phase == Phase::Decode ? b.kv_cache_inputs(s.layers, {B, H, P, d}, r.dtype) : BuilderOps::KvCache{};

  // Token ids may be negative (Python-style indexing): where(ids < 0, ids + V, ids).
  const ExprRef ids2 = b.reshape(ids, {B, Q});
  const ExprRef wrapped = b.where(b.compare("less", ids2, b.constant({}, DType::Int64)),
                                  b.binary("add", ids2, b.constant({}, DType::Int64)), ids2);
  // Tensor parallelism with its all-reduces (Megatron-LM): after the vocabulary-parallel embedding and
  // each row-parallel projection.
  const std::int64_t reduce_over = r.all_reduces ? r.tensor_parallel : 1;
  ExprRef embedded = b.take(b.weight({V, D}), wrapped);
  if (reduce_over > 1) embedded = b.all_reduce(embedded, reduce_over);
  ExprRef h = b.binary("add", embedded, b.weight({1, Q, D}));

  std::vector<ExprRef> presents;
  for (std::int64_t layer = 0; layer < s.layers; ++layer) {
    const ExprRef qkv = linear(b, layer_norm(b, h, D), B, Q, D, checked_mul(3, width));
    const std::vector<ExprRef> parts = b.split_last(qkv, 3);
    const ExprRef q = b.reshape(b.transpose(b.reshape(parts[0], {B, Q, H, d}), {0, 2, 1, 3}), {bh, Q, d});
    const ExprRef k_heads = b.reshape(parts[1], {B, Q, H, d});
    ExprRef k_for_scores, present_k;
    if (r.phase == Phase::Prefill) {
      const ExprRef kt = b.reshape(b.transpose(k_heads, {0, 2, 3, 1}), {bh, d, Q});
      k_for_scores = b.transpose(kt, {0, 2, 1});
      present_k = b.transpose(k_heads, {0, 2, 1, 3});
    } else {
      present_k = b.concatenate({past_k[layer], b.transpose(k_heads, {0, 2, 1, 3})}, 2);
      k_for_scores = b.transpose(b.reshape(b.transpose(present_k, {0, 1, 3, 2}), {bh, d, T}), {0, 2, 1});
    }
    const ExprRef scores = b.reshape(b.batch_matmul(q, k_for_scores), {B, H, Q, T});
    const ExprRef masked =
        b.where(b.constant({1, 1, Q, T}, DType::Bool), b.binary("divide", scores, b.scalar()), b.scalar());
    const ExprRef probs = b.reshape(b.softmax_last(masked), {bh, Q, T});
    ExprRef v = b.transpose(b.reshape(parts[2], {B, Q, H, d}), {0, 2, 1, 3});
    if (r.phase == Phase::Decode) v = b.concatenate({past_v[layer], v}, 2);
    const ExprRef v_t = b.transpose(b.reshape(v, {bh, T, d}), {0, 2, 1});
    const ExprRef ctx = b.transpose(b.reshape(b.batch_matmul(probs, v_t), {B, H, Q, d}), {0, 2, 1, 3});
    const ExprRef attn = linear(b, ctx, B, Q, width, D, reduce_over);
    h = b.binary("add", attn, h);
    const ExprRef ffn =
        linear(b, gelu_tanh(b, linear(b, layer_norm(b, h, D), B, Q, D, F)), B, Q, F, D, reduce_over);
    h = b.binary("add", h, ffn);
    presents.push_back(present_k);
    presents.push_back(v);
  }
  const ExprRef logits = b.dense(b.reshape(layer_norm(b, h, D), {rows, D}), b.weight({V, D}));
  g.add_output(b.reshape(logits, {B, Q, V}));
  for (const ExprRef& p : presents)
    g.add_output(p);
}

} // namespace lightsim::ir::graphgen::detail
