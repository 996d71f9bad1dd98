#include "scheduler/objective.h"

#include "ir/hardware/residency.h"
#include "scheduler/list_scheduler.h"
#include "scheduler/memory_use.h"
#include "scheduler/stopwatch.h"

namespace lightsim::sched {
namespace {

// When the time placement's resident weights and its schedule's peak of live activations together
// overflow a memory that cannot spill, keeps that peak free of weights (lowers the weights' capacity) and
// says so. Returns whether any capacity changed. Skipped cheaply when all activations together would fit.
bool reserve_for_activations(const ir::StackedGraph& sg, CapacityProblem& capacity, const FlatGraph& flat,
                             const Schedule& schedule, std::vector<double>& reserved) {
  const ir::Graph& g = sg.graph();
  const ir::Hardware& hw = sg.hardware();
  double activations = 0;
  for (const ir::Op& op : g.ops)
    if (!ir::is_resident_input(hw, op))
      for (ir::TensorId t : op.outputs)
        activations += static_cast<double>(g.tensors[t].bytes);
  const std::vector<double> weights = resident_bytes(capacity, sg, flat.choice);
  bool tight = false;
  for (std::size_t m = 0; m < weights.size(); ++m)
    tight = tight || (hw.memories[m].spill_to < 0 && weights[m] + activations > capacity.capacity_bytes[m]);
  if (!tight) return false;
  const std::vector<MemoryUse> use = memory_use(flat, schedule);
  bool changed = false;
  for (std::size_t m = 0; m < weights.size(); ++m) {
    if (hw.memories[m].spill_to >= 0 || weights[m] == 0) continue;
    if (weights[m] + use[m].peak_live_bytes <= capacity.capacity_bytes[m]) continue;
    reserved[m] = use[m].peak_live_bytes;
    capacity.capacity_bytes[m] = std::max(0.0, capacity.capacity_bytes[m] - reserved[m]);
    changed = true;
  }
  return changed;
}

} // namespace

FlatGraph plan_objective(const ir::StackedGraph& sg, const SolvePlan& plan, const CapacityProblem& problem,
                         const ObjectiveOptions& options, Schedule& schedule, ObjectiveReport* report) {
  ObjectiveReport r;
  Stopwatch clock;
  const Objective objective = options.objective;
  CapacityProblem capacity = problem;
  auto exact = [&](LinearCost cost, CapacityStats* stats) {
    FlatGraph flat = solve_with_capacity(sg, plan, {cost, Objective::Time}, capacity, stats);
    r.solve_ms += clock.lap_ms();
    return flat;
  };

  FlatGraph time = exact(LinearCost::seconds(), &r.capacity);
  Schedule time_schedule = list_schedule(time);
  r.schedule_ms += clock.lap_ms();
  r.reserved_bytes.assign(capacity.capacity_bytes.size(), 0.0);
  if (reserve_for_activations(sg, capacity, time, time_schedule, r.reserved_bytes)) {
    time = exact(LinearCost::seconds(), &r.capacity);
    time_schedule = list_schedule(time);
    r.schedule_ms += clock.lap_ms();
  }
  if (objective == Objective::Time) {
    schedule = std::move(time_schedule);
    if (report) *report = std::move(r);
    return time;
  }
  if (objective == Objective::Makespan) {
    r.searched = true;
    FlatGraph best = improve_schedule(
        time, schedule, {Objective::Makespan, options.makespan_evaluations, &capacity}, &r.search);
    r.schedule_ms += clock.lap_ms();
    if (report) *report = std::move(r);
    return best;
  }

  // Energy and EDP: exact placements of the time objective and the surrogate(s); the search starts from
  // the best of them by the true objective.
  std::vector<FlatGraph> placements;
  auto consider = [&](std::string name, LinearCost cost, FlatGraph flat, const CapacityStats& stats) {
    const Schedule s = list_schedule(flat);
    r.schedule_ms += clock.lap_ms();
    r.starts.push_back({std::move(name), cost, schedule_value(s, objective), stats});
    placements.push_back(std::move(flat));
  };
  r.starts.push_back({"time", LinearCost::seconds(), schedule_value(time_schedule, objective), r.capacity});
  placements.push_back(std::move(time));
  const double static_w = machine_static_power_w(sg.hardware());
  const LinearCost energy_cost{static_w, 1};
  CapacityStats stats;
  FlatGraph energy = exact(energy_cost, &stats);
  consider("energy surrogate", energy_cost, std::move(energy), stats);
  if (objective == Objective::Edp && time_schedule.makespan_s > 0) {
    const LinearCost edp_cost{static_w + time_schedule.energy_j / time_schedule.makespan_s, 1};
    FlatGraph edp = exact(edp_cost, &stats);
    consider("edp surrogate", edp_cost, std::move(edp), stats);
  }
  for (std::size_t i = 1; i < r.starts.size(); ++i)
    if (r.starts[i].value < r.starts[r.start].value) r.start = i;
  r.capacity = r.starts[r.start].capacity;
  r.searched = true;
  FlatGraph best = improve_schedule(placements[r.start], schedule,
                                    {objective, options.energy_evaluations, &capacity}, &r.search);
  r.schedule_ms += clock.lap_ms();
  if (report) *report = std::move(r);
  return best;
}

} // namespace lightsim::sched
