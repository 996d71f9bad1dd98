// FlatGraph: a solution of the StackedGraph, one chosen Node per Stack, and the objective it was
// chosen for. Plain data: the solver (scheduler/solver.h) makes it, the list scheduler and the SystemC
// replay consume it. LinearCost is what the exact solver minimises: a weighted sum of seconds and joules
// over every node and edge.
//
// It is not a schedule: it says where each op runs, not when (scheduler/schedule.h holds the times).
#pragma once

#include "ir/cost/stacked_graph.h"
#include "ir/names.h"

#include <string_view>
#include <vector>

namespace lightsim::sched {

// time: sum of op and transfer seconds (exact); energy: total energy of the schedule, static power over
// the makespan included; edp: energy x makespan of the schedule; makespan: the schedule's makespan.
enum class Objective { Time, Energy, Makespan, Edp };
inline constexpr ir::NameTable kObjectives{
    std::array{std::pair{Objective::Time, std::string_view("time")},
               std::pair{Objective::Energy, std::string_view("energy")},
               std::pair{Objective::Makespan, std::string_view("makespan")},
               std::pair{Objective::Edp, std::string_view("edp")}}};
std::string_view objective_name(Objective o); // kObjectives.name(o)
std::string_view objective_unit(Objective o); // "s", "J" or "J s"

// per_s x time_s + per_j x energy_j of a Cost.
struct LinearCost {
  double per_s = 1, per_j = 0;
  // A zero weight ignores its term (an unreachable route's infinite cost stays infinite, never NaN).
  double operator()(const ir::Cost& c) const {
    return (per_s != 0 ? per_s * c.time_s : 0.0) + (per_j != 0 ? per_j * c.energy_j : 0.0);
  }
  static constexpr LinearCost seconds() { return {1, 0}; }
  static constexpr LinearCost joules() { return {0, 1}; }
  friend bool operator==(const LinearCost&, const LinearCost&) = default;
};

struct FlatGraph {
  const ir::StackedGraph* stacked = nullptr;
  std::vector<int> choice; // per op: index of the chosen node within its stack
  Objective objective = Objective::Time;
  // The value of `objective` for this choice: for time the exact sum in seconds (the solver's); for the
  // others the schedule's value (set by the pipeline and the schedule search).
  double objective_value = 0;

  int unit_of(ir::OpId op) const { return stacked->nodes(op)[choice[op]].unit; }
  const ir::Cost& cost_of(ir::OpId op) const { return stacked->nodes(op)[choice[op]].cost; }
};

// sum(node cost) + sum(edge cost) of `choice` under a linear cost.
double sum_cost(const ir::StackedGraph& sg, const std::vector<int>& choice, LinearCost cost);

} // namespace lightsim::sched
