#include "ir/fusion/attention.h"

#include "ir/fusion/op_pattern.h"

#include <algorithm>

namespace lightsim::ir::fusion {
namespace {

constexpr std::size_t kMaxScoreOps = 16;   // elementwise ops between QK^T and softmax that we follow
constexpr std::size_t kMaxOperandOps = 16; // layout and scale ops on one operand that we follow

class AttentionMatcher {
public:
  explicit AttentionMatcher(const Graph& g)
      : g_(g), is_head_(g.tensors.size(), false), taken_(g.ops.size(), false) {
    for (TensorId t : g.heads)
      is_head_[static_cast<std::size_t>(t)] = true;
  }

  std::vector<std::vector<OpId>> run() {
    std::vector<std::vector<OpId>> found;
    for (std::size_t i = 0; i < g_.ops.size(); ++i) {
      std::vector<OpId> members;
      if (match(static_cast<OpId>(i), members)) {
        for (OpId m : members)
          taken_[static_cast<std::size_t>(m)] = true;
        found.push_back(std::move(members));
      }
    }
    return found;
  }

private:
  const Op& op(OpId id) const { return g_.ops[static_cast<std::size_t>(id)]; }
  OpId producer(TensorId t) const { return g_.tensors[static_cast<std::size_t>(t)].producer; }

  // The op writes one tensor, read by one op, and is no graph output: it can vanish inside the group.
  bool internal(OpId id) const {
    const Op& o = op(id);
    if (o.outputs.size() != 1 || taken_[static_cast<std::size_t>(id)]) return false;
    const auto t = static_cast<std::size_t>(o.outputs[0]);
    return !is_head_[t] && g_.consumers[t].size() == 1;
  }
  bool plain(OpId id, OpClass c) const { return op(id).op_class == c && op(id).features.fused_tail.empty(); }

  // A copy that changes nothing (a broadcast_to or copy to its input's own shape, as PyTorch front ends
  // leave after softmax): a view like a reshape.
  bool identity_copy(OpId id) const {
    const Op& o = op(id);
    if (!plain(id, OpClass::Copy) || o.inputs.size() != 1 || o.outputs.size() != 1) return false;
    return g_.tensors[static_cast<std::size_t>(o.inputs[0])].shape ==
           g_.tensors[static_cast<std::size_t>(o.outputs[0])].shape;
  }

  // Follows reshapes and identity copies up from tensor t; returns the first op that is neither.
  OpId skip_views(TensorId t, std::vector<OpId>& members) const {
    OpId id = producer(t);
    while (id >= 0 && (plain(id, OpClass::Nop) || identity_copy(id)) && internal(id) &&
           op(id).inputs.size() == 1) {
      members.push_back(id);
      id = producer(op(id).inputs[0]);
    }
    return id;
  }

  // Follows the scores up from tensor t, through views and at most kMaxScoreOps - steps elementwise or
  // broadcast ops (a scale, a mask), to the Q K^T product; appends the ops passed to `members` and returns
  // the product, or -1 (members unchanged). Of an op's operands, the one the product is found through
  // continues the chain; the others (graph inputs, constants, a mask computed elsewhere) are read by the
  // fused op.
  OpId follow_scores(TensorId t, std::size_t steps, std::vector<OpId>& members) const {
    const std::size_t mark = members.size();
    const OpId id = skip_views(t, members);
    if (id >= 0 && plain(id, OpClass::BatchMatmul)) return id;
    const bool passable = id >= 0 && steps < kMaxScoreOps && op(id).features.fused_tail.empty() &&
                          internal(id) && op_pattern(op(id).op_class) <= OpPattern::Broadcast;
    if (passable) {
      members.push_back(id);
      for (TensorId in : op(id).inputs) {
        if (op(producer(in)).op_class == OpClass::Input) continue;
        const OpId qk = follow_scores(in, steps + 1, members);
        if (qk >= 0) return qk;
      }
    }
    members.resize(mark);
    return -1;
  }

  // A scalar constant (a bound parameter of one element): the softmax scale as the exports write it.
  bool scalar_constant(TensorId t) const {
    const OpId p = producer(t);
    return p >= 0 && op(p).op_class == OpClass::Input && op(p).is_param &&
           g_.tensors[static_cast<std::size_t>(t)].elements == 1;
  }

  // Follows an operand of the products (Q, K or V) up through what a FlashAttention kernel does itself:
  // layout changes (reshapes, transposes, identity copies: it reads its operands through strides) and a
  // multiply or divide by a scalar constant (it scales the scores). Appends those ops to `members`.
  void absorb_operand(TensorId t, std::vector<OpId>& members) const {
    for (std::size_t steps = 0; steps < kMaxOperandOps; ++steps) {
      const OpId id = producer(t);
      if (id < 0 || !internal(id) || !op(id).features.fused_tail.empty()) return;
      const Op& o = op(id);
      const bool layout =
          (o.op_class == OpClass::Nop || o.op_class == OpClass::Transpose || identity_copy(id)) &&
          o.inputs.size() == 1;
      const bool scale = (o.op_class == OpClass::Multiply || o.op_class == OpClass::Divide) &&
                         o.inputs.size() == 2 && scalar_constant(o.inputs[1]) != scalar_constant(o.inputs[0]);
      if (!layout && !scale) return;
      members.push_back(id);
      t = layout || !scalar_constant(o.inputs[0]) ? o.inputs[0] : o.inputs[1];
    }
  }

  bool match(OpId av, std::vector<OpId>& members) {
    if (!plain(av, OpClass::BatchMatmul) || taken_[static_cast<std::size_t>(av)] || op(av).inputs.size() != 2)
      return false;
    members = {av};
    const OpId softmax = skip_views(op(av).inputs[0], members);
    if (softmax < 0 || !plain(softmax, OpClass::Softmax) || !internal(softmax) ||
        op(softmax).inputs.size() != 1)
      return false;
    members.push_back(softmax);
    const OpId id = follow_scores(op(softmax).inputs[0], 0, members);
    if (id < 0 || !internal(id) || op(id).inputs.size() != 2) return false;
    const OpFeatures &qk = op(id).features, &pv = op(av).features;
    // QK^T is [b, m, n]; AV takes [b, m, n] by [n, dv].
    if (qk.gemm_batch != pv.gemm_batch || qk.gemm_m != pv.gemm_m || qk.gemm_n != pv.gemm_k) return false;
    members.push_back(id);
    for (TensorId operand : {op(id).inputs[0], op(id).inputs[1], op(av).inputs[1]})
      absorb_operand(operand, members);
    std::sort(members.begin(), members.end());
    return members.back() == av;
  }

  const Graph& g_;
  std::vector<bool> is_head_, taken_;
};

} // namespace

std::vector<std::vector<OpId>> find_attention(const Graph& graph) {
  return AttentionMatcher(graph).run();
}

} // namespace lightsim::ir::fusion
