// How a unit kind registers (sim/units/<kind>/<kind>_kind.cc): register_kind<K, M>() registers one instance
// of descriptor class K with the kind registry (ir/hardware/unit_kind.h) and SystemC module M's factory
// (sim/hw/unit_modules.h), and keeps the instance for the kind's own accessors (registered<K>()).
//
// It is not the list of kinds: sim/units/kinds.def is.
#pragma once

#include "ir/hardware/unit_kind.h"
#include "sim/hw/unit_modules.h"

#include <memory>
#include <stdexcept>
#include <string>

namespace lightsim::units {

template <class K> struct RegisteredKind { static inline const K* instance = nullptr; };

// The registered instance of K; std::logic_error before register_kind<K, M>().
template <class K> const K& registered() {
  if (RegisteredKind<K>::instance == nullptr)
    throw std::logic_error("a unit kind was used before it registered");
  return *RegisteredKind<K>::instance;
}

template <class K, class Module> void register_kind() {
  const auto& kind = static_cast<const K&>(ir::register_unit_kind(std::make_unique<K>()));
  RegisteredKind<K>::instance = &kind;
  sim::register_unit_module(kind,
                            [](const char* name, const ir::Unit& unit) -> std::unique_ptr<sim::UnitModule> {
                              return std::make_unique<Module>(name, unit);
                            });
}

} // namespace lightsim::units
