#include "ir/energy.h"

#include "ir/names.h"

#include <stdexcept>
#include <vector>

namespace lightsim::ir {
namespace {

struct ComponentInfo {
  std::string name, doc;
};

struct Registry {
  std::vector<ComponentInfo> info; // by id
  std::vector<EnergyComponent> listed;
  Registry() {
    info = {{"compute", "dynamic energy of a unit that its kind does not split (a CPU's cores)"},
            {"sram", "accesses to an SRAM"},
            {"hbm", "accesses to an HBM"},
            {"dram", "accesses to a DRAM"},
            {"link", "bytes and packets on links (transfers)"},
            {"static", "static power over the makespan (units and memories)"}};
    relist();
  }
  // compute, the kinds' components in registration order, then the memories', link and static.
  void relist() {
    listed = {EnergyComponent::Compute};
    for (std::size_t c = kNumFixedEnergyComponents; c < info.size(); ++c)
      listed.push_back(static_cast<EnergyComponent>(c));
    for (EnergyComponent c : {EnergyComponent::Sram, EnergyComponent::Hbm, EnergyComponent::Dram,
                              EnergyComponent::Link, EnergyComponent::Static})
      listed.push_back(c);
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

} // namespace

EnergyComponent register_energy_component(std::string_view name, std::string_view doc) {
  Registry& r = registry();
  if (const std::optional<EnergyComponent> known = parse_energy_component(name)) return *known;
  if (r.info.size() == kMaxEnergyComponents)
    throw std::logic_error("energy component '" + std::string(name) + "': more than kMaxEnergyComponents (" +
                           std::to_string(kMaxEnergyComponents) + ") registered; raise it in ir/energy.h");
  r.info.push_back({std::string(name), std::string(doc)});
  r.relist();
  return static_cast<EnergyComponent>(r.info.size() - 1);
}

const std::vector<EnergyComponent>& energy_components() {
  return registry().listed;
}

std::string_view energy_component_name(EnergyComponent c) {
  return registry().info.at(static_cast<std::size_t>(c)).name;
}

std::string_view energy_component_doc(EnergyComponent c) {
  return registry().info.at(static_cast<std::size_t>(c)).doc;
}

std::optional<EnergyComponent> parse_energy_component(std::string_view name) {
  const Registry& r = registry();
  for (std::size_t c = 0; c < r.info.size(); ++c)
    if (r.info[c].name == name) return static_cast<EnergyComponent>(c);
  return std::nullopt;
}

std::string energy_component_choices() {
  std::vector<std::string_view> names;
  for (EnergyComponent c : energy_components())
    names.push_back(energy_component_name(c));
  return join_names(names);
}

bool is_op_component(EnergyComponent c) {
  return c != EnergyComponent::Link && c != EnergyComponent::Static &&
         static_cast<std::size_t>(c) < registry().info.size();
}

} // namespace lightsim::ir
