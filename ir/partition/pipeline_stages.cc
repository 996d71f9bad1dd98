#include "ir/partition/pipeline_stages.h"

#include "ir/error.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace lightsim::ir {
namespace {

// Bytes of the bound parameters (weights, constants) op reads: its inputs produced by parameter ops.
double weight_bytes(const Graph& graph, const Op& op) {
  double bytes = 0;
  for (std::size_t k = 0; k < op.inputs.size(); ++k) {
    const TensorId t = op.inputs[k];
    if (std::find(op.inputs.begin(), op.inputs.begin() + static_cast<std::ptrdiff_t>(k), t) !=
        op.inputs.begin() + static_cast<std::ptrdiff_t>(k))
      continue; // a tensor read twice is held once
    const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
    if (tensor.producer >= 0 && graph.ops[static_cast<std::size_t>(tensor.producer)].is_param)
      bytes += static_cast<double>(tensor.bytes);
  }
  return bytes;
}

// crossing[i]: the activation tensors (outputs of compute ops) that an op before position i produces and
// an op at i or after reads: what a cut between op i-1 and op i sends to the next stage.
std::vector<std::size_t> crossing_tensors(const Graph& graph) {
  std::vector<int> change(graph.ops.size() + 1, 0);
  for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
    const OpId producer = graph.tensors[t].producer;
    if (producer < 0 || graph.ops[static_cast<std::size_t>(producer)].op_class == OpClass::Input ||
        graph.consumers[t].empty())
      continue;
    ++change[static_cast<std::size_t>(producer) + 1];
    --change[static_cast<std::size_t>(graph.consumers[t].back()) + 1];
  }
  std::vector<std::size_t> crossing(graph.ops.size() + 1, 0);
  int live = 0;
  for (std::size_t i = 0; i <= graph.ops.size(); ++i) {
    live += change[i];
    crossing[i] = static_cast<std::size_t>(live);
  }
  return crossing;
}

} // namespace

void assign_pipeline_stages(Graph& graph, int stages, const std::string& flag) {
  if (stages < 1)
    throw InputError(graph.source, flag + " " + std::to_string(stages) + ": must be at least 1");
  std::vector<double> weights(graph.ops.size(), 0.0);
  double total = 0;
  std::size_t weighted_ops = 0;
  for (std::size_t id = 0; id < graph.ops.size(); ++id) {
    if (graph.ops[id].op_class == OpClass::Input) continue;
    weights[id] = weight_bytes(graph, graph.ops[id]);
    total += weights[id];
    weighted_ops += weights[id] > 0;
  }
  if (stages > 1 && total <= 0)
    throw InputError(graph.source, flag + " " + std::to_string(stages) +
                                       ": the graph reads no weights, and stages split it by its weights");
  if (static_cast<std::size_t>(stages) > std::max<std::size_t>(weighted_ops, 1))
    throw InputError(graph.source, flag + " " + std::to_string(stages) + " is more than the graph's " +
                                       std::to_string(weighted_ops) +
                                       " ops that read weights (a stage needs at least one)");

  // The cuts: between op i-1 and op i, where fewest activations cross (a transformer: between layers, the
  // hidden state alone), the one nearest each stage's share of the weights.
  const std::vector<std::size_t> crossing = crossing_tensors(graph);
  std::vector<double> before(graph.ops.size() + 1, 0.0); // weight bytes of the ops before position i
  for (std::size_t id = 0; id < graph.ops.size(); ++id)
    before[id + 1] = before[id] + weights[id];
  std::size_t fewest = graph.tensors.size();
  for (std::size_t i = 1; i < graph.ops.size(); ++i)
    if (before[i] > 0 && before[i] < total) fewest = std::min(fewest, crossing[i]);
  std::size_t places = 0; // where a cut may go, counted once per distinct weight share before it
  for (std::size_t i = 1, last = 0; i < graph.ops.size(); ++i)
    if (crossing[i] == fewest && before[i] > 0 && before[i] < total && before[i] > before[last]) {
      ++places;
      last = i;
    }
  if (places + 1 < static_cast<std::size_t>(stages))
    throw InputError(graph.source,
                     flag + " " + std::to_string(stages) + " needs " + std::to_string(stages - 1) +
                         " cuts, and the graph has " + std::to_string(places) +
                         " places where the fewest activation tensors (" + std::to_string(fewest) +
                         ") cross (a transformer: between layers, and between attention and MLP)");
  std::vector<std::size_t> cuts;
  for (int s = 1; s < stages; ++s) {
    const double target = total * s / stages;
    std::size_t best = 0;
    for (std::size_t i = (cuts.empty() ? 0 : cuts.back()) + 1; i < graph.ops.size(); ++i)
      if (crossing[i] == fewest && before[i] > before[cuts.empty() ? 0 : cuts.back()] &&
          (best == 0 || std::abs(before[i] - target) < std::abs(before[best] - target)))
        best = i;
    if (best == 0)
      throw InputError(graph.source, flag + " " + std::to_string(stages) + ": no place for cut " +
                                         std::to_string(s) + " where " + std::to_string(fewest) +
                                         " activation tensor(s) cross after the previous cut's weights");
    cuts.push_back(best);
  }
  std::size_t next = 0;
  for (std::size_t id = 0; id < graph.ops.size(); ++id) {
    while (next < cuts.size() && cuts[next] <= id)
      ++next;
    graph.ops[id].pipeline_stage = static_cast<std::int32_t>(next);
  }
  if (before.back() - before[cuts.empty() ? 0 : cuts.back()] <= 0)
    throw InputError(graph.source,
                     flag + " " + std::to_string(stages) + ": the last stage would read no weights");
  // Weights and inputs: their consumers' stage, or none (any stage's device) when those differ.
  for (Op& op : graph.ops) {
    if (op.op_class != OpClass::Input) continue;
    std::int32_t stage = -2;
    for (TensorId t : op.outputs)
      for (OpId c : graph.consumers[static_cast<std::size_t>(t)]) {
        const std::int32_t s = graph.ops[static_cast<std::size_t>(c)].pipeline_stage;
        stage = stage == -2 || stage == s ? s : -1;
      }
    op.pipeline_stage = stage == -2 ? 0 : stage;
  }
}

int pipeline_stage_count(const Graph& graph) {
  int count = 0;
  for (const Op& op : graph.ops)
    count = std::max(count, op.pipeline_stage + 1);
  return count;
}

} // namespace lightsim::ir
