#include "scheduler/flat_graph.h"

namespace lightsim::sched {

std::string_view objective_name(Objective o) {
  return kObjectives.name(o);
}

std::string_view objective_unit(Objective o) {
  switch (o) {
  case Objective::Energy:
    return "J";
  case Objective::Edp:
    return "J s";
  default:
    return "s";
  }
}

double sum_cost(const ir::StackedGraph& sg, const std::vector<int>& choice, LinearCost cost) {
  double total = 0;
  for (std::size_t op = 0; op < sg.num_stacks(); ++op)
    total += cost(sg.nodes(static_cast<ir::OpId>(op))[choice[op]].cost);
  for (const ir::StackEdge& e : sg.edges())
    total += cost(sg.edge_cost(e, choice[e.src], choice[e.dst]));
  return total;
}

} // namespace lightsim::sched
