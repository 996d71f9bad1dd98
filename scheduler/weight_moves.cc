#include "scheduler/weight_moves.h"

#include <algorithm>
#include <cmath>

namespace lightsim::sched {

double WeightMoves::local_cost(const FlatGraph& flat, ir::OpId w, int j) const {
  double c = cost_(sg_.nodes(w)[j].cost);
  for (std::uint32_t e : sg_.out_edges(w)) {
    const ir::StackEdge& edge = sg_.edges()[e];
    c += cost_(sg_.edge_cost(edge, j, flat.choice[edge.dst]));
  }
  for (std::uint32_t e : sg_.in_edges(w)) {
    const ir::StackEdge& edge = sg_.edges()[e];
    c += cost_(sg_.edge_cost(edge, flat.choice[edge.src], j));
  }
  return c;
}

std::vector<WeightMoves::Move> WeightMoves::moves(const FlatGraph& flat, const Wanted& wanted) const {
  std::vector<Move> out;
  for (ir::OpId w : problem_.weights) {
    const std::size_t base = sg_.first_node(w);
    const int current = flat.choice[w];
    const double here = local_cost(flat, w, current);
    for (int j = 0; j < static_cast<int>(sg_.nodes(w).size()); ++j) {
      if (j == current) continue;
      const double delta = local_cost(flat, w, j) - here;
      if (wanted(problem_.node_memory[base + current], problem_.node_memory[base + j], delta))
        out.push_back({delta, w, j});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Move& a, const Move& b) { return a.delta < b.delta; });
  return out;
}

std::size_t WeightMoves::apply(FlatGraph& flat, std::vector<double>& resident,
                               const std::vector<Move>& list) const {
  std::size_t applied = 0;
  std::vector<char> moved(sg_.num_stacks(), 0);
  for (const Move& mv : list) {
    if (moved[mv.weight]) continue;
    const std::size_t base = sg_.first_node(mv.weight);
    const int from = problem_.node_memory[base + flat.choice[mv.weight]];
    const int to = problem_.node_memory[base + mv.node];
    const double bytes = problem_.node_bytes[base + mv.node];
    if (to >= 0 && resident[to] + bytes > problem_.capacity_bytes[to]) continue;
    if (from >= 0) resident[from] -= problem_.node_bytes[base + flat.choice[mv.weight]];
    if (to >= 0) resident[to] += bytes;
    flat.choice[mv.weight] = mv.node;
    moved[mv.weight] = 1;
    ++applied;
  }
  return applied;
}

std::size_t WeightMoves::refill(FlatGraph& flat, std::vector<double>& used) const {
  std::size_t moved = 0;
  for (;;) { // a move changes no other weight's delta, but frees room another move may use
    const std::size_t n = apply(flat, used, moves(flat, [](int, int, double d) { return d < 0; }));
    moved += n;
    if (n == 0 && !swap(flat, used)) return moved;
    moved += n == 0; // a swap moved at least one
  }
}

bool WeightMoves::evict(FlatGraph& flat, std::vector<double>& used, int m) const {
  const std::vector<Move> out =
      moves(flat, [m](int from, int to, double) { return from == m && to >= 0 && to != m; });
  for (const Move& mv : out) {
    if (used[m] <= problem_.capacity_bytes[m]) break;
    if (problem_.node_memory[sg_.first_node(mv.weight) + flat.choice[mv.weight]] != m) continue; // moved
    apply(flat, used, {mv});
  }
  return used[m] <= problem_.capacity_bytes[m];
}

bool WeightMoves::swap(FlatGraph& flat, std::vector<double>& used) const {
  const std::vector<Move> all = moves(flat, [](int from, int to, double) { return from != to && to >= 0; });
  for (int m = 0; m < static_cast<int>(problem_.capacity_bytes.size()); ++m) {
    const double room = problem_.capacity_bytes[m] - used[m];
    std::vector<Move> outs; // per weight in m: its cheapest way out to a memory with room
    std::vector<char> seen(sg_.num_stacks(), 0);
    for (const Move& mv : all) { // best delta first
      const std::size_t base = sg_.first_node(mv.weight);
      const int from = problem_.node_memory[base + flat.choice[mv.weight]];
      const int to = problem_.node_memory[base + mv.node];
      if (from != m || seen[mv.weight] ||
          used[to] + problem_.node_bytes[base + mv.node] > problem_.capacity_bytes[to])
        continue;
      seen[mv.weight] = 1;
      outs.push_back(mv);
    }
    // Two orders to take them in: cheapest per byte (large needs), cheapest outright (small needs).
    auto per_byte = [&](const Move& mv) { return mv.delta / problem_.node_bytes[sg_.first_node(mv.weight)]; };
    std::vector<Move> outright = outs; // best delta first already
    std::stable_sort(outs.begin(), outs.end(),
                     [&](const Move& a, const Move& b) { return per_byte(a) < per_byte(b); });
    for (const Move& in : all) {
      const std::size_t base = sg_.first_node(in.weight);
      if (in.delta >= 0 || problem_.node_memory[base + in.node] != m) continue;
      const double need = problem_.node_bytes[base + in.node] - room;
      if (need <= 0) continue; // fits as it is: the refill's business
      // Two covers of `need`: the cheapest outright first; or cheapest per byte among those that
      // still fit in the need, the rest covered by the cheapest single weight large enough.
      double freed = 0, delta = 0;
      std::vector<Move> chosen;
      auto consider = [&](std::vector<Move> c) {
        double f = 0, d = in.delta;
        for (const Move& out : c) {
          f += problem_.node_bytes[sg_.first_node(out.weight)];
          d += out.delta;
        }
        if (f >= need && (chosen.empty() || d < delta)) {
          freed = f;
          delta = d;
          chosen = std::move(c);
        }
      };
      std::vector<Move> c;
      double left = need;
      for (const Move& out : outright) {
        if (left <= 0) break;
        if (out.weight == in.weight) continue;
        left -= problem_.node_bytes[sg_.first_node(out.weight)];
        c.push_back(out);
      }
      consider(std::move(c));
      c.clear();
      left = need;
      std::vector<char> taken(sg_.num_stacks(), 0);
      for (const Move& out : outs) {
        const double bytes = problem_.node_bytes[sg_.first_node(out.weight)];
        if (out.weight == in.weight || bytes > left) continue;
        left -= bytes;
        taken[out.weight] = 1;
        c.push_back(out);
      }
      if (left > 0)
        for (const Move& out : outright) // best delta first: the first large enough is the cheapest
          if (out.weight != in.weight && !taken[out.weight] &&
              problem_.node_bytes[sg_.first_node(out.weight)] >= left) {
            c.push_back(out);
            break;
          }
      consider(std::move(c));
      if (freed < need || delta >= -1e-12 * std::abs(flat.objective_value)) continue;
      // The outs' targets were checked one by one; several into one memory must fit together.
      std::vector<double> trial = used;
      bool fits = true;
      for (const Move& out : chosen) {
        const std::size_t b = sg_.first_node(out.weight);
        const int to = problem_.node_memory[b + out.node];
        trial[m] -= problem_.node_bytes[b];
        trial[to] += problem_.node_bytes[b + out.node];
        fits = fits && trial[to] <= problem_.capacity_bytes[to];
      }
      if (!fits) continue;
      chosen.push_back(in);
      apply(flat, used, chosen);
      return true;
    }
  }
  return false;
}

} // namespace lightsim::sched
