#include "ir/op_class.h"

#include <algorithm>
#include <array>
#include <utility>

namespace lightsim::ir {
namespace {

// Indexed by OpClass; keep in step with the enum in op_class.h.
constexpr std::array<std::string_view, kNumOpClasses> kOpClassNames{
    "input",
    "nop",
    "dense",
    "batch_matmul",
    "conv2d",
    "conv2d_transpose",
    "attention",
    "pool",
    "layout_transform",
    "add",
    "subtract",
    "multiply",
    "divide",
    "power",
    "negative",
    "sqrt",
    "rsqrt",
    "exp",
    "erf",
    "relu",
    "sigmoid",
    "tanh",
    "cast",
    "less",
    "where",
    "mean",
    "sum",
    "softmax",
    "transpose",
    "take",
    "split",
    "concatenate",
    "strided_slice",
    "log_softmax",
    "batch_norm",
    "layer_norm",
    "lrn",
    "pad",
    "resize",
    "clip",
    "maximum",
    "elementwise",
    "transcendental",
    "max",
    "variance",
    "cumsum",
    "fill",
    "copy",
    "all_reduce",
    "reduce_scatter",
    "all_gather",
    "opaque",
};

// The op names that may appear in a TVM func_name, as their `_`-separated tokens. Relay's operator
// names with `.` replaced by `_` (nn.dense -> nn_dense), which is how TVM spells them in fused names.
struct OpSpelling {
  std::string_view tokens; // e.g. "nn_contrib_conv2d_NCHWc": tokens joined by `_`
  OpClass op_class;
};

constexpr auto kSpellings = std::to_array<OpSpelling>({
    // Matrix products.
    {"nn_dense", OpClass::Dense},
    {"nn_contrib_dense_pack", OpClass::Dense},
    {"nn_matmul", OpClass::Dense},
    {"nn_batch_matmul", OpClass::BatchMatmul},
    {"nn_conv1d", OpClass::Conv2d},
    {"nn_conv2d", OpClass::Conv2d},
    {"nn_conv3d", OpClass::Conv2d},
    {"nn_contrib_conv2d_NCHWc", OpClass::Conv2d},
    {"nn_contrib_depthwise_conv2d_NCHWc", OpClass::Conv2d},
    {"nn_conv1d_transpose", OpClass::Conv2dTranspose},
    {"nn_conv2d_transpose", OpClass::Conv2dTranspose},
    {"nn_conv3d_transpose", OpClass::Conv2dTranspose},
    // Pooling.
    {"nn_max_pool1d", OpClass::Pool},
    {"nn_max_pool2d", OpClass::Pool},
    {"nn_max_pool3d", OpClass::Pool},
    {"nn_avg_pool1d", OpClass::Pool},
    {"nn_avg_pool2d", OpClass::Pool},
    {"nn_avg_pool3d", OpClass::Pool},
    {"nn_global_avg_pool2d", OpClass::Pool},
    {"nn_global_max_pool2d", OpClass::Pool},
    {"nn_adaptive_avg_pool1d", OpClass::Pool},
    {"nn_adaptive_avg_pool2d", OpClass::Pool},
    {"nn_adaptive_avg_pool3d", OpClass::Pool},
    {"nn_adaptive_max_pool1d", OpClass::Pool},
    {"nn_adaptive_max_pool2d", OpClass::Pool},
    {"nn_adaptive_max_pool3d", OpClass::Pool},
    // Normalisations and softmaxes.
    {"nn_softmax", OpClass::Softmax},
    {"nn_fast_softmax", OpClass::Softmax},
    {"nn_log_softmax", OpClass::LogSoftmax},
    {"nn_batch_norm", OpClass::BatchNorm},
    {"nn_layer_norm", OpClass::LayerNorm},
    {"nn_group_norm", OpClass::LayerNorm},
    {"nn_instance_norm", OpClass::LayerNorm},
    {"nn_l2_normalize", OpClass::LayerNorm},
    {"nn_lrn", OpClass::Lrn},
    // Elementwise arithmetic.
    {"add", OpClass::Add},
    {"nn_bias_add", OpClass::Add},
    {"subtract", OpClass::Subtract},
    {"multiply", OpClass::Multiply},
    {"divide", OpClass::Divide},
    {"floor_divide", OpClass::Divide},
    {"trunc_divide", OpClass::Divide},
    {"power", OpClass::Power},
    {"negative", OpClass::Negative},
    {"sqrt", OpClass::Sqrt},
    {"rsqrt", OpClass::Rsqrt},
    {"exp", OpClass::Exp},
    {"fast_exp", OpClass::Exp},
    {"erf", OpClass::Erf},
    {"fast_erf", OpClass::Erf},
    {"nn_relu", OpClass::Relu},
    {"nn_leaky_relu", OpClass::Relu},
    {"nn_prelu", OpClass::Relu},
    {"sigmoid", OpClass::Sigmoid},
    {"tanh", OpClass::Tanh},
    {"fast_tanh", OpClass::Tanh},
    {"cast", OpClass::Cast},
    {"cast_like", OpClass::Cast},
    {"less", OpClass::Less},
    {"where", OpClass::Where},
    {"clip", OpClass::Clip},
    {"maximum", OpClass::Maximum},
    {"minimum", OpClass::Maximum},
    {"abs", OpClass::Elementwise},
    {"sign", OpClass::Elementwise},
    {"floor", OpClass::Elementwise},
    {"ceil", OpClass::Elementwise},
    {"round", OpClass::Elementwise},
    {"trunc", OpClass::Elementwise},
    {"equal", OpClass::Elementwise},
    {"not_equal", OpClass::Elementwise},
    {"greater", OpClass::Elementwise},
    {"greater_equal", OpClass::Elementwise},
    {"less_equal", OpClass::Elementwise},
    {"logical_not", OpClass::Elementwise},
    {"logical_and", OpClass::Elementwise},
    {"logical_or", OpClass::Elementwise},
    {"logical_xor", OpClass::Elementwise},
    {"bitwise_not", OpClass::Elementwise},
    {"bitwise_and", OpClass::Elementwise},
    {"bitwise_or", OpClass::Elementwise},
    {"bitwise_xor", OpClass::Elementwise},
    {"left_shift", OpClass::Elementwise},
    {"right_shift", OpClass::Elementwise},
    {"mod", OpClass::Elementwise},
    {"floor_mod", OpClass::Elementwise},
    {"trunc_mod", OpClass::Elementwise},
    {"isnan", OpClass::Elementwise},
    {"isinf", OpClass::Elementwise},
    {"isfinite", OpClass::Elementwise},
    {"fixed_point_multiply", OpClass::Elementwise},
    {"reinterpret", OpClass::Elementwise},
    {"log", OpClass::Transcendental},
    {"log2", OpClass::Transcendental},
    {"log10", OpClass::Transcendental},
    {"sin", OpClass::Transcendental},
    {"cos", OpClass::Transcendental},
    {"tan", OpClass::Transcendental},
    {"sinh", OpClass::Transcendental},
    {"cosh", OpClass::Transcendental},
    {"asin", OpClass::Transcendental},
    {"acos", OpClass::Transcendental},
    {"atan", OpClass::Transcendental},
    {"asinh", OpClass::Transcendental},
    {"acosh", OpClass::Transcendental},
    {"atanh", OpClass::Transcendental},
    {"atan2", OpClass::Transcendental},
    // Reductions and scans.
    {"mean", OpClass::Mean},
    {"sum", OpClass::Sum},
    {"prod", OpClass::Sum},
    {"collapse_sum_to", OpClass::Sum},
    {"collapse_sum_like", OpClass::Sum},
    {"max", OpClass::Max},
    {"min", OpClass::Max},
    {"argmax", OpClass::Max},
    {"argmin", OpClass::Max},
    {"all", OpClass::Max},
    {"any", OpClass::Max},
    {"variance", OpClass::Variance},
    {"std", OpClass::Variance},
    {"cumsum", OpClass::Cumsum},
    {"cumprod", OpClass::Cumsum},
    // Data movement.
    {"layout_transform", OpClass::LayoutTransform},
    {"transpose", OpClass::Transpose},
    {"reverse", OpClass::Transpose},
    {"nn_depth_to_space", OpClass::Transpose},
    {"nn_space_to_depth", OpClass::Transpose},
    {"take", OpClass::Take},
    {"gather", OpClass::Take},
    {"gather_nd", OpClass::Take},
    {"adv_index", OpClass::Take},
    {"split", OpClass::Split},
    {"concatenate", OpClass::Concatenate},
    {"stack", OpClass::Concatenate},
    {"strided_slice", OpClass::StridedSlice},
    {"slice_like", OpClass::StridedSlice},
    {"nn_pad", OpClass::Pad},
    {"nn_mirror_pad", OpClass::Pad},
    {"image_resize1d", OpClass::Resize},
    {"image_resize2d", OpClass::Resize},
    {"image_resize3d", OpClass::Resize},
    {"image_crop_and_resize", OpClass::Resize},
    {"image_grid_sample", OpClass::Resize},
    {"nn_upsampling", OpClass::Resize},
    {"nn_upsampling3d", OpClass::Resize},
    {"copy", OpClass::Copy},
    {"broadcast_to", OpClass::Copy},
    {"broadcast_to_like", OpClass::Copy},
    {"tile", OpClass::Copy},
    {"repeat", OpClass::Copy},
    // Collectives: TVM Disco's ccl ops (relax.ccl.allreduce, relax.ccl.allgather) and lightsim's own
    // spelling of a reduce-scatter.
    {"ccl_allreduce", OpClass::AllReduce},
    {"ccl_allgather", OpClass::AllGather},
    {"ccl_reduce_scatter", OpClass::ReduceScatter},
    {"full", OpClass::Fill},
    {"full_like", OpClass::Fill},
    {"zeros", OpClass::Fill},
    {"zeros_like", OpClass::Fill},
    {"ones", OpClass::Fill},
    {"ones_like", OpClass::Fill},
    {"arange", OpClass::Fill},
    {"one_hot", OpClass::Fill},
    // Views: no data moved (dropout is the identity at inference).
    {"reshape", OpClass::Nop},
    {"squeeze", OpClass::Nop},
    {"expand_dims", OpClass::Nop},
    {"nn_batch_flatten", OpClass::Nop},
    {"reshape_like", OpClass::Nop},
    {"contrib_reverse_reshape", OpClass::Nop},
    {"nn_dropout", OpClass::Nop},
});

// Anchor priority: the op that dominates the cost of a fused function.
int priority(OpClass c) {
  if (is_collective(c)) return 4;
  if (is_gemm_like(c)) return 3;
  switch (c) {
  case OpClass::Pool:
  case OpClass::Softmax:
  case OpClass::LogSoftmax:
  case OpClass::Mean:
  case OpClass::Sum:
  case OpClass::Max:
  case OpClass::Variance:
  case OpClass::Cumsum:
  case OpClass::BatchNorm:
  case OpClass::LayerNorm:
  case OpClass::Lrn:
  case OpClass::Resize:
  case OpClass::LayoutTransform:
    return 2;
  case OpClass::Nop:
    return 0;
  default:
    return 1;
  }
}

bool is_number(std::string_view token) {
  if (token.empty()) return false;
  for (char ch : token)
    if (ch < '0' || ch > '9') return false;
  return true;
}

// Strips `tvmgen_<module>_fused_` (or `tvmgen_<module>_` without fusion) or a bare `fused_` prefix.
std::string_view strip_prefix(std::string_view name) {
  constexpr std::string_view kTvmgen = "tvmgen_";
  constexpr std::string_view kFused = "fused_";
  if (name.starts_with(kTvmgen)) {
    name.remove_prefix(kTvmgen.size());
    if (const std::size_t pos = name.find("_fused_"); pos != std::string_view::npos)
      return name.substr(pos + 1 + kFused.size());
    const std::size_t module_end = name.find('_'); // the module name ("default")
    return module_end == std::string_view::npos ? std::string_view{} : name.substr(module_end + 1);
  }
  if (name.starts_with(kFused)) name.remove_prefix(kFused.size());
  return name;
}

// Drops trailing `_`-tokens made of digits only ("add_4" -> "add", "12" -> "").
std::string_view strip_numeric_suffix(std::string_view name) {
  while (!name.empty()) {
    const std::size_t last = name.rfind('_');
    const std::size_t token_begin = last == std::string_view::npos ? 0 : last + 1;
    if (!is_number(name.substr(token_begin))) break;
    name = name.substr(0, last == std::string_view::npos ? 0 : last);
  }
  return name;
}

// Whether `spelling` is the whole `_`-token sequence at the start of `text`.
bool matches_tokens(std::string_view text, std::string_view spelling) {
  return text.starts_with(spelling) && (text.size() == spelling.size() || text[spelling.size()] == '_');
}

// batch_matmul ... softmax ... batch_matmul: the attention that ir/fusion forms with --fuse flash. The tail
// is what lies between the two products (scale, mask, softmax), layout ops left out.
std::optional<Classification> attention(const std::vector<OpClass>& ops) {
  const auto first = std::find(ops.begin(), ops.end(), OpClass::BatchMatmul);
  if (first == ops.end()) return std::nullopt;
  const auto softmax = std::find(first, ops.end(), OpClass::Softmax);
  if (softmax == ops.end()) return std::nullopt;
  const auto second = std::find(softmax, ops.end(), OpClass::BatchMatmul);
  if (second == ops.end()) return std::nullopt;
  Classification result{OpClass::Attention, {}};
  // The scores' elementwise work (scale, mask, softmax); layout ops (reshapes, transposes, identity
  // copies, among them V's, which the attention reads through strides) are no work per score.
  for (auto it = first + 1; it != second; ++it)
    if (*it != OpClass::Nop && *it != OpClass::Transpose && *it != OpClass::Copy) result.tail.push_back(*it);
  return result;
}

// TVM names a fused function "fused_" + its ops joined by `_`; past 80 characters it keeps the first 80,
// appends `_<hex of std::hash>_`, and a repeated name gets `_<n>` (te_compiler_cache.cc, NameSupply).
// For such a `body` (the name after `fused_`) returns the 74 characters kept; nullopt otherwise.
std::optional<std::string_view> truncated_body(std::string_view body) {
  constexpr std::size_t kKept = 80 - std::string_view("fused_").size();
  if (body.size() < kKept + 3 || body[kKept] != '_') return std::nullopt;
  std::string_view tail = body.substr(kKept + 1); // "<hex>_" or "<hex>__<n>"
  if (const std::size_t uniq = tail.find("__"); uniq != std::string_view::npos) {
    if (!is_number(tail.substr(uniq + 2))) return std::nullopt;
    tail = tail.substr(0, uniq + 1);
  }
  if (tail.size() < 2 || tail.size() > 17 || tail.back() != '_') return std::nullopt;
  for (char ch : tail.substr(0, tail.size() - 1))
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return std::nullopt;
  return body.substr(0, kKept);
}

// The class of every spelling that starts with `prefix` (an op name TVM cut short), when they agree.
std::optional<OpClass> class_of_prefix(std::string_view prefix) {
  std::optional<OpClass> found;
  for (const OpSpelling& s : kSpellings)
    if (!prefix.empty() && s.tokens.starts_with(prefix)) {
      if (found && *found != s.op_class) return std::nullopt;
      found = s.op_class;
    }
  return found;
}

} // namespace

std::string_view op_class_name(OpClass c) {
  const auto i = static_cast<std::size_t>(c);
  return i < kOpClassNames.size() ? kOpClassNames[i] : std::string_view{"invalid"};
}

std::optional<OpClass> parse_op_class(std::string_view name) {
  for (std::size_t i = 0; i < kOpClassNames.size(); ++i)
    if (kOpClassNames[i] == name) return static_cast<OpClass>(i);
  return std::nullopt;
}

bool is_gemm_like(OpClass c) {
  return c == OpClass::Dense || c == OpClass::BatchMatmul || c == OpClass::Conv2d ||
         c == OpClass::Conv2dTranspose;
}

bool is_collective(OpClass c) {
  return c == OpClass::AllReduce || c == OpClass::ReduceScatter || c == OpClass::AllGather;
}

std::string_view relay_ops_of(std::string_view func_name) {
  if (func_name == "__nop") return "reshape";
  return strip_numeric_suffix(strip_prefix(func_name));
}

std::optional<Classification> classify_func_name(std::string_view func_name) {
  if (func_name == "__nop") return Classification{OpClass::Nop, {}};
  if (func_name == "__copy") return Classification{OpClass::Copy, {}};
  std::string_view body = strip_prefix(func_name);
  const std::optional<std::string_view> cut = truncated_body(body);
  body = cut ? *cut : strip_numeric_suffix(body);
  if (body.empty() || (!cut && body.back() == '_')) return std::nullopt; // an empty last token

  // Read the `_`-tokens of `body` as op spellings, longest match first (a longer spelling that
  // matches has more tokens).
  std::vector<OpClass> ops;
  for (std::size_t at = 0; at < body.size();) {
    const std::string_view rest = body.substr(at);
    const OpSpelling* best = nullptr;
    for (const OpSpelling& s : kSpellings)
      if ((!best || s.tokens.size() > best->tokens.size()) && matches_tokens(rest, s.tokens)) best = &s;
    if (!best) {
      if (!cut) return std::nullopt; // a token that names no known op (or an empty token)
      // The op TVM cut short: kept when what is left of it can only be one class.
      if (const std::optional<OpClass> c = class_of_prefix(rest)) ops.push_back(*c);
      break;
    }
    ops.push_back(best->op_class);
    at += best->tokens.size() + 1; // past the `_` before the next token
  }
  if (ops.empty()) return std::nullopt;

  return classify_ops(ops);
}

Classification classify_ops(const std::vector<OpClass>& ops) {
  if (ops.empty()) return {OpClass::Nop, {}};
  if (const std::optional<Classification> a = attention(ops)) return *a;
  std::size_t anchor = 0;
  for (std::size_t i = 1; i < ops.size(); ++i)
    if (priority(ops[i]) > priority(ops[anchor])) anchor = i;
  Classification result{ops[anchor], {}};
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (i != anchor && ops[i] != OpClass::Nop) result.tail.push_back(ops[i]);
  return result;
}

} // namespace lightsim::ir
