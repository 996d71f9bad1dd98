// Shape rule of Einsum (ir/onnx/shape_rules.h): the equation's labels give the output shape; a product of
// two operands becomes a dense or batch_matmul on operands transposed (only where their labels are not
// already in order) and reshaped to [batch, M, K] and [batch, K, N] (or [batch, N, K]), its result
// reshaped and transposed to the output's labels; one operand is a transpose or a sum. Traces, diagonals
// and labels summed within one operand are refused.
#include "ir/onnx/shape_rules.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <onnx/onnx_pb.h>
#include <optional>

namespace lightsim::ir::onnxio {
namespace {

using Labels = std::vector<int>; // a letter, or 256 + k for the k-th ellipsis dim (counted from the left)

struct Equation {
  std::vector<Labels> inputs;
  Labels output;
};

// `rank`: the operand's; for the output (no operand) the ellipsis stands for `ellipsis_dims` dims.
Labels parse_term(const NodeContext& ctx, const std::string& term, std::optional<std::size_t> rank,
                  std::size_t& ellipsis_dims) {
  Labels labels;
  std::size_t letters = 0;
  for (char c : term)
    letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  for (std::size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      labels.push_back(c);
    } else if (term.compare(i, 3, "...") == 0) {
      if (rank && *rank < letters)
        ctx.fail("equation term '" + term + "' has more labels than rank " + std::to_string(*rank));
      const std::size_t n = rank ? *rank - letters : ellipsis_dims;
      ellipsis_dims = std::max(ellipsis_dims, n);
      for (std::size_t k = 0; k < n; ++k)
        labels.push_back(static_cast<int>(256 + 64 - n + k)); // right-aligned, as broadcasting aligns
      i += 2;
    } else {
      ctx.fail("equation term '" + term + "' holds '" + std::string(1, c) + "'");
    }
  }
  if (rank && labels.size() != *rank)
    ctx.fail("equation term '" + term + "' has " + std::to_string(labels.size()) + " labels for rank " +
             std::to_string(*rank));
  return labels;
}

Equation parse(const NodeContext& ctx) {
  std::string eq;
  for (char c : ctx.attr_string("equation", ""))
    if (c != ' ') eq += c;
  const std::size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  Equation e;
  std::size_t ellipsis = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    const std::size_t end = std::min(lhs.find(',', begin), lhs.size());
    if (begin > lhs.size()) ctx.fail("equation '" + eq + "' has fewer terms than the node's inputs");
    e.inputs.push_back(parse_term(ctx, lhs.substr(begin, end - begin), ctx.rank(i), ellipsis));
    begin = end + 1;
  }
  if (begin <= lhs.size()) ctx.fail("equation '" + eq + "' has more terms than the node's inputs");
  if (arrow != std::string::npos) {
    e.output = parse_term(ctx, eq.substr(arrow + 2), std::nullopt, ellipsis);
    return e;
  }
  std::map<int, int> count; // implicit output: ellipsis dims, then letters seen once, alphabetically
  for (const Labels& in : e.inputs)
    for (int l : in)
      ++count[l];
  for (std::size_t k = 0; k < ellipsis; ++k)
    e.output.push_back(static_cast<int>(256 + 64 - ellipsis + k));
  for (const auto& [l, n] : count)
    if (l < 256 && n == 1) e.output.push_back(l);
  return e;
}

std::vector<int> positions(const Labels& from, const Labels& to) {
  std::vector<int> perm;
  for (int l : to)
    perm.push_back(static_cast<int>(std::find(from.begin(), from.end(), l) - from.begin()));
  return perm;
}

class Lowering {
public:
  Lowering(NodePlan& plan, std::map<int, std::int64_t>& size) : plan_(plan), size_(size) {}

  Shape shape_of(const Labels& labels) const {
    Shape s;
    for (int l : labels)
      s.push_back(size_.at(l));
    return s;
  }
  std::int64_t product(const Labels& labels, const Labels& in, const Shape& dims) const {
    std::int64_t p = 1;
    for (int l : labels)
      p *= dims[static_cast<std::size_t>(std::find(in.begin(), in.end(), l) - in.begin())];
    return p;
  }
  // Transposes `ref` (with labels `have`) to `want` when they differ; returns the new reference.
  int transpose(int ref, const Labels& have, const Labels& want, const Shape& dims, DType t,
                const char* suffix) {
    if (have == want) return ref;
    Shape out;
    for (int p : positions(have, want))
      out.push_back(dims[static_cast<std::size_t>(p)]);
    return emit(OpClass::Transpose, "transpose", ref, out, t, suffix);
  }
  int reshape(int ref, const Shape& from, const Shape& to, DType t, const char* suffix) {
    if (from == to) return ref;
    return emit(OpClass::Nop, "reshape", ref, to, t, suffix);
  }
  int emit(OpClass c, const char* relay, int ref, const Shape& out, DType t, const char* suffix) {
    plan_.temps.push_back({out, t});
    const int temp = -static_cast<int>(plan_.temps.size());
    plan_.ops.push_back({c, relay, {ref}, {temp}, nullptr, suffix});
    return temp;
  }

private:
  NodePlan& plan_;
  std::map<int, std::int64_t>& size_;
};

bool contains(const Labels& l, int x) {
  return std::find(l.begin(), l.end(), x) != l.end();
}

} // namespace

void einsum(const NodeContext& ctx, const OpRule& rule, NodePlan& plan) {
  ctx.arity(1, 2);
  Equation e = parse(ctx);
  std::map<int, std::int64_t> size;
  for (std::size_t i = 0; i < e.inputs.size(); ++i) {
    const Labels& in = e.inputs[i];
    for (std::size_t d = 0; d < in.size(); ++d) {
      if (std::count(in.begin(), in.end(), in[d]) > 1)
        ctx.fail("operand " + std::to_string(i) + " repeats a label (a diagonal): not supported");
      const std::int64_t dim = ctx.shape(i)[d];
      auto [at, fresh] = size.emplace(in[d], dim);
      if (fresh || at->second == dim) continue;
      if (in[d] >= 256 && (at->second == 1 || dim == 1)) {
        at->second = std::max(at->second, dim);
        continue;
      }
      ctx.fail("label sizes differ between operands (" + std::to_string(at->second) + " and " +
               std::to_string(dim) + ")");
    }
  }
  Shape out;
  for (int l : e.output) {
    if (!size.count(l)) ctx.fail("output label not in any operand");
    out.push_back(size[l]);
  }
  plan.outputs.assign(ctx.num_outputs(), {out, ctx.dtype(0)});
  Lowering low(plan, size);
  const Labels& a = e.inputs[0];
  if (e.inputs.size() == 1) {
    for (int l : e.output)
      if (std::count(e.output.begin(), e.output.end(), l) > 1) ctx.fail("output repeats a label");
    if (e.output.size() == a.size())
      single_op(rule, plan, {0}, a == e.output ? OpClass::Nop : OpClass::Transpose,
                a == e.output ? "reshape" : "transpose");
    else
      single_op(rule, plan, {0}, OpClass::Sum, "sum");
    return;
  }
  const Labels& b = e.inputs[1];
  Labels batch, m, n, k;
  for (int l : a) {
    if (contains(b, l))
      (contains(e.output, l) ? batch : k).push_back(l);
    else if (contains(e.output, l))
      m.push_back(l);
    else
      ctx.fail("a label of operand 0 is summed within it: not supported");
  }
  for (int l : b)
    if (!contains(a, l)) {
      if (!contains(e.output, l)) ctx.fail("a label of operand 1 is summed within it: not supported");
      n.push_back(l);
    }
  const auto cat = [](std::initializer_list<const Labels*> parts) {
    Labels all;
    for (const Labels* p : parts)
      all.insert(all.end(), p->begin(), p->end());
    return all;
  };
  const Shape &sa = ctx.shape(0), &sb = ctx.shape(1);
  const std::int64_t M = low.product(m, a, sa), K = low.product(k, a, sa), N = low.product(n, b, sb);
  const Labels a_want = cat({&batch, &m, &k});
  int ra = low.transpose(0, a, a_want, sa, ctx.dtype(0), "/transpose_a");
  Shape a_dims;
  for (int l : a_want)
    a_dims.push_back(sa[static_cast<std::size_t>(std::find(a.begin(), a.end(), l) - a.begin())]);
  const bool dense = batch.empty();
  const std::int64_t batch_a = low.product(batch, a, sa), batch_b = low.product(batch, b, sb);
  // One label each for M, K and N: the product reads the operands as they are (batch_matmul takes any
  // number of batch dims); otherwise they are flattened to [batch, M, K] and [batch, K, N].
  const bool simple = m.size() == 1 && k.size() == 1 && n.size() == 1;
  if (!simple)
    ra = low.reshape(ra, a_dims, dense ? Shape{M, K} : Shape{batch_a, M, K}, ctx.dtype(0), "/reshape_a");
  const Labels b_nk = cat({&batch, &n, &k}), b_kn = cat({&batch, &k, &n});
  const bool nk = b == b_nk && n.size() == 1 && k.size() == 1;
  const Labels& b_want = nk ? b_nk : b_kn;
  int rb = low.transpose(1, b, b_want, sb, ctx.dtype(1), "/transpose_b");
  Shape b_dims;
  for (int l : b_want)
    b_dims.push_back(sb[static_cast<std::size_t>(std::find(b.begin(), b.end(), l) - b.begin())]);
  const Shape b3 =
      nk ? (dense ? Shape{N, K} : Shape{batch_b, N, K}) : (dense ? Shape{K, N} : Shape{batch_b, K, N});
  if (!simple) rb = low.reshape(rb, b_dims, b3, ctx.dtype(1), "/reshape_b");
  std::int64_t batch_out = 1;
  for (int l : batch)
    batch_out *= size[l];
  const Labels natural = cat({&batch, &m, &n});
  const Shape natural_shape = low.shape_of(natural);
  const Shape product_shape = simple ? natural_shape : dense ? Shape{M, N} : Shape{batch_out, M, N};
  const bool last = natural == e.output && natural_shape == product_shape;
  if (last) {
    single_op(rule, plan, {ra, rb}, dense ? OpClass::Dense : OpClass::BatchMatmul,
              dense ? "nn_dense" : "nn_batch_matmul");
    return;
  }
  plan.temps.push_back({product_shape, ctx.dtype(0)});
  int r = -static_cast<int>(plan.temps.size());
  plan.ops.push_back({dense ? OpClass::Dense : OpClass::BatchMatmul,
                      dense ? "nn_dense" : "nn_batch_matmul",
                      {ra, rb},
                      {r},
                      nullptr,
                      "/product"});
  r = low.reshape(r, product_shape, natural_shape, ctx.dtype(0), "/reshape_out");
  r = low.transpose(r, natural, e.output, natural_shape, ctx.dtype(0), "/transpose_out");
  // The last op writes the node's output.
  plan.ops.back().outputs = {0};
  plan.temps.pop_back();
}

} // namespace lightsim::ir::onnxio
