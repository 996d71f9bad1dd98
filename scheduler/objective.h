// Objective planning: how the placement for each objective is found, every exact solve under the
// memories' capacities (scheduler/capacity.h).
//   time      the exact minimum of the summed op and transfer seconds; list-scheduled.
//   makespan  from the time placement, the schedule search on the makespan (scheduler/schedule_search.h).
//   energy    total energy = op and transfer energy + static power of every unit and memory x makespan.
//             Static energy depends on the makespan, which no sum over ops gives, so a linear surrogate is
//             solved exactly: every op and transfer charged its energy plus the whole machine's static
//             power x its time (exact for a serial schedule, an upper bound on static energy otherwise).
//             The search on the true total energy (list schedules) starts from whichever of the
//             surrogate's and the time objective's placements has the lower total energy, so the result
//             never costs more energy than the time objective's placement.
//   edp       energy x makespan. Surrogate: EDP linearised at the time placement (E0, D0),
//             D0 dE + E0 dD, which with the serial makespan is the energy surrogate with static power
//             raised by E0 / D0; the search starts from the best of time, energy surrogate and edp
//             surrogate by true EDP.
//
// Every objective first solves for time and list-schedules it; where its resident weights and its peak of
// live activations overflow a memory that cannot spill, the weights' capacity there is lowered by that
// peak and everything is solved again (reserved_bytes).
//
// It is not the CLI's report: sim/cli/report.cc prints what ObjectiveReport holds.
#pragma once

#include "scheduler/capacity.h"
#include "scheduler/flat_graph.h"
#include "scheduler/schedule.h"
#include "scheduler/schedule_search.h"
#include "scheduler/solver.h"

#include <cstddef>
#include <string>
#include <vector>

namespace lightsim::sched {

struct ObjectiveOptions {
  Objective objective = Objective::Time;
  std::size_t makespan_evaluations = 2000; // schedule-search budgets (list schedules)
  std::size_t energy_evaluations = 300;    // energy and edp
};

// A placement the search could start from, with the objective's value of its schedule.
struct StartCandidate {
  std::string name; // "time", "energy surrogate", "edp surrogate"
  LinearCost cost;  // what its exact solve minimised
  double value = 0; // the objective's value of its list schedule
  CapacityStats capacity;
};

struct ObjectiveReport {
  CapacityStats capacity; // of the exact solve the placement came from (or started from)
  // Per memory: bytes kept free of weights for the time placement's peak of live activations, where
  // weights and that peak together overflowed a memory that cannot spill (0 elsewhere).
  std::vector<double> reserved_bytes;
  std::vector<StartCandidate> starts; // energy, edp: every exact placement considered, time first
  std::size_t start = 0;              // which of them the search started from
  bool searched = false;              // makespan, energy, edp
  ScheduleSearchStats search;
  double solve_ms = 0, schedule_ms = 0; // exact solves (capacity pricing included); schedules and search
};

// The placement for options.objective and its schedule. sg must come from build_stacked_graph (the list
// scheduler needs its hardware); `plan` is plan_elimination of its structure.
FlatGraph plan_objective(const ir::StackedGraph& sg, const SolvePlan& plan, const CapacityProblem& capacity,
                         const ObjectiveOptions& options, Schedule& schedule,
                         ObjectiveReport* report = nullptr);

} // namespace lightsim::sched
