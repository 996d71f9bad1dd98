// Schedule search: improves what the exact solver's sums cannot see because it depends on overlap (the
// scheduled makespan, the total energy with static power over that makespan, the energy-delay product)
// by local search, with the list scheduler as the oracle. A move gives one op (or weight) another of its
// nodes; a group move does the same to all its twins (ops whose stacks have identical node costs and the
// same current choice: the same op in every layer of a transformer) at once. Tried in this order, the
// first move that improves the metric is kept and the search starts over:
//   - for energy and edp, moves predicted to improve it, best prediction first, each as a group move and
//     then alone. The prediction is local: the change of the op's own and its transfers' energy, and of the
//     makespan, where a longer path through the op first uses its slack in the current schedule (its data
//     successors and the next op on its lane) and a shorter one shortens the run only when the op is
//     critical; energy = that energy + the machine's static power x the makespan change;
//   - moves of the current critical path's ops to each of their other nodes (the only moves for makespan).
// A predicted move that failed is not tried again (nor are its twins'); critical-path moves are retried
// after each improvement. It stops when no move improves (a local optimum) or after max_evaluations list
// schedules (then it says it gave up). It never returns a worse value than its start. Moves of weights
// keep their memory's resident bytes within capacity (scheduler/capacity.h). Deterministic: moves are
// tried in a fixed order.
//
// It is not exact: these problems are NP-hard; this is a bounded improvement search.
#pragma once

#include "scheduler/capacity.h"
#include "scheduler/flat_graph.h"
#include "scheduler/schedule.h"

#include <cstddef>

namespace lightsim::sched {

// The schedule's makespan (Makespan, Time), total energy (Energy) or energy x makespan (Edp).
double schedule_value(const Schedule& schedule, Objective metric);
// Static power of every unit and memory, W: what a second of makespan costs in energy.
double machine_static_power_w(const ir::Hardware& hw);

struct ScheduleSearchOptions {
  Objective metric = Objective::Makespan; // Makespan, Energy or Edp
  std::size_t max_evaluations = 2000;     // list-schedule runs, the start's included
  const CapacityProblem* capacity = nullptr;
};

struct ScheduleSearchStats {
  double start_value = 0, final_value = 0; // of the metric
  std::size_t evaluations = 0;
  std::size_t moves = 0; // improving moves kept (a group move counts once)
  bool gave_up = false;  // stopped by max_evaluations before reaching a local optimum
};

// Returns the improved placement (objective = metric, objective_value = its value) and its schedule.
FlatGraph improve_schedule(const FlatGraph& start, Schedule& schedule, const ScheduleSearchOptions& options,
                           ScheduleSearchStats* stats = nullptr);

// The makespan search: improve_schedule with metric Makespan.
FlatGraph improve_makespan(const FlatGraph& start, Schedule& schedule, std::size_t max_evaluations = 2000,
                           ScheduleSearchStats* stats = nullptr);

} // namespace lightsim::sched
