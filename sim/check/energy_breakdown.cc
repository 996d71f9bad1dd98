#include "sim/check/energy_breakdown.h"

#include "ir/hardware/transfer.h"
#include "ir/names.h"
#include "ir/text_format.h"
#include "sim/check/check.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace lightsim::sim {
namespace {

std::string owner_label(const OwnerEnergy& o) {
  return std::string(owner_kind_name(o.kind)) + " " + o.name;
}

double total_of(const std::vector<OwnerEnergy>& owners) {
  double total = 0;
  for (const OwnerEnergy& o : owners)
    total += o.energy.total();
  return total;
}

// Calls f(owner index, component) for every pair with energy in either list (same owners in both).
template <class F>
void for_each_part(const std::vector<OwnerEnergy>& a, const std::vector<OwnerEnergy>& b, F&& f) {
  for (std::size_t i = 0; i < a.size(); ++i)
    for (ir::EnergyComponent c : ir::energy_components())
      if (a[i].energy[c] != 0 || (i < b.size() && b[i].energy[c] != 0)) f(i, c);
}

void require_same_owners(const std::vector<OwnerEnergy>& a, const std::vector<OwnerEnergy>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("energy comparison: the owner lists differ");
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].kind != b[i].kind || a[i].name != b[i].name)
      throw std::invalid_argument("energy comparison: the owner lists differ");
}

} // namespace

ir::EnergyBreakdown op_energy_of(const sched::Schedule& schedule, std::size_t op) {
  if (!schedule.op_energy.empty()) return schedule.op_energy[op];
  ir::EnergyBreakdown e;
  e[ir::EnergyComponent::Compute] = schedule.ops[op].energy_j;
  return e;
}

std::string_view owner_kind_name(OwnerKind k) {
  static constexpr ir::NameTable kNames{std::array{std::pair{OwnerKind::Unit, std::string_view("unit")},
                                                   std::pair{OwnerKind::Memory, std::string_view("memory")},
                                                   std::pair{OwnerKind::Link, std::string_view("link")}}};
  return kNames.name(k);
}

std::vector<OwnerEnergy> energy_by_owner(const ir::Graph& graph, const ir::Hardware& hw,
                                         const sched::Schedule& schedule) {
  if (schedule.ops.size() != graph.ops.size() ||
      (!schedule.op_energy.empty() && schedule.op_energy.size() != graph.ops.size()))
    throw std::invalid_argument("energy_by_owner: the schedule does not have one entry per op of the graph");
  std::vector<OwnerEnergy> owners;
  for (std::size_t u = 0; u < hw.units.size(); ++u) {
    OwnerEnergy o{OwnerKind::Unit, static_cast<int>(u), hw.units[u].name, {}};
    o.energy[ir::EnergyComponent::Static] = hw.units[u].static_power_w * schedule.makespan_s;
    owners.push_back(std::move(o));
  }
  for (std::size_t op = 0; op < graph.ops.size(); ++op) {
    const int unit = schedule.ops[op].unit;
    if (unit < 0 || static_cast<std::size_t>(unit) >= hw.units.size())
      throw std::invalid_argument("energy_by_owner: op " + std::to_string(op) + " has no unit");
    owners[static_cast<std::size_t>(unit)].energy += op_energy_of(schedule, op);
  }
  for (std::size_t m = 0; m < hw.memories.size(); ++m) {
    OwnerEnergy o{OwnerKind::Memory, static_cast<int>(m), hw.memories[m].name, {}};
    o.energy[ir::EnergyComponent::Static] = hw.memories[m].static_power_w * schedule.makespan_s;
    owners.push_back(std::move(o));
  }
  const std::size_t first_link = owners.size();
  for (std::size_t l = 0; l < hw.links.size(); ++l)
    owners.push_back({OwnerKind::Link, static_cast<int>(l), hw.links[l].name, {}});
  // A transfer's recorded energy, split over the links of its route in proportion to what each hop costs
  // (ir::TransferModel::link_energy_j; equal shares when the links charge nothing per byte or packet).
  std::vector<double> hop;
  for (const sched::ScheduledTransfer& t : schedule.transfers) {
    hop.clear();
    double sum = 0;
    for (int l : t.links) {
      if (l < 0 || static_cast<std::size_t>(l) >= hw.links.size())
        throw std::invalid_argument("energy_by_owner: a transfer names no link of the hardware");
      hop.push_back(ir::TransferModel::link_energy_j(hw.links[static_cast<std::size_t>(l)], t.bytes));
      sum += hop.back();
    }
    for (std::size_t h = 0; h < t.links.size(); ++h)
      owners[first_link + static_cast<std::size_t>(t.links[h])].energy[ir::EnergyComponent::Link] +=
          sum > 0 ? t.energy_j * hop[h] / sum : t.energy_j / static_cast<double>(t.links.size());
  }
  return owners;
}

nlohmann::json components_json(const ir::EnergyBreakdown& energy) {
  nlohmann::json j = nlohmann::json::object();
  for (ir::EnergyComponent c : ir::energy_components())
    if (energy[c] != 0) j[std::string(ir::energy_component_name(c))] = energy[c];
  return j;
}

nlohmann::json owners_json(const std::vector<OwnerEnergy>& owners) {
  nlohmann::json a = nlohmann::json::array();
  for (const OwnerEnergy& o : owners)
    a.push_back({{"kind", owner_kind_name(o.kind)},
                 {"name", o.name},
                 {"energy_j", o.energy.total()},
                 {"energy_by_component", components_json(o.energy)}});
  return a;
}

std::string format_energy_table(const std::vector<OwnerEnergy>& owners) {
  const double total = total_of(owners);
  std::string out;
  out += ir::format("%-24s %-18s %14s %7s\n", "owner", "component", "energy_j", "share");
  for_each_part(owners, {}, [&](std::size_t i, ir::EnergyComponent c) {
    const double e = owners[i].energy[c];
    out +=
        ir::format("%-24s %-18s %14.6g %6.2f%%\n", owner_label(owners[i]).c_str(),
                   std::string(ir::energy_component_name(c)).c_str(), e, total > 0 ? 100 * e / total : 0.0);
  });
  return out;
}

std::string format_energy_comparison(const std::vector<OwnerEnergy>& predicted,
                                     const std::vector<OwnerEnergy>& simulated) {
  require_same_owners(predicted, simulated);
  std::string out;
  out +=
      ir::format("%-24s %-18s %14s %14s %9s\n", "owner", "component", "predicted_j", "simulated_j", "error");
  for_each_part(predicted, simulated, [&](std::size_t i, ir::EnergyComponent c) {
    const double p = predicted[i].energy[c], s = simulated[i].energy[c];
    const std::optional<double> e = relative_error(p, s);
    out += ir::format("%-24s %-18s %14.6g %14.6g %9s\n", owner_label(predicted[i]).c_str(),
                      std::string(ir::energy_component_name(c)).c_str(), p, s,
                      e ? ir::format("%+.2f%%", 100 * *e).c_str() : "-");
  });
  return out;
}

nlohmann::json energy_comparison_json(const std::vector<OwnerEnergy>& predicted,
                                      const std::vector<OwnerEnergy>& simulated) {
  require_same_owners(predicted, simulated);
  nlohmann::json rows = nlohmann::json::array();
  for_each_part(predicted, simulated, [&](std::size_t i, ir::EnergyComponent c) {
    const double p = predicted[i].energy[c], s = simulated[i].energy[c];
    const std::optional<double> e = relative_error(p, s);
    rows.push_back({{"owner_kind", owner_kind_name(predicted[i].kind)},
                    {"owner", predicted[i].name},
                    {"component", ir::energy_component_name(c)},
                    {"predicted_j", p},
                    {"simulated_j", s},
                    {"error", e ? nlohmann::json(*e) : nlohmann::json(nullptr)}});
  });
  return rows;
}

} // namespace lightsim::sim
