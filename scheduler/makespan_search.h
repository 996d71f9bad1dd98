// Makespan search: improves the scheduled makespan of a placement by local search, with the list
// scheduler as the oracle. The sum objectives (time, energy) that the exact solver minimises count work,
// not overlap; a placement that spreads work over units can finish sooner. Starting from the exact
// time-optimal placement, it repeatedly tries moving one op of the current critical path to another
// of its nodes and keeps the first move that shortens the makespan, until no move on the critical path
// helps or the evaluation budget is spent. It never returns a worse makespan than its start.
// Deterministic: moves are tried in a fixed order.
//
// It is not exact: the makespan problem is NP-hard; this is a bounded improvement search.
#pragma once

#include "scheduler/flat_graph.h"
#include "scheduler/schedule.h"

#include <cstddef>

namespace lightsim::sched {

struct MakespanSearchOptions {
  std::size_t max_evaluations = 2000; // list-schedule runs
};

struct MakespanSearchStats {
  double start_makespan_s = 0;
  double final_makespan_s = 0;
  std::size_t evaluations = 0;
  std::size_t moves = 0;
};

// Returns the improved placement (objective Makespan, objective_value = its makespan) and its schedule.
FlatGraph improve_makespan(const FlatGraph& start, Schedule& schedule,
                           const MakespanSearchOptions& options = {}, MakespanSearchStats* stats = nullptr);

} // namespace lightsim::sched
