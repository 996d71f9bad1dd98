#include "ir/topological_order.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>

namespace lightsim::ir {
namespace {

// Some vertex with unprocessed predecessors lies on or downstream of a cycle; walking back over
// unprocessed predecessors must revisit a vertex, and the walk from that vertex is a cycle.
std::vector<std::size_t> find_cycle(const std::vector<std::vector<std::size_t>>& preds,
                                    const std::vector<std::size_t>& pending) {
  std::size_t start = 0;
  while (pending[start] == 0)
    ++start;
  std::vector<std::size_t> walk;
  std::vector<std::size_t> seen_at(preds.size(), SIZE_MAX);
  std::size_t v = start;
  while (seen_at[v] == SIZE_MAX) {
    seen_at[v] = walk.size();
    walk.push_back(v);
    v = *std::find_if(preds[v].begin(), preds[v].end(), [&](std::size_t p) { return pending[p] > 0; });
  }
  // walk[seen_at[v]..] is the cycle against edge direction; reverse it and start at its smallest vertex.
  std::vector<std::size_t> cycle(walk.begin() + static_cast<std::ptrdiff_t>(seen_at[v]), walk.end());
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  return cycle;
}

} // namespace

TopologicalOrder stable_topological_order(const std::vector<std::vector<std::size_t>>& preds) {
  const std::size_t n = preds.size();
  std::vector<std::size_t> pending(n, 0); // unprocessed in-edges
  std::vector<std::vector<std::size_t>> succs(n);
  for (std::size_t v = 0; v < n; ++v)
    for (std::size_t p : preds[v]) {
      succs[p].push_back(v);
      ++pending[v];
    }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (pending[v] == 0) ready.push(v);
  TopologicalOrder result;
  result.order.reserve(n);
  while (!ready.empty()) {
    const std::size_t v = ready.top();
    ready.pop();
    result.order.push_back(v);
    for (std::size_t s : succs[v])
      if (--pending[s] == 0) ready.push(s);
  }
  if (result.order.size() < n) {
    result.cycle = find_cycle(preds, pending);
    result.order.clear();
  }
  return result;
}

} // namespace lightsim::ir
