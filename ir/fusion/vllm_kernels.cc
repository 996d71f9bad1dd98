#include "ir/fusion/vllm_kernels.h"

#include "ir/dtype.h"
#include "ir/fusion/op_pattern.h"
#include "ir/int_math.h"

#include <algorithm>
#include <numeric>

namespace lightsim::ir::fusion {
namespace {

bool is_reduction(OpClass c) {
  return op_pattern(c) == OpPattern::CommReduce;
}
// An anchor (dense, softmax ...) or an unknown op: the merges leave its group alone.
bool is_anchor(OpClass c) {
  return c != OpClass::Input && op_pattern(c) >= OpPattern::OutEWiseFusable;
}
// An op that computes, rather than only moving data (reshape, transpose, slices).
bool computes(OpClass c) {
  const OpPattern p = op_pattern(c);
  return p == OpPattern::ElemWise || p == OpPattern::Broadcast || p == OpPattern::CommReduce;
}

// Groups as sets of ops, merged with a union-find over the group values of a Grouping. Each group keeps
// its members as an intrusive list (next_ per op), its first and last op, and what the merges ask of it.
class GroupSets {
public:
  GroupSets(const Graph& g, const Grouping& grouping)
      : g_(g), group_of_(grouping.group_of), next_(g.ops.size(), -1), is_head_(g.tensors.size(), false) {
    const std::size_t n = g.ops.size();
    // Group values name root nodes of TVM's graph, virtual ones included: they may exceed the op count.
    const std::size_t values =
        group_of_.empty()
            ? 0
            : static_cast<std::size_t>(*std::max_element(group_of_.begin(), group_of_.end())) + 1;
    parent_.resize(values);
    std::iota(parent_.begin(), parent_.end(), 0);
    info_.resize(values);
    stamp_.assign(values, 0);
    for (std::size_t i = n; i-- > 0;) { // pushed in reverse: each list in op order
      const auto op_id = static_cast<OpId>(i);
      Info& f = info_[static_cast<std::size_t>(group_of_[i])];
      next_[i] = f.head;
      f.head = op_id;
      if (f.tail < 0) f.tail = op_id;
      f.first = op_id;
      f.last = std::max(f.last, op_id);
      const OpClass c = g.ops[i].op_class;
      f.computes = f.computes || c != OpClass::Input;
      f.anchored = f.anchored || is_anchor(c);
      f.reduces = f.reduces || is_reduction(c);
    }
    for (TensorId t : g.heads)
      is_head_[static_cast<std::size_t>(t)] = true;
  }

  std::int32_t find(std::int32_t v) {
    while (parent_[static_cast<std::size_t>(v)] != v)
      v = parent_[static_cast<std::size_t>(v)] =
          parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(v)])];
    return v;
  }
  std::int32_t group(OpId op) { return find(group_of_[static_cast<std::size_t>(op)]); }
  std::int32_t group_of_tensor(TensorId t) { return group(producer(t)); }
  OpId producer(TensorId t) const { return g_.tensors[static_cast<std::size_t>(t)].producer; }

  template <class F> void for_each_member(std::int32_t v, F&& f) const {
    for (OpId m = info(v).head; m >= 0; m = next_[static_cast<std::size_t>(m)])
      f(m);
  }

  // `from` joins `into` (both roots).
  void merge(std::int32_t into, std::int32_t from) {
    parent_[static_cast<std::size_t>(from)] = into;
    Info& a = info_[static_cast<std::size_t>(into)];
    const Info& b = info(from);
    next_[static_cast<std::size_t>(a.tail)] = b.head;
    a.tail = b.tail;
    a.first = std::min(a.first, b.first);
    a.last = std::max(a.last, b.last);
    a.computes = a.computes || b.computes;
    a.anchored = a.anchored || b.anchored;
    a.reduces = a.reduces || b.reduces;
  }

  bool reduces(std::int32_t v) const { return info(v).reduces; }
  // A group the merges may touch: it computes, has no anchor (nor an unknown op).
  bool plain(std::int32_t v) const { return info(v).computes && !info(v).anchored; }

  bool is_constant(TensorId t) const {
    const Op& p = op(producer(t));
    return p.op_class == OpClass::Input && p.is_param;
  }

  // Tensors the group reads from outside it, each once, in member order.
  std::vector<TensorId> inputs(std::int32_t v) {
    std::vector<TensorId> in;
    for_each_member(v, [&](OpId m) {
      for (TensorId t : op(m).inputs)
        if (group_of_tensor(t) != v && std::find(in.begin(), in.end(), t) == in.end()) in.push_back(t);
    });
    return in;
  }
  // Tensors its computing members write that are read outside it or are graph outputs.
  std::vector<TensorId> outputs(std::int32_t v) {
    std::vector<TensorId> out;
    for_each_member(v, [&](OpId m) {
      if (op(m).op_class == OpClass::Input) return;
      for (TensorId t : op(m).outputs) {
        bool leaves = is_head_[static_cast<std::size_t>(t)];
        for (OpId c : g_.consumers[static_cast<std::size_t>(t)])
          leaves = leaves || group(c) != v;
        if (leaves) out.push_back(t);
      }
    });
    return out;
  }
  double output_elements(std::int32_t v) {
    double e = 0;
    for (TensorId t : outputs(v))
      e += static_cast<double>(g_.tensors[static_cast<std::size_t>(t)].elements);
    return e;
  }

  // True when group `x` reads, directly or through other groups, something group `y` writes. Ops are in
  // topological order, so a group whose last op precedes y's first cannot depend on y.
  bool depends_on(std::int32_t x, std::int32_t y) {
    ++epoch_;
    const OpId y_first = info(y).first;
    stack_.assign(1, x);
    bool found = false;
    while (!stack_.empty() && !found) {
      const std::int32_t z = stack_.back();
      stack_.pop_back();
      for_each_member(z, [&](OpId m) {
        for (TensorId t : op(m).inputs) {
          const std::int32_t w = group_of_tensor(t);
          found = found || w == y;
          if (w == y || w == z || stamp_[static_cast<std::size_t>(w)] == epoch_ || info(w).last < y_first)
            continue;
          stamp_[static_cast<std::size_t>(w)] = epoch_;
          stack_.push_back(w);
        }
      });
    }
    return found;
  }

  const Op& op(OpId id) const { return g_.ops[static_cast<std::size_t>(id)]; }
  std::size_t values() const { return parent_.size(); }

private:
  struct Info {
    OpId head = -1, tail = -1; // the member list
    OpId first = -1, last = -1;
    bool computes = false, anchored = false, reduces = false;
  };
  const Info& info(std::int32_t v) const { return info_[static_cast<std::size_t>(v)]; }

  const Graph& g_;
  const std::vector<std::int32_t>& group_of_;
  std::vector<std::int32_t> parent_;
  std::vector<OpId> next_; // per op: the next member of its group
  std::vector<Info> info_; // per group value (valid at roots)
  std::vector<bool> is_head_;
  std::vector<std::uint32_t> stamp_;
  std::vector<std::int32_t> stack_;
  std::uint32_t epoch_ = 0;
};

// Roots of the groups, in the order of their first op.
std::vector<std::int32_t> roots_in_order(GroupSets& s, std::size_t ops) {
  std::vector<std::int32_t> roots;
  std::vector<bool> seen(s.values(), false);
  for (std::size_t i = 0; i < ops; ++i) {
    const std::int32_t v = s.group(static_cast<OpId>(i));
    if (!seen[static_cast<std::size_t>(v)]) {
      seen[static_cast<std::size_t>(v)] = true;
      roots.push_back(v);
    }
  }
  return roots;
}

} // namespace

std::vector<std::uint8_t> merge_vllm_kernels(const Graph& g, Grouping& grouping) {
  GroupSets s(g, grouping);
  const std::size_t n = g.ops.size();

  // Normalisations: a reducing group takes the groups that scale the rows it reduced.
  std::vector<std::int32_t> norms;
  for (std::int32_t r : roots_in_order(s, n)) {
    if (!s.plain(r) || !s.reduces(r) || s.find(r) != r) continue;
    const std::vector<TensorId> r_inputs = s.inputs(r);
    for (TensorId t : s.outputs(r))
      for (OpId c : g.consumers[static_cast<std::size_t>(t)]) {
        const std::int32_t v = s.group(c);
        if (v == r || !s.plain(v) || s.reduces(v)) continue;
        bool rows_only = true;
        for (TensorId in : s.inputs(v))
          rows_only = rows_only && (s.group_of_tensor(in) == r || s.is_constant(in) ||
                                    std::find(r_inputs.begin(), r_inputs.end(), in) != r_inputs.end());
        if (rows_only) s.merge(r, v);
      }
    norms.push_back(r);
  }

  // Residual adds: the one computed tensor a normalisation reads, when an add-only group writes it.
  std::vector<std::uint8_t> vectorized_root(s.values(), 0);
  for (std::int32_t r : norms) {
    std::vector<TensorId> computed;
    for (TensorId t : s.inputs(r))
      if (!s.is_constant(t)) computed.push_back(t);
    if (computed.size() != 1) continue;
    const std::int32_t a = s.group_of_tensor(computed.front());
    if (!s.plain(a) || s.reduces(a)) continue;
    bool adds = false, only_adds = true;
    s.for_each_member(a, [&](OpId m) {
      const OpClass c = s.op(m).op_class;
      adds = adds || c == OpClass::Add;
      only_adds = only_adds && (c == OpClass::Add || c == OpClass::Nop || c == OpClass::Input);
    });
    std::size_t operands = 0;
    for (TensorId t : s.inputs(a))
      operands += !s.is_constant(t);
    if (!adds || !only_adds || operands < 2) continue;
    s.merge(r, a);
    vectorized_root[static_cast<std::size_t>(r)] = 1;
  }

  // Siblings: plain, non-reducing groups that read one non-scalar constant and do not depend on each other.
  for (std::size_t i = 0; i < n; ++i) {
    const Op& p = g.ops[i];
    if (p.op_class != OpClass::Input || !p.is_param || p.outputs.size() != 1) continue;
    const TensorId t = p.outputs.front();
    if (g.tensors[static_cast<std::size_t>(t)].shape.empty()) continue;
    std::int32_t current = -1;
    for (OpId c : g.consumers[static_cast<std::size_t>(t)]) {
      const std::int32_t v = s.group(c);
      if (v == current || !s.plain(v) || s.reduces(v)) continue;
      if (current >= 0 && s.output_elements(current) == s.output_elements(v) && !s.depends_on(v, current) &&
          !s.depends_on(current, v)) {
        s.merge(current, v);
        continue;
      }
      current = v;
    }
  }

  std::vector<std::uint8_t> vectorized(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t v = s.group(static_cast<OpId>(i));
    grouping.group_of[i] = v;
    vectorized[i] = vectorized_root[static_cast<std::size_t>(v)];
  }
  return vectorized;
}

RowKernel vllm_row_kernel(const Graph& g, std::span<const OpId> body, std::span<const TensorId> outputs,
                          bool vectorized, int row_cta_threads, int vector_access_bytes) {
  auto tensor = [&](TensorId t) -> const Tensor& { return g.tensors[static_cast<std::size_t>(t)]; };
  auto any_member = [&](bool (*f)(OpClass)) {
    return std::any_of(body.begin(), body.end(),
                       [&](OpId m) { return f(g.ops[static_cast<std::size_t>(m)].op_class); });
  };
  if (any_member(is_anchor) || !any_member(computes)) return {}; // a GEMM's group, or a layout copy
  RowKernel k;
  std::int64_t row_length = 1;
  const auto reduction = std::find_if(body.begin(), body.end(), [&](OpId m) {
    return is_reduction(g.ops[static_cast<std::size_t>(m)].op_class);
  });
  if (reduction != body.end()) { // rows = the reduction's results, each over the reduced extent
    const Op& r = g.ops[static_cast<std::size_t>(*reduction)];
    const auto out =
        static_cast<std::int64_t>(std::max<std::uint64_t>(1, tensor(r.outputs.front()).elements));
    k.rows = out;
    row_length =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(tensor(r.inputs.front()).elements) / out);
    k.passes = 2;
  } else if (!outputs.empty()) { // rows of the outputs' last axis
    const Tensor& first = tensor(outputs.front());
    row_length = first.shape.empty() ? 1 : std::max<std::int64_t>(1, first.shape.back());
    for (TensorId t : outputs)
      k.rows += static_cast<std::int64_t>(tensor(t).elements) /
                (tensor(t).shape.empty() ? 1 : std::max<std::int64_t>(1, tensor(t).shape.back()));
    k.passes = 1;
  }
  if (k.rows <= 0) return {};
  const std::int64_t element_bytes =
      outputs.empty() ? 1 : static_cast<std::int64_t>(dtype_storage_bytes(tensor(outputs.front()).dtype));
  const std::int64_t per_access =
      vectorized ? std::max<std::int64_t>(1, vector_access_bytes / element_bytes) : 1;
  k.items_per_row = ceil_div(row_length, per_access);
  k.threads_per_cta = std::min<std::int64_t>(k.items_per_row, row_cta_threads);
  return k;
}

} // namespace lightsim::ir::fusion
