// Energy breakdown of a schedule: each op's energy by component (ir/energy.h) and the totals per owner,
// i.e. every unit (the components of the ops placed on it, inputs resident in its memory included, and its
// static power x makespan), every memory (static power x makespan) and every link (its share of each
// transfer it carried: a multi-hop transfer's energy split in proportion to ir::TransferModel::link_energy_j
// of each hop). The owners' components sum to the schedule's energy_j.
// Also the predicted-vs-simulated comparison that `lightsim --simulate` prints per owner and component.
//
// It is not where energy is computed: the SystemC modules (simulated) and the arithmetic model (predicted,
// filled in by the Pipeline) are; this only adds up what a schedule records.
#pragma once

#include "ir/energy.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "scheduler/schedule.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::sim {

// One op's energy by component: schedule.op_energy[op], or (when the schedule recorded none) its energy_j
// under `compute`. By value, so that a caller streaming a million ops holds no second copy.
ir::EnergyBreakdown op_energy_of(const sched::Schedule& schedule, std::size_t op);

enum class OwnerKind { Unit, Memory, Link };
std::string_view owner_kind_name(OwnerKind k); // "unit", "memory", "link"

struct OwnerEnergy {
  OwnerKind kind = OwnerKind::Unit;
  int index = -1;   // into Hardware::units, memories or links
  std::string name; // from the config
  ir::EnergyBreakdown energy;
};

// Units, then memories, then links, each in config order. Throws std::invalid_argument when the schedule
// does not fit the graph and hardware (a caller bug).
std::vector<OwnerEnergy> energy_by_owner(const ir::Graph& graph, const ir::Hardware& hw,
                                         const sched::Schedule& schedule);

// One owner's components as {"<component>": joules} (nonzero ones), and every owner as a JSON array of
// {"kind", "name", "energy_j", "energy_by_component"} (the key the units[] entries of --json use too).
nlohmann::json components_json(const ir::EnergyBreakdown& energy);
nlohmann::json owners_json(const std::vector<OwnerEnergy>& owners);

// Text table, one row per (owner, component) with energy: joules and share of the total.
std::string format_energy_table(const std::vector<OwnerEnergy>& owners);

// Predicted vs simulated per (owner, component) where either is nonzero: error = (simulated - predicted) /
// simulated (sim/check/check.h's rule). Text and JSON ({"owner_kind", "owner", "component", "predicted_j",
// "simulated_j", "error"}, errors as fractions, null when unbounded).
std::string format_energy_comparison(const std::vector<OwnerEnergy>& predicted,
                                     const std::vector<OwnerEnergy>& simulated);
nlohmann::json energy_comparison_json(const std::vector<OwnerEnergy>& predicted,
                                      const std::vector<OwnerEnergy>& simulated);

} // namespace lightsim::sim
