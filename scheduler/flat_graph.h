// FlatGraph: a solution of the StackedGraph, one chosen Node per Stack, and the objective it was
// chosen for. Plain data: the solver (scheduler/solver.h) makes it, the list scheduler and the SystemC
// replay consume it.
#pragma once

#include "ir/cost/stacked_graph.h"

#include <string_view>
#include <vector>

namespace lightsim::sched {

enum class Objective { Time, Energy, Makespan };
std::string_view objective_name(Objective o);

struct FlatGraph {
  const ir::StackedGraph* stacked = nullptr;
  std::vector<int> choice; // per op: index of the chosen node within its stack
  Objective objective = Objective::Time;
  double objective_value = 0; // the value of `objective` for this choice (seconds or joules)

  int unit_of(ir::OpId op) const { return stacked->nodes(op)[choice[op]].unit; }
  const ir::Cost& cost_of(ir::OpId op) const { return stacked->nodes(op)[choice[op]].cost; }
};

// sum(node cost) + sum(edge cost) of `choice` for a sum objective (Time or Energy).
double sum_objective(const ir::StackedGraph& sg, const std::vector<int>& choice, Objective objective);

} // namespace lightsim::sched
