#include "ir/fusion/fold_constants.h"

#include <algorithm>
#include <string>
#include <vector>

namespace lightsim::ir::fusion {
namespace {

constexpr TensorId kGone = -1;

// Ops of `g` done ahead of time: every tensor they read is a bound parameter or a folded op's output
// produced earlier in the order.
std::vector<char> foldable_ops(const Graph& g) {
  std::vector<char> folded(g.ops.size(), 0);
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    if (op.op_class == OpClass::Input || op.inputs.empty()) continue;
    folded[i] = std::all_of(op.inputs.begin(), op.inputs.end(), [&](TensorId t) {
      const OpId p = g.tensors[static_cast<std::size_t>(t)].producer;
      if (p < 0 || static_cast<std::size_t>(p) >= i) return false;
      const Op& producer = g.ops[static_cast<std::size_t>(p)];
      return producer.op_class == OpClass::Input ? producer.is_param
                                                 : folded[static_cast<std::size_t>(p)] != 0;
    });
  }
  return folded;
}

} // namespace

FoldResult fold_constants(const Graph& g) {
  const std::vector<char> folded = foldable_ops(g);
  // Tensors the folded graph still has: read by an op that stays, or graph outputs.
  std::vector<char> needed(g.tensors.size(), 0);
  for (std::size_t i = 0; i < g.ops.size(); ++i)
    if (!folded[i] && g.ops[i].op_class != OpClass::Input)
      for (TensorId t : g.ops[i].inputs)
        needed[static_cast<std::size_t>(t)] = 1;
  for (TensorId t : g.heads)
    needed[static_cast<std::size_t>(t)] = 1;

  FoldResult r;
  Graph& out = r.graph;
  out.source = g.source;
  std::vector<TensorId> remap(g.tensors.size(), kGone);
  const auto keep_tensor = [&](TensorId t) {
    TensorId& id = remap[static_cast<std::size_t>(t)];
    if (id == kGone) {
      id = static_cast<TensorId>(out.tensors.size());
      out.tensors.push_back(g.tensors[static_cast<std::size_t>(t)]);
    }
    return id;
  };
  const auto place_outputs = [&](Op& op) {
    const auto id = static_cast<OpId>(out.ops.size());
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      op.outputs[k] = keep_tensor(op.outputs[k]);
      Tensor& t = out.tensors[static_cast<std::size_t>(op.outputs[k])];
      t.producer = id;
      t.output_index = static_cast<std::int32_t>(k);
    }
  };

  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const bool param = op.op_class == OpClass::Input && op.is_param;
    const bool used = std::any_of(op.outputs.begin(), op.outputs.end(),
                                  [&](TensorId t) { return needed[static_cast<std::size_t>(t)] != 0; });
    if (folded[i]) {
      ++r.folded_ops;
      // Each output an op that stays reads becomes a weight of its own, named after the folded op.
      std::size_t made = 0;
      for (TensorId t : op.outputs) {
        if (!needed[static_cast<std::size_t>(t)]) continue;
        Op weight;
        weight.name = made++ == 0 ? op.name : op.name + "_" + std::to_string(made - 1);
        weight.op_class = OpClass::Input;
        weight.is_param = true;
        weight.outputs = {t};
        weight.node_index = op.node_index;
        place_outputs(weight);
        out.ops.push_back(std::move(weight));
      }
      continue;
    }
    if (param && !used) {
      ++r.dropped_params;
      continue;
    }
    Op copy = op;
    for (TensorId& t : copy.inputs)
      t = keep_tensor(t);
    place_outputs(copy);
    out.ops.push_back(std::move(copy));
  }
  for (TensorId t : g.heads)
    out.heads.push_back(keep_tensor(t));
  out.finalize();
  return r;
}

} // namespace lightsim::ir::fusion
