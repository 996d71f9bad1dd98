// Encoders as TVM's PyTorch front end imports the traced eval-mode modules (ir/graphgen/builder_torch.h):
// - BERT (Hugging Face BertModel, eager attention), inputs input_ids, attention_mask, token_type_ids
//   [B, S] int64; outputs the last hidden state [B, S, D] and the pooled output [B, D]. The learned
//   position table has max(512, S) rows, so any length builds (beyond 512 it is a longer table than the
//   released models have).
// - ViT-B/16 (torchvision vit_b_16) at 224x224, input `input0` [N, 3, 224, 224], output the logits. Its
//   nn.MultiheadAttention is written out as torch's multi_head_attention_forward computes it without the
//   fused kernel: one packed in-projection, q scaled by 1/sqrt(head size), bmm with k^T, softmax, bmm with v.
// - DeiT (timm VisionTransformer): the same but for timm's batch-first Attention (ModelSpec::timm_attention).
#include "ir/graphgen/builder_parts.h"
#include "ir/graphgen/builder_torch.h"

#include <algorithm>

namespace lightsim::ir::graphgen::detail {
namespace {

// x.view(B, S, H, d).permute(0, 2, 1, 3)
ExprRef heads_first(BuilderOps& b, ExprRef x, std::int64_t heads) {
  const Shape s = b.shape(x); // [B, S, D]
  return b.transpose(b.reshape(x, {s[0], s[1], heads, s[2] / heads}), {0, 2, 1, 3});
}

// BertSelfAttention + BertSelfOutput: softmax(q k^T / sqrt(d) + mask) v, projected, + x, layer norm.
ExprRef bert_attention(TorchOps& t, ExprRef x, ExprRef mask, const ModelSpec& m) {
  BuilderOps& b = t.base();
  const Shape s = b.shape(x);
  const std::int64_t D = m.hidden, H = m.heads;
  const ExprRef q = heads_first(b, t.linear(x, D), H);
  // key.view(...).permute(0, 2, 1, 3).transpose(-1, -2): SimplifyExpr merges the two transposes.
  const Shape k_view{s[0], s[1], H, D / H};
  const ExprRef k_t = b.transpose(b.reshape(t.linear(x, D), k_view), {0, 2, 3, 1});
  const ExprRef v = heads_first(b, t.linear(x, D), H);
  const ExprRef scores = b.binary("add", t.scalar_op("divide", t.matmul(q, k_t)), mask);
  const ExprRef context = t.matmul(b.softmax_last(scores), v);
  const ExprRef merged = b.reshape(b.transpose(context, {0, 2, 1, 3}), {s[0], s[1], D});
  return t.layer_norm(b.binary("add", t.linear(merged, D), x), m.norm_eps);
}

ExprRef bert_layer(TorchOps& t, ExprRef x, ExprRef mask, const ModelSpec& m) {
  const ExprRef attention = bert_attention(t, x, mask, m);
  const ExprRef intermediate = t.gelu(t.linear(attention, m.ffn));
  return t.layer_norm(t.base().binary("add", t.linear(intermediate, m.hidden), attention), m.norm_eps);
}

// nn.MultiheadAttention(batch_first) on x [N, T, D] as multi_head_attention_forward computes it.
ExprRef vit_attention(TorchOps& t, ExprRef x, const ModelSpec& m) {
  BuilderOps& b = t.base();
  const Shape s = b.shape(x);
  const std::int64_t N = s[0], T = s[1], D = m.hidden, H = m.heads, d = D / H, NH = checked_mul(N, H);
  const ExprRef seq_first = b.transpose(x, {1, 0, 2}); // [T, N, D]
  // proj.unflatten(-1, (3, D)).unsqueeze(0).transpose(0, -2).squeeze(-2): [3, T, N, D]
  const ExprRef proj = t.linear(seq_first, 3 * D);
  const ExprRef unflat = b.reshape(proj, {T, N, 3, D});
  const ExprRef swapped = b.transpose(t.expand_dims(unflat, {1, T, N, 3, D}), {3, 1, 2, 0, 4});
  const ExprRef packed = t.squeeze(swapped, {3, T, N, D});
  // q, k, v = proj[0], proj[1], proj[2]; each .view(T, N*H, d).transpose(0, 1)
  const auto per_head = [&](ExprRef part) { return b.reshape(t.select(part, 0), {T, NH, d}); };
  const ExprRef q = b.transpose(per_head(packed), {1, 0, 2});
  const ExprRef k_t = b.transpose(per_head(packed), {1, 2, 0}); // transpose(0, 1) then (-2, -1), merged
  const ExprRef v = b.transpose(per_head(packed), {1, 0, 2});
  const ExprRef weights = b.softmax_last(t.matmul(t.scalar_op("multiply", q), k_t));
  const ExprRef context = t.matmul(weights, v); // [N*H, T, d]
  const ExprRef rows = b.reshape(b.transpose(context, {1, 0, 2}), {checked_mul(T, N), D});
  const ExprRef out = b.reshape(t.linear(rows, D), {T, N, D});
  return b.transpose(out, {1, 0, 2});
}

// timm's Attention (DeiT) on x [B, N, C]: qkv(x).reshape(B, N, 3, H, d).permute(2, 0, 3, 1, 4), q scaled,
// q @ k.transpose(-2, -1), softmax, @ v, transpose(1, 2).reshape(B, N, C), proj.
ExprRef timm_attention(TorchOps& t, ExprRef x, const ModelSpec& m) {
  BuilderOps& b = t.base();
  const Shape s = b.shape(x);
  const std::int64_t B = s[0], N = s[1], C = m.hidden, H = m.heads;
  const ExprRef qkv = b.reshape(t.linear(x, 3 * C), {B, N, 3, H, C / H});
  const ExprRef packed = b.transpose(qkv, {2, 0, 3, 1, 4}); // [3, B, H, N, d]
  const ExprRef q = t.select(packed, 0);
  const ExprRef k_t = b.transpose(t.select(packed, 0), {0, 1, 3, 2});
  const ExprRef v = t.select(packed, 0);
  const ExprRef weights = b.softmax_last(t.matmul(t.scalar_op("multiply", q), k_t));
  const ExprRef context = t.matmul(weights, v); // [B, H, N, d]
  return t.linear(b.reshape(b.transpose(context, {0, 2, 1, 3}), {B, N, C}), C);
}

// torchvision EncoderBlock (timm's Block alike): x + attention(ln_1(x)), then + mlp(ln_2(.)).
ExprRef vit_block(TorchOps& t, ExprRef input, const ModelSpec& m) {
  BuilderOps& b = t.base();
  const ExprRef normed = t.layer_norm(input, m.norm_eps);
  const ExprRef attention = m.timm_attention ? timm_attention(t, normed, m) : vit_attention(t, normed, m);
  const ExprRef x = b.binary("add", attention, input);
  const ExprRef y = t.linear(t.gelu(t.linear(t.layer_norm(x, m.norm_eps), m.ffn)), m.hidden);
  return b.binary("add", x, y);
}

} // namespace

void build_bert(ExprGraph& g, const GraphRequest& r, const StepShape& s) {
  const ModelSpec& m = r.model;
  BuilderOps b(g, r.dtype, r.weight_dtype);
  TorchOps t(b);
  const std::int64_t B = r.batch, S = s.total, D = m.hidden;
  checked_mul(checked_mul(checked_mul(B, m.heads), S), S);
  const ExprRef ids = b.input("input_ids", {B, S}, DType::Int64);
  const ExprRef attention_mask = b.input("attention_mask", {B, S}, DType::Int64);
  const ExprRef token_types = b.input("token_type_ids", {B, S}, DType::Int64);

  // (1 - mask[:, None, None, :].to(float)) * finfo.min
  const ExprRef mask4 = t.expand_dims(t.expand_dims(attention_mask, {B, 1, S}), {B, 1, 1, S});
  const ExprRef mask = t.scalar_op("multiply", b.binary("subtract", b.scalar(), t.cast(mask4, r.dtype)));

  const ExprRef positions =
      t.strided_slice(b.constant({1, std::max<std::int64_t>(512, S)}, DType::Int64), {1, S});
  ExprRef h = b.binary("add", t.embedding(b.weight({m.vocab, D}), ids),
                       t.embedding(b.weight({m.type_vocab, D}), token_types));
  h = t.layer_norm(b.binary("add", h, t.embedding(b.weight({std::max<std::int64_t>(512, S), D}), positions)),
                   m.norm_eps);
  for (std::int64_t layer = 0; layer < s.layers; ++layer)
    h = bert_layer(t, h, mask, m);
  g.add_output(h);
  g.add_output(b.unary("tanh", t.linear(t.select(h, 1), D))); // the pooler on the first token
}

void build_vit(ExprGraph& g, const GraphRequest& r, const StepShape& s) {
  const ModelSpec& m = r.model;
  BuilderOps b(g, r.dtype, r.weight_dtype);
  TorchOps t(b);
  const std::int64_t N = r.batch, D = m.hidden, grid = m.image_size / m.patch, T = grid * grid + 1;
  const ExprRef image = b.input("input0", {N, 3, m.image_size, m.image_size}, r.dtype);
  const ExprRef patches = t.conv2d(image, D, m.patch, m.patch, 0, 1, true); // [N, D, 14, 14]
  const ExprRef tokens = b.transpose(b.reshape(patches, {N, D, grid * grid}), {0, 2, 1});
  const ExprRef class_token = t.repeat(b.weight({1, 1, D}), N, 0); // class_token.expand(N, -1, -1)
  ExprRef x = b.binary("add", b.concatenate({class_token, tokens}, 1), b.weight({1, T, D}));
  for (std::int64_t layer = 0; layer < s.layers; ++layer)
    x = vit_block(t, x, m);
  x = t.layer_norm(x, m.norm_eps);
  g.add_output(t.linear(t.select(x, 1), m.classes)); // heads on the class token
}

} // namespace lightsim::ir::graphgen::detail
