#include "scheduler/makespan_search.h"

#include "scheduler/list_scheduler.h"

namespace lightsim::sched {

FlatGraph improve_makespan(const FlatGraph& start, Schedule& schedule, const MakespanSearchOptions& options,
                           MakespanSearchStats* stats) {
  FlatGraph best = start;
  std::vector<ir::OpId> binding;
  schedule = list_schedule(best, &binding);
  MakespanSearchStats st;
  st.start_makespan_s = schedule.makespan_s;
  st.evaluations = 1;

  bool improved = true;
  while (improved && st.evaluations < options.max_evaluations) {
    improved = false;
    for (ir::OpId op : critical_path(schedule, binding)) {
      const int current = best.choice[op];
      const int choices = static_cast<int>(best.stacked->nodes(op).size());
      for (int j = 0; j < choices && !improved && st.evaluations < options.max_evaluations; ++j) {
        if (j == current) continue;
        FlatGraph trial = best;
        trial.choice[op] = j;
        std::vector<ir::OpId> trial_binding;
        Schedule candidate = list_schedule(trial, &trial_binding);
        ++st.evaluations;
        if (candidate.makespan_s < schedule.makespan_s) {
          best = std::move(trial);
          schedule = std::move(candidate);
          binding = std::move(trial_binding);
          ++st.moves;
          improved = true;
        }
      }
      if (improved || st.evaluations >= options.max_evaluations) break;
    }
  }
  best.objective = Objective::Makespan;
  best.objective_value = schedule.makespan_s;
  st.final_makespan_s = schedule.makespan_s;
  if (stats) *stats = st;
  return best;
}

} // namespace lightsim::sched
