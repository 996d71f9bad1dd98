// The cost solver: flattens a StackedGraph by choosing one Node per Stack so that
// sum(node cost) + sum(edge cost) is minimal for the objective (time or energy). EXACT: it is
// variable elimination (bucket elimination) on the interaction graph of the stacks that have a choice,
// in min-degree order, with argmin tables for back-substitution. Its cost is exponential only in the
// induced width of that order (2 for GPT-2, 5 for Llama-2 exports), linear in the number of ops.
// A graph whose width would need a table larger than SolveOptions::max_table_entries is refused with an
// InputError rather than solved approximately.
//
// Ties are broken towards the lower node index, so equal inputs give equal placements.
// It is not the makespan optimiser: scheduler/makespan_search.h starts from this solution.
#pragma once

#include "ir/stacked_graph.h"
#include "scheduler/flat_graph.h"

#include <cstddef>

namespace lightsim::sched {

struct SolveOptions {
  Objective objective = Objective::Time; // Time or Energy
  std::size_t max_table_entries = std::size_t{1} << 24;
};

struct SolveStats {
  std::size_t variables = 0;    // stacks with more than one node
  std::size_t pair_factors = 0; // distinct pairs of variables joined by edges
  std::size_t induced_width = 0;
  std::size_t largest_table = 0;
};

FlatGraph solve(const ir::StackedGraph& sg, const SolveOptions& options = {}, SolveStats* stats = nullptr);

} // namespace lightsim::sched
