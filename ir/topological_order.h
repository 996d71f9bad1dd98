// A stable topological order of a directed graph given as predecessor lists: Kahn's algorithm that
// always takes the smallest ready index, so an order that is already topological comes back unchanged
// and any other acyclic order is reordered deterministically. Boost.Graph's topological_sort (DFS
// based) does not keep the given order, which import must keep for ops and messages.
//
// It is not a scheduler: it knows nothing of costs or units.
#pragma once

#include <cstddef>
#include <vector>

namespace lightsim::ir {

struct TopologicalOrder {
  std::vector<std::size_t> order; // every vertex, producers before consumers (empty when cyclic)
  std::vector<std::size_t> cycle; // when cyclic: the vertices of one cycle in edge direction,
                                  // starting at its smallest index; empty otherwise
};

// preds[v]: the vertices with an edge into v (duplicates allowed; all indices < preds.size()).
TopologicalOrder stable_topological_order(const std::vector<std::vector<std::size_t>>& preds);

} // namespace lightsim::ir
