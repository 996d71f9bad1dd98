// Weight moves: exact local steps on where weights are resident, used by capacity pricing
// (scheduler/capacity.h) on the priced solves' placements. A weight's Stack has out-edges only and no two
// weights share an edge, so moving one weight to another of its nodes changes the linear cost by a local
// delta (its node and its out-edges, the consumers as placed), and the deltas of several weights add up.
//   refill  moves weights into memories that have room for them wherever that lowers the cost, and makes
//           exchanges (swap) until neither finds anything;
//   swap    one weight into a memory it does not fit, the cheapest set of that memory's weights out to
//           make room (each to its best memory with room), when the sum of the deltas is negative;
//   evict   moves weights out of an over-full memory, cheapest increase first, until it fits.
// Every step keeps every other memory within its capacity.
//
// It is not the pricing: it never re-solves; consumers stay where they are.
#pragma once

#include "scheduler/capacity.h"
#include "scheduler/flat_graph.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace lightsim::sched {

class WeightMoves {
public:
  WeightMoves(const ir::StackedGraph& sg, const CapacityProblem& problem, LinearCost cost)
      : sg_(sg), problem_(problem), cost_(cost) {}

  // The linear cost of weight stack w on node j, its consumers as chosen.
  double local_cost(const FlatGraph& flat, ir::OpId w, int j) const;

  // Refill and swaps until neither improves; `used` is the weight bytes per memory, kept up to date.
  // Returns how many weights moved.
  std::size_t refill(FlatGraph& flat, std::vector<double>& used) const;
  // One exchange into some memory that lowers the cost; whether it made one.
  bool swap(FlatGraph& flat, std::vector<double>& used) const;
  // Moves weights out of memory m until it fits; whether it does.
  bool evict(FlatGraph& flat, std::vector<double>& used, int m) const;

private:
  struct Move {
    double delta; // change of the linear cost
    ir::OpId weight;
    int node;
  };
  using Wanted = std::function<bool(int from_memory, int to_memory, double delta)>;
  // Every move of a weight to another of its nodes that `wanted` accepts, best delta first.
  std::vector<Move> moves(const FlatGraph& flat, const Wanted& wanted) const;
  // Applies moves in order while the target memory has room, at most one per weight (a delta holds for
  // the weight's node before the batch); returns how many were applied.
  std::size_t apply(FlatGraph& flat, std::vector<double>& used, const std::vector<Move>& list) const;

  const ir::StackedGraph& sg_;
  const CapacityProblem& problem_;
  LinearCost cost_;
};

} // namespace lightsim::sched
