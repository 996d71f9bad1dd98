// Capacity pricing: the exact solve (scheduler/solver.h) under a capacity limit per memory on the weights
// resident there. A weight's Stack has one Node per memory that can hold it; the bytes of all weights whose
// chosen Node is in memory m must fit m's capacity, less the prefetch buffers reserved there (latency
// hiding, ir::prefetch_reserved_bytes). A weight held in a memory other than its consumer's is
// streamed to the consumer every inference (the stacked graph's edge already charges that transfer).
//
// Lagrangian relaxation: a price lambda_m per byte of memory m is added to every Node that makes a weight
// resident in m, and the priced problem is solved exactly. Each priced optimum x_lambda gives a lower bound
//     g(lambda) = f(x_lambda) + sum_m lambda_m (W_m(x_lambda) - C_m)  <=  min { f(x) : W_m(x) <= C_m }
// (f: the solve's linear cost, W_m: weight bytes resident in m, C_m: its capacity). Prices are found by
// bisection, one over-full memory at a time (a few rounds over the memories); every feasible priced
// optimum is improved greedily by moving weights back into memories that still have room where that lowers
// f (an exact local step: only the weight's own Node and its out-edges change), and the best feasible
// placement is returned with its gap to the best bound. A Node whose weight is larger than its memory is
// forbidden outright. When nothing is over capacity at zero prices, the result is the unconstrained exact
// optimum and the gap is zero.
//
// Bad input (InputError, one line): a weight larger than every memory that can hold it; weights that
// together exceed every memory that can hold them; weights that no price and no greedy repair can fit.
//
// It is not a memory planner for activations: their peak live bytes come from the schedule
// (scheduler/memory_use.h), their SRAM spills from the list scheduler (scheduler/sram_residency.h).
#pragma once

#include "scheduler/flat_graph.h"
#include "scheduler/solver.h"

#include <cstddef>
#include <vector>

namespace lightsim::sched {

struct CapacityProblem {
  std::vector<int> node_memory;       // per node (first_node(op) + j): memory it makes resident, else -1
  std::vector<double> node_bytes;     // per node: the bytes it makes resident there
  std::vector<double> capacity_bytes; // per memory
  std::vector<ir::OpId> weights;      // the stacks with resident bytes, ascending
};

// The weights (parameter inputs) of sg's graph and the capacities of its hardware's memories. An empty
// problem for a stacked graph without a graph behind it.
CapacityProblem weight_capacity_problem(const ir::StackedGraph& sg);

// Weight bytes resident in each memory under `choice`.
std::vector<double> resident_bytes(const CapacityProblem& problem, const ir::StackedGraph& sg,
                                   const std::vector<int>& choice);

struct CapacityStats {
  bool binding = false;               // some memory was over capacity at zero prices
  std::size_t solves = 0;             // exact solves, the unpriced one included
  std::size_t rounds = 0;             // passes over the over-full memories
  std::vector<double> price_per_byte; // per memory, in the solve's cost units per byte
  std::size_t weights_refilled = 0;   // weights moved back into room by the greedy step (final placement)
  double value = 0;                   // f of the returned placement
  double bound = 0;                   // the best Lagrangian bound (value when not binding)
  double gap() const { return value - bound; }
  double relative_gap() const { return value != 0 ? gap() / value : 0.0; }
};

// The cheapest placement found whose resident weights fit every memory (exact when not binding).
// `plan` must come from plan_elimination on sg's structure. options.node_extra must be empty.
FlatGraph solve_with_capacity(const ir::StackedGraph& sg, const SolvePlan& plan, const SolveOptions& options,
                              const CapacityProblem& problem, CapacityStats* stats = nullptr);

} // namespace lightsim::sched
