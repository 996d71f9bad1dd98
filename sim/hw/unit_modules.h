// The SystemC module of each unit kind: a kind registers how to build its module (sim/units/<kind>/,
// register_<kind>_kind), and the Machine builds every unit's module through make_unit_module, knowing no
// kind.
//
// It is not the kind registry: ir/hardware/unit_kind.h is; this only adds the SystemC half.
#pragma once

#include "ir/hardware/hardware.h"
#include "sim/hw/unit.h"

#include <functional>
#include <memory>

namespace lightsim::sim {

using UnitModuleFactory = std::function<std::unique_ptr<UnitModule>(const char* name, const ir::Unit& unit)>;

void register_unit_module(const ir::UnitKind& kind, UnitModuleFactory factory);
// The module of `unit`'s kind; std::logic_error when its kind registered none.
std::unique_ptr<UnitModule> make_unit_module(const char* name, const ir::Unit& unit);

} // namespace lightsim::sim
