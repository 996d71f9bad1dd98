// Llama-2 (RMSNorm, rotary embeddings, SiLU-gated FFN, grouped-query attention) as TVM imports the Hugging
// Face ONNX export.
#include "ir/graphgen/builder_parts.h"

namespace lightsim::ir::graphgen::detail {
namespace {

// weight * (x * rsqrt(mean(x^2) + eps)); the weight is the first argument, as in the exports.
ExprRef rms_norm(BuilderOps& b, ExprRef x, std::int64_t hidden) {
  const ExprRef w = b.weight({hidden});
  const ExprRef var = b.mean_last(b.binary("power", x, b.scalar()));
  const ExprRef inv = b.unary("rsqrt", b.binary("add", var, b.scalar()));
  return b.binary("multiply", w, b.binary("multiply", x, inv));
}

// x [B, Q, D] -> [B*Q, D] -> dense [N, D] -> [B, Q, N] (Llama projections have no bias).
ExprRef projection(BuilderOps& b, ExprRef x, std::int64_t batch, std::int64_t tokens, std::int64_t n_out) {
  const std::int64_t k_in = b.shape(x).back();
  return b.dense(b.reshape(x, {checked_mul(batch, tokens), k_in}), b.weight({n_out, k_in}));
}

// x * cos + rotate_half(x) * sin, rotate_half(x) = concat(-x[..., d/2:], x[..., :d/2]).
ExprRef rotary(BuilderOps& b, ExprRef x, ExprRef cos, ExprRef sin) {
  const std::int64_t d = b.shape(x).back();
  const ExprRef upper = b.unary("negative", b.strided_slice_last(x, d / 2, d));
  const ExprRef rotated = b.concatenate({upper, b.strided_slice_last(x, 0, d / 2)}, 3);
  return b.binary("add", b.binary("multiply", x, cos), b.binary("multiply", rotated, sin));
}

// Grouped-query attention: HF's repeat_kv, x[:, :, None].expand(B, KVH, rep, T, d).reshape(B, H, T, d).
// TVM imports the expand as broadcast_to, which is not in lightsim's op vocabulary (ir/op_class.h); the
// same copy is emitted as a concatenate of `rep` views of the head axis, between two reshapes (__nop).
ExprRef repeat_kv(BuilderOps& b, ExprRef x, std::int64_t rep) {
  if (rep == 1) return x;
  const Shape s = b.shape(x); // [B, KVH, T, d]
  const ExprRef one = b.reshape(x, {s[0], s[1], 1, s[2], s[3]});
  const ExprRef copies = b.concatenate(std::vector<ExprRef>(static_cast<std::size_t>(rep), one), 2);
  return b.reshape(copies, {s[0], checked_mul(s[1], rep), s[2], s[3]});
}

} // namespace

void build_llama(ExprGraph& g, const GraphRequest& r, const StepShape& s) {
  const ModelSpec& m = r.model;
  BuilderOps b(g, r.dtype, r.weight_dtype);
  // Per tensor-parallel shard: H and KVH heads, F FFN columns, V vocabulary entries (all of them at T = 1).
  const std::int64_t B = r.batch, Q = s.new_tokens, P = s.past, T = s.total;
  const std::int64_t D = m.hidden, H = s.heads, KVH = s.kv_heads, d = m.hidden / m.heads, rep = H / KVH;
  const std::int64_t F = s.ffn, V = s.vocab, kv = checked_mul(KVH, d);
  const std::int64_t bh = checked_mul(B, H);
  checked_mul(checked_mul(bh, Q), T);

  const ExprRef ids = b.input("input_ids", {B, Q}, DType::Int64);
  const auto [past_k, past_v] =
      r.phase == Phase::Decode ? b.kv_cache_inputs(s.layers, {B, KVH, P, d}, r.dtype) : BuilderOps::KvCache{};

  const ExprRef wrapped = b.where(b.compare("less", ids, b.constant({}, DType::Int64)),
                                  b.binary("add", ids, b.constant({}, DType::Int64)), ids);
  // Tensor parallelism with its all-reduces (Megatron-LM): after the vocabulary-parallel embedding and
  // each row-parallel projection.
  const auto reduced = [&](ExprRef x) { return r.all_reduces ? b.all_reduce(x, r.tensor_parallel) : x; };
  ExprRef h = reduced(b.take(b.weight({V, D}), wrapped));
  // cos / sin tables of the positions past..total-1, shared by every layer's q and k.
  const ExprRef cos = b.weight({1, 1, Q, d});
  const ExprRef sin = b.weight({1, 1, Q, d});

  std::vector<ExprRef> presents;
  for (std::int64_t layer = 0; layer < s.layers; ++layer) {
    const ExprRef x = rms_norm(b, h, D);
    auto heads_of = [&](ExprRef proj, std::int64_t n) {
      return b.transpose(b.reshape(proj, {B, Q, n, d}), {0, 2, 1, 3});
    };
    // q, k, v: three denses (made where they are first used, as in the export), or one fused dense
    // sliced apart (vLLM's QKVParallelLinear).
    std::vector<ExprRef> fused;
    if (r.merge_projections)
      fused = b.split_sections_last(projection(b, x, B, Q, checked_mul(H, d) + 2 * kv), {H * d, kv, kv});
    auto qkv = [&](std::size_t part, std::int64_t n) {
      return r.merge_projections ? fused[part] : projection(b, x, B, Q, n);
    };
    const ExprRef q_rot = rotary(b, heads_of(qkv(0, checked_mul(H, d)), H), cos, sin);
    const ExprRef q = b.reshape(b.binary("multiply", q_rot, b.weight({1})), {bh, Q, d});
    ExprRef k = rotary(b, heads_of(qkv(1, kv), KVH), cos, sin);
    if (r.phase == Phase::Decode) k = b.concatenate({past_k[layer], k}, 2);
    const ExprRef k_t = b.binary("multiply", b.transpose(repeat_kv(b, k, rep), {0, 1, 3, 2}), b.weight({1}));
    const ExprRef k_for_scores = b.transpose(b.reshape(k_t, {bh, d, T}), {0, 2, 1});
    const ExprRef scores = b.reshape(b.batch_matmul(q, k_for_scores), {B, H, Q, T});
    const ExprRef masked = b.binary("add", scores, b.weight({1, 1, Q, T}));
    const ExprRef probs = b.reshape(b.softmax_last(masked), {bh, Q, T});
    ExprRef v = heads_of(qkv(2, kv), KVH);
    if (r.phase == Phase::Decode) v = b.concatenate({past_v[layer], v}, 2);
    const ExprRef v_t = b.transpose(b.reshape(repeat_kv(b, v, rep), {bh, T, d}), {0, 2, 1});
    const ExprRef ctx = b.transpose(b.reshape(b.batch_matmul(probs, v_t), {B, H, Q, d}), {0, 2, 1, 3});
    // Row-parallel output projection: k = H x d of this shard.
    const std::int64_t ctx_width = checked_mul(H, d);
    const ExprRef attn =
        reduced(b.dense(b.reshape(ctx, {checked_mul(B, Q), ctx_width}), b.weight({D, ctx_width})));
    h = b.binary("add", h, b.reshape(attn, {B, Q, D}));

    const ExprRef y = rms_norm(b, h, D);
    // gate and up: two denses, or one fused dense split in two (vLLM's MergedColumnParallelLinear).
    std::vector<ExprRef> gate_up;
    if (r.merge_projections) gate_up = b.split_last(projection(b, y, B, Q, checked_mul(2, F)), 2);
    auto ffn_in = [&](std::size_t part) {
      return r.merge_projections ? gate_up[part] : projection(b, y, B, Q, F);
    };
    const ExprRef gate = b.reshape(ffn_in(0), {B, Q, F});
    const ExprRef silu = b.binary("multiply", gate, b.unary("sigmoid", gate));
    const ExprRef up = b.reshape(ffn_in(1), {B, Q, F});
    const ExprRef down = reduced(projection(b, b.binary("multiply", silu, up), B, Q, D));
    h = b.binary("add", h, b.reshape(down, {B, Q, D}));
    presents.push_back(k);
    presents.push_back(v);
  }
  const ExprRef logits = projection(b, rms_norm(b, h, D), B, Q, V);
  g.add_output(b.reshape(logits, {B, Q, V}));
  for (const ExprRef& p : presents)
    g.add_output(p);
}

} // namespace lightsim::ir::graphgen::detail
