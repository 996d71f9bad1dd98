// The cost solver: flattens a StackedGraph by choosing one Node per Stack so that
// sum(node cost) + sum(edge cost) is minimal under a LinearCost (seconds, joules or a weighted sum of
// both), optionally plus a per-node extra cost (capacity prices, scheduler/capacity.h). EXACT: it is
// variable elimination (bucket elimination) on the interaction graph of the stacks that have a choice,
// in min-degree order, with argmin tables for back-substitution. Its cost is exponential only in the
// induced width of that order (2 for GPT-2, 5 for Llama-2 exports), linear in the number of ops.
// A graph whose width would need a table larger than SolveOptions::max_table_entries is refused with an
// InputError rather than solved approximately.
//
// Ties are broken towards the lower node index, so equal inputs give equal placements.
//
// The elimination order and the scopes it creates depend only on the stacked graph's structure (which
// stacks have a choice, how many nodes each, which edges), not on costs. plan_elimination computes them
// once; solve() with a plan only does the table arithmetic, so a caller that re-costs the same structure
// (the retrain loop, under a refitted model) re-solves exactly for a fraction of the first solve's cost.
//
// It is not the schedule optimiser: scheduler/schedule_search.h starts from its solutions, and
// scheduler/capacity.h prices the memories' capacities around it.
#pragma once

#include "ir/cost/stacked_graph.h"
#include "scheduler/flat_graph.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace lightsim::sched {

struct SolveOptions {
  LinearCost cost = LinearCost::seconds(); // what is minimised
  Objective objective = Objective::Time;   // the label the FlatGraph carries
  std::size_t max_table_entries = std::size_t{1} << 24;
  // Empty, or one value per node of the stacked graph (index first_node(op) + j) added to that node's
  // cost; +infinity forbids a node. The FlatGraph's objective_value leaves it out.
  std::span<const double> node_extra = {};
};

struct SolveStats {
  std::size_t variables = 0;    // stacks with more than one node
  std::size_t pair_factors = 0; // distinct pairs of variables joined by edges
  std::size_t induced_width = 0;
  std::size_t largest_table = 0;
};

// Min-degree elimination order for sg's structure, ties by stack index. Throws InputError when a table
// would exceed options.max_table_entries.
struct SolvePlan {
  struct Step {
    int var;                   // the stack eliminated
    std::uint32_t scope_begin; // its neighbours when eliminated (ascending), in `scopes`
    std::uint32_t scope_size;
  };
  std::vector<Step> steps;
  std::vector<int> scopes;
  std::vector<int> domains; // nodes per stack: the structure the plan was made for
  std::size_t num_edges = 0;
  SolveStats stats;
};
SolvePlan plan_elimination(const ir::StackedGraph& sg, const SolveOptions& options = {});

// `plan_out`, when given, receives the elimination order this solve used (for later re-solves).
FlatGraph solve(const ir::StackedGraph& sg, const SolveOptions& options = {}, SolveStats* stats = nullptr,
                SolvePlan* plan_out = nullptr);
// The same with a plan from plan_elimination on a stacked graph of the same structure (costs may differ);
// throws std::invalid_argument when the structure differs.
FlatGraph solve(const ir::StackedGraph& sg, const SolvePlan& plan, const SolveOptions& options = {},
                SolveStats* stats = nullptr);

} // namespace lightsim::sched
