#include "sim/hw/unit_modules.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lightsim::sim {
namespace {

std::vector<std::pair<const ir::UnitKind*, UnitModuleFactory>>& factories() {
  static std::vector<std::pair<const ir::UnitKind*, UnitModuleFactory>> all;
  return all;
}

} // namespace

void register_unit_module(const ir::UnitKind& kind, UnitModuleFactory factory) {
  factories().emplace_back(&kind, std::move(factory));
}

std::unique_ptr<UnitModule> make_unit_module(const char* name, const ir::Unit& unit) {
  for (const auto& [kind, factory] : factories())
    if (kind == unit.kind) return factory(name, unit);
  throw std::logic_error("unit '" + unit.name + "': its kind '" + std::string(unit.kind_name()) +
                         "' has no SystemC module registered");
}

} // namespace lightsim::sim
