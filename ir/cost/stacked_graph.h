// StackedGraph: the choice problem. One Stack per op of the Graph, holding one Node per unit instance
// able to run it (two PHU cards are two Nodes) with that Node's cost from the arithmetic model; one Edge
// per (tensor, consumer) with a cost for every (producer Node, consumer Node) pair: the bytes of that
// tensor moved over the route between the two units' memories (zero when they share a memory).
//
// Inputs and weights are Stacks too: their Nodes say in which unit's memory the tensor is resident at
// the start (the hardware config's placement fixes per-run inputs, and may fix weights).
//
// A graph with collectives (one device's shard) or pipeline stages is part of a parallel plan
// (ir/cost/device_plan.h): its stacks hold only the units the plan leaves open to each op.
//
// It is not a solution: scheduler/ chooses one Node per Stack (a FlatGraph).
#pragma once

#include "ir/cost.h"
#include "ir/cost/collectives.h"
#include "ir/cost/device_plan.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/transfer.h"

#include <cstdint>
#include <span>
#include <vector>

namespace lightsim::ir {

struct StackNode {
  int unit = -1;
  Cost cost;
};

struct StackEdge {
  OpId src = -1, dst = -1; // producer and consumer ops
  TensorId tensor = -1;
  std::uint32_t costs = 0; // offset into StackedGraph::edge_costs of a src-nodes x dst-nodes matrix
};

class StackedGraph {
public:
  bool has_graph() const { return graph_ != nullptr; } // false for from_parts()
  const Graph& graph() const { return *graph_; }
  const Hardware& hardware() const { return *hw_; }
  const TransferModel& transfers() const { return *transfers_; }
  const DevicePlan& device_plan() const { return plan_; }

  std::size_t num_stacks() const { return node_begin_.size() - 1; }
  std::size_t num_nodes() const { return nodes_.size(); }
  // Index of op's first node among all nodes (stack order): per-node data lives at first_node(op) + j.
  std::size_t first_node(OpId op) const { return node_begin_[op]; }
  std::span<const StackNode> nodes(OpId op) const {
    return {nodes_.data() + node_begin_[op], nodes_.data() + node_begin_[op + 1]};
  }
  const std::vector<StackEdge>& edges() const { return edges_; }
  // Cost of edge e when its producer takes node i and its consumer node j (indices within the stacks).
  const Cost& edge_cost(const StackEdge& e, int i, int j) const {
    return edge_costs_[e.costs + static_cast<std::size_t>(i) * nodes(e.dst).size() + j];
  }
  // Edges into / out of an op, as indices into edges().
  std::span<const std::uint32_t> in_edges(OpId op) const {
    return {in_edges_.data() + in_begin_[op], in_edges_.data() + in_begin_[op + 1]};
  }
  std::span<const std::uint32_t> out_edges(OpId op) const {
    return {out_edges_.data() + out_begin_[op], out_edges_.data() + out_begin_[op + 1]};
  }

  // A collective op's closed form on one of its nodes' units (algorithm, protocol, each link's bytes and
  // busy time), as the node's cost was taken from it; nullptr for another op or a unit not in its stack.
  const CollectiveCost* collective_cost(OpId op, int unit) const;

  // Recomputes every node's cost from the arithmetic models of the Hardware it was built on, after the
  // caller changed those models in place (a refit). Returns false and changes nothing when the units able
  // to run some op changed too (then build the stacked graph again). Edges are unchanged: transfer costs
  // do not depend on the models.
  bool recost_nodes();

  // For tests and generators: a stacked graph given directly (no Graph or Hardware behind it).
  // node_costs[op] lists the nodes of each stack; edge_matrices[e] is row-major src x dst.
  static StackedGraph from_parts(std::vector<std::vector<StackNode>> stacks, std::vector<StackEdge> edges,
                                 const std::vector<std::vector<Cost>>& edge_matrices);

private:
  friend StackedGraph build_stacked_graph(const Graph&, const Hardware&, const TransferModel&);
  void index_edges();

  const Graph* graph_ = nullptr;
  const Hardware* hw_ = nullptr;
  const TransferModel* transfers_ = nullptr;
  DevicePlan plan_; // the units each op may use (ir/cost/device_plan.h)
  std::vector<std::uint32_t> node_begin_{0};
  std::vector<StackNode> nodes_;
  std::vector<std::int32_t> collective_of_node_; // per node: index into collective_costs_, -1 for none
  std::vector<CollectiveCost> collective_costs_;
  std::vector<StackEdge> edges_;
  std::vector<Cost> edge_costs_;
  std::vector<std::uint32_t> in_begin_, in_edges_, out_begin_, out_edges_;
};

// Builds the stacked graph. Throws InputError (naming the op and its class) when no unit can run an op,
// and (naming the unit, the field and the dtype) when a GPU that can run a GEMM has no rate for its dtype.
// The graph, hardware and transfer model must outlive the result.
StackedGraph build_stacked_graph(const Graph& graph, const Hardware& hw, const TransferModel& transfers);

} // namespace lightsim::ir
