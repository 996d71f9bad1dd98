// UnitKindOf<P>: the part of a unit kind's descriptor that follows from its parameter struct P and P's
// field table (ir/hardware/fields.h): default parameters, reading, writing and documenting them. A kind
// derives from it (sim/units/<kind>/<kind>_kind.cc) and writes only what is its own.
//
// It is not a kind: the timing, features and sharing are the deriving class's.
#pragma once

#include "ir/hardware/fields.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/unit_kind.h"

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace lightsim::ir {

template <class P> class UnitKindOf : public UnitKind {
public:
  explicit UnitKindOf(const FieldTable<P>& table) : table_(table) {}

  KindParams default_params() const override { return KindParams(P{}); }
  void read_params(detail::ConfigObject& unit_object, Unit& unit) const override {
    P p;
    table_.read(unit_object, p);
    unit.params = KindParams(std::move(p));
  }
  void write_params(const Unit& unit, nlohmann::json& unit_object) const override {
    table_.write(unit.as<P>(), unit_object);
  }
  std::vector<DocSection> field_docs() const override { return table_.sections(); }

private:
  const FieldTable<P>& table_;
};

} // namespace lightsim::ir
