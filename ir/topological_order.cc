#include "ir/topological_order.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>

namespace lightsim::ir {
namespace {

// Some vertex with unprocessed predecessors lies on or downstream of a cycle; walking back over
// unprocessed predecessors must revisit a vertex, and the walk from that vertex is a cycle.
std::vector<std::size_t> find_cycle(const PredecessorLists& graph, const std::vector<std::size_t>& pending) {
  std::size_t start = 0;
  while (pending[start] == 0)
    ++start;
  std::vector<std::size_t> walk;
  std::vector<std::size_t> seen_at(graph.size(), SIZE_MAX);
  std::size_t v = start;
  while (seen_at[v] == SIZE_MAX) {
    seen_at[v] = walk.size();
    walk.push_back(v);
    const std::span<const std::size_t> preds = graph.of(v);
    v = *std::find_if(preds.begin(), preds.end(), [&](std::size_t p) { return pending[p] > 0; });
  }
  // walk[seen_at[v]..] is the cycle against edge direction; reverse it and start at its smallest vertex.
  std::vector<std::size_t> cycle(walk.begin() + static_cast<std::ptrdiff_t>(seen_at[v]), walk.end());
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  return cycle;
}

} // namespace

TopologicalOrder stable_topological_order(const PredecessorLists& graph) {
  const std::size_t n = graph.size();
  TopologicalOrder result;
  // The usual case: the given order is topological already, and comes back unchanged.
  bool in_order = true;
  for (std::size_t v = 0; v < n && in_order; ++v)
    for (std::size_t p : graph.of(v))
      in_order = in_order && p < v;
  if (in_order) {
    result.order.resize(n);
    std::iota(result.order.begin(), result.order.end(), std::size_t{0});
    return result;
  }
  std::vector<std::size_t> pending(n, 0); // unprocessed in-edges
  std::vector<std::vector<std::size_t>> succs(n);
  for (std::size_t v = 0; v < n; ++v)
    for (std::size_t p : graph.of(v)) {
      succs[p].push_back(v);
      ++pending[v];
    }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (pending[v] == 0) ready.push(v);
  result.order.reserve(n);
  while (!ready.empty()) {
    const std::size_t v = ready.top();
    ready.pop();
    result.order.push_back(v);
    for (std::size_t s : succs[v])
      if (--pending[s] == 0) ready.push(s);
  }
  if (result.order.size() < n) {
    result.cycle = find_cycle(graph, pending);
    result.order.clear();
  }
  return result;
}

} // namespace lightsim::ir
