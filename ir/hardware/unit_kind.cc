#include "ir/hardware/unit_kind.h"

#include "ir/hardware/hardware.h"
#include "ir/names.h"

#include <algorithm>

namespace lightsim::ir {
namespace {

struct Registry {
  std::vector<std::unique_ptr<UnitKind>> owned;
  std::vector<const UnitKind*> kinds;
};

Registry& registry() {
  static Registry r;
  return r;
}

const UnitKind* lookup(std::string_view name) {
  for (const UnitKind* k : registry().kinds)
    if (k->name() == name) return k;
  return nullptr;
}

} // namespace

const std::vector<Feature>& FitFeatures::energy_terms(EnergyComponent c) const {
  for (const auto& [component, terms] : energy)
    if (component == c) return terms;
  return time;
}

void FitFeatures::set_energy_terms(EnergyComponent c, std::vector<Feature> terms) {
  for (auto& [component, old] : energy)
    if (component == c) {
      old = std::move(terms);
      return;
    }
  energy.emplace_back(c, std::move(terms));
}

FitFeatures default_fit_features(OpClass op_class) {
  FitFeatures set;
  if (op_class == OpClass::Nop || op_class == OpClass::Input) return set; // a fixed cost, if any
  // Time on every unit: compute cycles (the kind's count) and operand bytes (what the memory moves); the
  // detailed models take the max of the two (a roofline), hence a split on their ratio; measured units
  // also change rate with the working set (caches), hence a split on operand bytes. Intercept: dispatch /
  // launch / latency. Memory energy is charged on the bytes moved; every other component like time unless
  // the kind says on what its module charges it.
  set.time = {Feature::ComputeCycles, Feature::OperandBytes};
  set.split_on = {Feature::ComputeCyclesPerByte, Feature::OperandBytes};
  for (EnergyComponent c : {EnergyComponent::Sram, EnergyComponent::Hbm, EnergyComponent::Dram})
    set.set_energy_terms(c, {Feature::OperandBytes});
  return set;
}

FitFeatures UnitKind::fit_features(OpClass op_class) const {
  return default_fit_features(op_class);
}

int UnitKind::ops_in_flight(const Unit& unit) const {
  return std::max(1, unit.cores);
}

const UnitKind& register_unit_kind(std::unique_ptr<UnitKind> kind) {
  Registry& r = registry();
  if (lookup(kind->name()) != nullptr)
    throw std::logic_error("unit kind '" + std::string(kind->name()) + "' registered twice");
  r.owned.push_back(std::move(kind));
  r.kinds.push_back(r.owned.back().get());
  return *r.kinds.back();
}

const UnitKind* find_unit_kind(std::string_view name) {
  unit_kinds(); // none registered is a program error, not an unknown name
  return lookup(name);
}

const std::vector<const UnitKind*>& unit_kinds() {
  const Registry& r = registry();
  if (r.kinds.empty())
    throw std::logic_error("no unit kinds are registered: call lightsim::register_unit_kinds() "
                           "(sim/units/registry.h) before loading a config");
  return r.kinds;
}

std::string unit_kind_choices() {
  std::vector<std::string_view> names;
  for (const UnitKind* k : unit_kinds())
    names.push_back(k->name());
  return join_names(names);
}

} // namespace lightsim::ir
