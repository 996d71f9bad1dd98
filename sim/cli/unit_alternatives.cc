#include "sim/cli/unit_alternatives.h"

#include "ir/cost/cost_model.h"
#include "ir/text_format.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace lightsim {

void NotChosen::add(const NotChosen& o) {
  ops += o.ops;
  not_in_model += o.not_in_model;
  kind_refuses += o.kind_refuses;
  plan_excludes += o.plan_excludes;
  could_run += o.could_run;
  compute_here += o.compute_here;
  transfers_here += o.transfers_here;
  compute_where_ran += o.compute_where_ran;
  transfers_where_ran += o.transfers_where_ran;
}

std::optional<double> tie_factor(const NotChosen& row, double ir::Cost::*part) {
  if (row.could_run == 0) return 0.0;
  const double ran = row.compute_where_ran.*part + row.transfers_where_ran.*part;
  const double budget = ran - row.transfers_here.*part; // what the compute here may cost
  if (budget <= 0) return std::nullopt;
  return row.compute_here.*part / budget;
}

namespace {

// Operand transfers into `op` when it takes node `node` of its stack: from computed operands' producers as
// placed; weights and inputs from the residency the placement allows that is cheapest for this node (the
// weights of an op that moves may move with it; capacity is not counted).
ir::Cost operand_transfers(const ir::StackedGraph& sg, const sched::FlatGraph& flat, ir::OpId op, int node) {
  const ir::Graph& g = sg.graph();
  ir::Cost sum;
  for (std::uint32_t e : sg.in_edges(op)) {
    const ir::StackEdge& edge = sg.edges()[e];
    if (g.ops[static_cast<std::size_t>(edge.src)].op_class != ir::OpClass::Input) {
      sum += sg.edge_cost(edge, flat.choice[static_cast<std::size_t>(edge.src)], node);
      continue;
    }
    ir::Cost best = sg.edge_cost(edge, flat.choice[static_cast<std::size_t>(edge.src)], node);
    for (int i = 0; i < static_cast<int>(sg.nodes(edge.src).size()); ++i) {
      const ir::Cost& c = sg.edge_cost(edge, i, node);
      if (c.time_s < best.time_s || (c.time_s == best.time_s && c.energy_j < best.energy_j)) best = c;
    }
    sum += best;
  }
  return sum;
}

std::string factor_text(std::optional<double> f, std::size_t could_run) {
  if (could_run == 0) return "-";
  if (!f) return "never";
  return ir::format("%.3gx", *f);
}

} // namespace

std::vector<UnitAlternatives> unit_alternatives(const Pipeline& run) {
  const ir::Graph& g = run.graph();
  const ir::Hardware& hw = run.hardware();
  const ir::StackedGraph& sg = run.stacked();
  const sched::FlatGraph& flat = run.flat();
  std::vector<UnitAlternatives> rows(hw.units.size());
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const auto op = static_cast<ir::OpId>(i);
    const ir::Op& desc = g.ops[i];
    if (desc.op_class == ir::OpClass::Input || desc.op_class == ir::OpClass::Nop) continue;
    const int chosen = flat.choice[i];
    const auto nodes = sg.nodes(op);
    const int ran_on = nodes[static_cast<std::size_t>(chosen)].unit;
    const ir::Cost compute_ran = nodes[static_cast<std::size_t>(chosen)].cost;
    const ir::Cost transfers_ran = operand_transfers(sg, flat, op, chosen);
    for (std::size_t u = 0; u < rows.size(); ++u) {
      if (static_cast<int>(u) == ran_on) continue;
      NotChosen row;
      row.ops = 1;
      int node = -1;
      for (std::size_t j = 0; j < nodes.size(); ++j)
        if (nodes[j].unit == static_cast<int>(u)) node = static_cast<int>(j);
      if (node < 0 && sg.device_plan().excludes(hw, static_cast<int>(u), desc)) {
        row.plan_excludes = 1;
      } else if (node < 0) {
        (ir::model_covers(hw, static_cast<int>(u), desc) ? row.kind_refuses : row.not_in_model) = 1;
      } else {
        row.could_run = 1;
        row.compute_here = nodes[static_cast<std::size_t>(node)].cost;
        row.transfers_here = operand_transfers(sg, flat, op, node);
        row.compute_where_ran = compute_ran;
        row.transfers_where_ran = transfers_ran;
      }
      rows[u].all.add(row);
      rows[u].by_class[static_cast<std::size_t>(desc.op_class)].add(row);
    }
  }
  return rows;
}

void print_unit_alternatives(std::ostream& out, const Pipeline& run,
                             const std::vector<UnitAlternatives>& rows) {
  out << "\n"
         R"(why not: the ops each unit did not get, priced on it by the planner (compute, and operand transfers
from where their producers ran; weights and inputs from where the placement lets them be, capacity
aside) against what they cost where they ran. tie: how much faster / cheaper its compute must be for
the same sum; never: the transfers alone cost more. Not a re-plan: transfers to consumers and overlap
are not counted.
)";
  out << ir::format("%-8s %-15s %6s %6s %6s %11s %11s %11s %9s %11s %11s %9s\n", "unit", "class", "ops",
                    "cannot", "could", "here_s", "of_which_tx", "ran_s", "tie_time", "here_j", "ran_j",
                    "tie_enrg");
  const auto line = [&](const std::string& unit, std::string_view cls, const NotChosen& r) {
    std::string cannot = std::to_string(r.not_in_model + r.kind_refuses + r.plan_excludes);
    if (r.kind_refuses) cannot += "k";
    if (r.plan_excludes) cannot += "p";
    out << ir::format("%-8s %-15s %6zu %6s %6zu %11.4g %11.4g %11.4g %9s %11.4g %11.4g %9s\n", unit.c_str(),
                      std::string(cls).c_str(), r.ops, cannot.c_str(), r.could_run,
                      r.compute_here.time_s + r.transfers_here.time_s, r.transfers_here.time_s,
                      r.compute_where_ran.time_s + r.transfers_where_ran.time_s,
                      factor_text(tie_factor(r, &ir::Cost::time_s), r.could_run).c_str(),
                      r.compute_here.energy_j + r.transfers_here.energy_j,
                      r.compute_where_ran.energy_j + r.transfers_where_ran.energy_j,
                      factor_text(tie_factor(r, &ir::Cost::energy_j), r.could_run).c_str());
  };
  const ir::DevicePlan& plan = run.stacked().device_plan();
  for (std::size_t u = 0; u < rows.size(); ++u) {
    if (rows[u].all.ops == 0 || plan.mirrored_device(static_cast<int>(u)) >= 0) continue; // peers repeat it
    const std::string& name = run.hardware().units[u].name;
    line(name, "all", rows[u].all);
    for (std::size_t c = 0; c < ir::kNumOpClasses; ++c)
      if (rows[u].by_class[c].ops)
        line("", ir::op_class_name(static_cast<ir::OpClass>(c)), rows[u].by_class[c]);
  }
  out << "(cannot: not in the unit's arithmetic model; a trailing k: some its kind refuses, e.g. no MACs for "
         "the dtype; p: some the device plan keeps off it, a shard's ops off units that are not its "
         "devices)\n";
}

nlohmann::json not_chosen_json(const UnitAlternatives& row) {
  const auto cost = [](const ir::Cost& c) {
    return nlohmann::json{{"time_s", c.time_s}, {"energy_j", c.energy_j}};
  };
  const auto factor = [](const NotChosen& r, double ir::Cost::*part) -> nlohmann::json {
    if (r.could_run == 0) return nullptr;
    const std::optional<double> f = tie_factor(r, part);
    return f ? nlohmann::json(*f) : nlohmann::json("never");
  };
  const auto entry = [&](const NotChosen& r) {
    return nlohmann::json{
        {"ops", r.ops},
        {"not_in_model", r.not_in_model},
        {"kind_refuses", r.kind_refuses},
        {"plan_excludes", r.plan_excludes},
        {"could_run", r.could_run},
        {"here", {{"compute", cost(r.compute_here)}, {"transfers", cost(r.transfers_here)}}},
        {"where_ran", {{"compute", cost(r.compute_where_ran)}, {"transfers", cost(r.transfers_where_ran)}}},
        {"tie_factor", {{"time", factor(r, &ir::Cost::time_s)}, {"energy", factor(r, &ir::Cost::energy_j)}}}};
  };
  nlohmann::json j = entry(row.all);
  nlohmann::json by_class = nlohmann::json::object();
  for (std::size_t c = 0; c < ir::kNumOpClasses; ++c)
    if (row.by_class[c].ops)
      by_class[std::string(ir::op_class_name(static_cast<ir::OpClass>(c)))] = entry(row.by_class[c]);
  j["by_class"] = by_class;
  return j;
}

} // namespace lightsim
