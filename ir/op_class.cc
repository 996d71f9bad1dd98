#include "ir/op_class.h"

#include <algorithm>
#include <array>
#include <utility>

namespace lightsim::ir {
namespace {

// Indexed by OpClass; keep in step with the enum in op_class.h.
constexpr std::array<std::string_view, kNumOpClasses> kOpClassNames{
    "input",  "nop",       "dense",       "batch_matmul",
    "conv2d", "attention", "pool",        "layout_transform",
    "add",    "subtract",  "multiply",    "divide",
    "power",  "negative",  "sqrt",        "rsqrt",
    "exp",    "erf",       "relu",        "sigmoid",
    "tanh",   "cast",      "less",        "where",
    "mean",   "sum",       "softmax",     "transpose",
    "take",   "split",     "concatenate", "strided_slice",
    "opaque",
};

// The op names that may appear in a TVM func_name, as their `_`-separated tokens. Relay's operator
// names with `.` replaced by `_` (nn.dense -> nn_dense), which is how TVM spells them in fused names.
struct OpSpelling {
  std::string_view tokens; // e.g. "nn_contrib_conv2d_NCHWc": tokens joined by `_`
  OpClass op_class;
};

constexpr auto kSpellings = std::to_array<OpSpelling>({
    {"nn_dense", OpClass::Dense},
    {"nn_contrib_dense_pack", OpClass::Dense},
    {"nn_matmul", OpClass::Dense},
    {"nn_batch_matmul", OpClass::BatchMatmul},
    {"nn_conv2d", OpClass::Conv2d},
    {"nn_contrib_conv2d_NCHWc", OpClass::Conv2d},
    {"nn_contrib_depthwise_conv2d_NCHWc", OpClass::Conv2d},
    {"nn_max_pool2d", OpClass::Pool},
    {"nn_avg_pool2d", OpClass::Pool},
    {"nn_global_avg_pool2d", OpClass::Pool},
    {"nn_global_max_pool2d", OpClass::Pool},
    {"nn_adaptive_avg_pool2d", OpClass::Pool},
    {"nn_adaptive_max_pool2d", OpClass::Pool},
    {"layout_transform", OpClass::LayoutTransform},
    {"add", OpClass::Add},
    {"nn_bias_add", OpClass::Add},
    {"subtract", OpClass::Subtract},
    {"multiply", OpClass::Multiply},
    {"divide", OpClass::Divide},
    {"power", OpClass::Power},
    {"negative", OpClass::Negative},
    {"sqrt", OpClass::Sqrt},
    {"rsqrt", OpClass::Rsqrt},
    {"exp", OpClass::Exp},
    {"fast_exp", OpClass::Exp},
    {"erf", OpClass::Erf},
    {"fast_erf", OpClass::Erf},
    {"nn_relu", OpClass::Relu},
    {"sigmoid", OpClass::Sigmoid},
    {"tanh", OpClass::Tanh},
    {"fast_tanh", OpClass::Tanh},
    {"cast", OpClass::Cast},
    {"less", OpClass::Less},
    {"where", OpClass::Where},
    {"mean", OpClass::Mean},
    {"sum", OpClass::Sum},
    {"nn_softmax", OpClass::Softmax},
    {"nn_fast_softmax", OpClass::Softmax},
    {"transpose", OpClass::Transpose},
    {"take", OpClass::Take},
    {"split", OpClass::Split},
    {"concatenate", OpClass::Concatenate},
    {"strided_slice", OpClass::StridedSlice},
    {"reshape", OpClass::Nop},
    {"squeeze", OpClass::Nop},
    {"expand_dims", OpClass::Nop},
    {"nn_batch_flatten", OpClass::Nop},
});

// Anchor priority: the op that dominates the cost of a fused function.
int priority(OpClass c) {
  if (is_gemm_like(c)) return 3;
  switch (c) {
  case OpClass::Pool:
  case OpClass::Softmax:
  case OpClass::Mean:
  case OpClass::Sum:
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
// is what lies between the two products (scale, mask, softmax), Nops left out.
std::optional<Classification> attention(const std::vector<OpClass>& ops) {
  const auto first = std::find(ops.begin(), ops.end(), OpClass::BatchMatmul);
  if (first == ops.end()) return std::nullopt;
  const auto softmax = std::find(first, ops.end(), OpClass::Softmax);
  if (softmax == ops.end()) return std::nullopt;
  const auto second = std::find(softmax, ops.end(), OpClass::BatchMatmul);
  if (second == ops.end()) return std::nullopt;
  Classification result{OpClass::Attention, {}};
  for (auto it = first + 1; it != second; ++it)
    if (*it != OpClass::Nop) result.tail.push_back(*it);
  return result;
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
  return c == OpClass::Dense || c == OpClass::BatchMatmul || c == OpClass::Conv2d;
}

std::string_view relay_ops_of(std::string_view func_name) {
  if (func_name == "__nop") return "reshape";
  return strip_numeric_suffix(strip_prefix(func_name));
}

std::optional<Classification> classify_func_name(std::string_view func_name) {
  if (func_name == "__nop") return Classification{OpClass::Nop, {}};
  const std::string_view body = strip_numeric_suffix(strip_prefix(func_name));
  if (body.empty()) return std::nullopt;

  // Read the `_`-tokens of `body` as op spellings, longest match first (a longer spelling that
  // matches has more tokens).
  std::vector<OpClass> ops;
  for (std::size_t at = 0;;) {
    const std::string_view rest = body.substr(at);
    const OpSpelling* best = nullptr;
    for (const OpSpelling& s : kSpellings)
      if ((!best || s.tokens.size() > best->tokens.size()) && matches_tokens(rest, s.tokens)) best = &s;
    if (!best) return std::nullopt; // a token that names no known op (or an empty token)
    ops.push_back(best->op_class);
    at += best->tokens.size();
    if (at == body.size()) break;
    ++at; // the `_` before the next token
  }

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
