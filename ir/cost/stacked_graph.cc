#include "ir/cost/stacked_graph.h"

#include "ir/cost/collectives.h"
#include "ir/cost/cost_model.h"
#include "ir/error.h"
#include "ir/hardware/residency.h"

#include <algorithm>
#include <string>

namespace lightsim::ir {
namespace {

// Units where an input or weight can be resident at the start: one per distinct memory (units that
// share a memory are interchangeable for residency), restricted by the config's placement.
std::vector<StackNode> residency_nodes(const Hardware& hw, const DevicePlan& plan, const Op& op) {
  const int fixed = fixed_input_unit(hw, op);
  std::vector<StackNode> nodes;
  std::vector<bool> memory_taken(hw.memories.size(), false);
  for (int u = 0; u < static_cast<int>(hw.units.size()); ++u) {
    if (fixed >= 0 && u != fixed) continue;
    if (fixed < 0 && plan.excludes(hw, u, op)) continue; // the config's placement is where it arrives
    if (memory_taken[hw.units[u].memory]) continue;
    memory_taken[hw.units[u].memory] = true;
    // A model without an "input" entry holds inputs for free (the consumer's bytes feature pays).
    const Cost cost = hw.model_of(u).can_run(OpClass::Input) ? op_cost(hw, u, op) : Cost{};
    nodes.push_back({u, cost});
  }
  return nodes;
}

// A collective's closed forms, one per node, go to `collectives` when given (they do not depend on the
// arithmetic models, so a recost keeps the ones it has).
std::vector<StackNode> compute_nodes(const Graph& graph, const Hardware& hw, const TransferModel& transfers,
                                     const DevicePlan& plan, OpId id,
                                     std::vector<CollectiveCost>* collectives) {
  const Op& op = graph.ops[id];
  std::vector<StackNode> nodes;
  for (int u = 0; u < static_cast<int>(hw.units.size()); ++u) {
    if (plan.excludes(hw, u, op) || !can_run(hw, u, op)) continue;
    if (is_collective(op.op_class)) {
      CollectiveCost c = collective_op_cost(
          transfers, u, op, graph.source + ": node " + std::to_string(id) + " '" + op.name + "'");
      nodes.push_back({u, {c.time_s, c.energy_j}});
      if (collectives) collectives->push_back(std::move(c));
    } else {
      nodes.push_back({u, op_cost(hw, u, op)});
    }
  }
  if (nodes.empty() && plan.shard && !plan.stages.empty()) {
    const int device =
        plan.stages[op.pipeline_stage > 0 ? static_cast<std::size_t>(op.pipeline_stage) : 0].front();
    std::string classes = "op class '" + std::string(op_class_name(op.op_class)) + "'";
    for (std::size_t k = 0; k < op.features.fused_tail.size(); ++k)
      classes +=
          (k == 0 ? " fused with '" : ", '") + std::string(op_class_name(op.features.fused_tail[k])) + "'";
    throw InputError(graph.source, "node " + std::to_string(id) + " '" + op.name + "': " + classes +
                                       " cannot run on '" + hw.units[static_cast<std::size_t>(device)].name +
                                       "', the shard's device in " + hw.source +
                                       " (a tensor-parallel shard runs on its devices only)");
  }
  if (nodes.empty())
    throw InputError(
        graph.source,
        "node " + std::to_string(id) + " '" + op.name + "': no unit of " + hw.source + " can run op class '" +
            std::string(op_class_name(op.op_class)) + "'" +
            (is_collective(op.op_class)
                 ? " (it needs " + std::to_string(op.features.collective_workers) + " units of one kind)"
                 : std::string()));
  return nodes;
}

std::vector<StackNode> stack_nodes(const Graph& graph, const Hardware& hw, const TransferModel& transfers,
                                   const DevicePlan& plan, OpId id,
                                   std::vector<CollectiveCost>* collectives = nullptr) {
  return graph.ops[id].op_class == OpClass::Input
             ? residency_nodes(hw, plan, graph.ops[id])
             : compute_nodes(graph, hw, transfers, plan, id, collectives);
}

} // namespace

const CollectiveCost* StackedGraph::collective_cost(OpId op, int unit) const {
  if (collective_of_node_.empty()) return nullptr;
  const std::span<const StackNode> stack = nodes(op);
  for (std::size_t k = 0; k < stack.size(); ++k)
    if (stack[k].unit == unit) {
      const std::int32_t c = collective_of_node_[first_node(op) + k];
      return c < 0 ? nullptr : &collective_costs_[static_cast<std::size_t>(c)];
    }
  return nullptr;
}

bool StackedGraph::recost_nodes() {
  std::vector<StackNode> nodes;
  nodes.reserve(nodes_.size());
  for (OpId id = 0; id < static_cast<OpId>(num_stacks()); ++id) {
    const std::vector<StackNode> stack = stack_nodes(*graph_, *hw_, *transfers_, plan_, id);
    const std::span<const StackNode> old = this->nodes(id);
    if (stack.size() != old.size()) return false;
    for (std::size_t k = 0; k < stack.size(); ++k)
      if (stack[k].unit != old[k].unit) return false;
    nodes.insert(nodes.end(), stack.begin(), stack.end());
  }
  nodes_ = std::move(nodes);
  return true;
}

void StackedGraph::index_edges() {
  const std::size_t n = num_stacks();
  in_begin_.assign(n + 1, 0);
  out_begin_.assign(n + 1, 0);
  for (const StackEdge& e : edges_) {
    ++in_begin_[e.dst + 1];
    ++out_begin_[e.src + 1];
  }
  for (std::size_t i = 0; i < n; ++i) {
    in_begin_[i + 1] += in_begin_[i];
    out_begin_[i + 1] += out_begin_[i];
  }
  in_edges_.resize(edges_.size());
  out_edges_.resize(edges_.size());
  std::vector<std::uint32_t> in_fill(in_begin_.begin(), in_begin_.end() - 1);
  std::vector<std::uint32_t> out_fill(out_begin_.begin(), out_begin_.end() - 1);
  for (std::uint32_t i = 0; i < edges_.size(); ++i) {
    in_edges_[in_fill[edges_[i].dst]++] = i;
    out_edges_[out_fill[edges_[i].src]++] = i;
  }
}

StackedGraph StackedGraph::from_parts(std::vector<std::vector<StackNode>> stacks,
                                      std::vector<StackEdge> edges,
                                      const std::vector<std::vector<Cost>>& edge_matrices) {
  StackedGraph sg;
  for (auto& stack : stacks) {
    sg.nodes_.insert(sg.nodes_.end(), stack.begin(), stack.end());
    sg.node_begin_.push_back(static_cast<std::uint32_t>(sg.nodes_.size()));
  }
  for (std::size_t i = 0; i < edges.size(); ++i) {
    edges[i].costs = static_cast<std::uint32_t>(sg.edge_costs_.size());
    sg.edge_costs_.insert(sg.edge_costs_.end(), edge_matrices[i].begin(), edge_matrices[i].end());
  }
  sg.edges_ = std::move(edges);
  sg.index_edges();
  return sg;
}

StackedGraph build_stacked_graph(const Graph& graph, const Hardware& hw, const TransferModel& transfers) {
  for (std::size_t u = 0; u < hw.units.size(); ++u) // e.g. a GEMM in a precision a GPU has no rate for
    hw.units[u].kind->check_graph(hw, static_cast<int>(u), graph);
  StackedGraph sg;
  sg.graph_ = &graph;
  sg.hw_ = &hw;
  sg.transfers_ = &transfers;
  sg.plan_ = device_plan(graph, hw);
  sg.node_begin_.reserve(graph.ops.size() + 1);
  for (OpId id = 0; id < static_cast<OpId>(graph.ops.size()); ++id) {
    const std::size_t collectives_before = sg.collective_costs_.size();
    const std::vector<StackNode> nodes =
        stack_nodes(graph, hw, transfers, sg.plan_, id, &sg.collective_costs_);
    for (std::size_t k = 0; k < nodes.size(); ++k)
      sg.collective_of_node_.push_back(sg.collective_costs_.size() > collectives_before
                                           ? static_cast<std::int32_t>(collectives_before + k)
                                           : -1);
    sg.nodes_.insert(sg.nodes_.end(), nodes.begin(), nodes.end());
    sg.node_begin_.push_back(static_cast<std::uint32_t>(sg.nodes_.size()));
  }

  // One edge per (tensor, consumer); its matrix holds the transfer cost for every pair of choices.
  for (OpId dst = 0; dst < static_cast<OpId>(graph.ops.size()); ++dst) {
    const Op& op = graph.ops[dst];
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
      const TensorId t = op.inputs[k];
      if (std::find(op.inputs.begin(), op.inputs.begin() + static_cast<std::ptrdiff_t>(k), t) !=
          op.inputs.begin() + static_cast<std::ptrdiff_t>(k))
        continue; // the same tensor read twice is moved once
      const Tensor& tensor = graph.tensors[t];
      StackEdge e{tensor.producer, dst, t, static_cast<std::uint32_t>(sg.edge_costs_.size())};
      for (const StackNode& from : sg.nodes(e.src))
        for (const StackNode& to : sg.nodes(dst))
          sg.edge_costs_.push_back(
              transfers.cost(hw.units[from.unit].memory, hw.units[to.unit].memory, tensor.bytes));
      sg.edges_.push_back(e);
    }
  }
  sg.index_edges();
  return sg;
}

} // namespace lightsim::ir
