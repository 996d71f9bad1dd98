#include "scheduler/flat_graph.h"

namespace lightsim::sched {

std::string_view objective_name(Objective o) {
  switch (o) {
  case Objective::Time:
    return "time";
  case Objective::Energy:
    return "energy";
  case Objective::Makespan:
    return "makespan";
  }
  return "?";
}

double sum_objective(const ir::StackedGraph& sg, const std::vector<int>& choice, Objective objective) {
  auto pick = [objective](const ir::Cost& c) {
    return objective == Objective::Energy ? c.energy_j : c.time_s;
  };
  double total = 0;
  for (std::size_t op = 0; op < sg.num_stacks(); ++op)
    total += pick(sg.nodes(static_cast<ir::OpId>(op))[choice[op]].cost);
  for (const ir::StackEdge& e : sg.edges())
    total += pick(sg.edge_cost(e, choice[e.src], choice[e.dst]));
  return total;
}

} // namespace lightsim::sched
