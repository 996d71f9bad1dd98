// The arithmetic (linear) cost model: the time and energy of an op on a unit, from the unit's
// ArithmeticModel in the hardware config and the op's shape features. A fused op is one op: its anchor
// class's entry evaluated on the fused op's own features, whose bytes are those that cross the group's
// boundary, whose GEMM view is the anchor's and whose element operations include the fused tail's
// (`fused_ops`, `elementwise_ops`, `compute_cycles`), as the SystemC modules time it: one launch, the
// anchor on its engine, the tail on the unit's elementwise engine. The tail's classes only decide where
// the op can run.
// Energy is a sum of components (ir/energy.h), each max(0, its linear form); op_cost's energy is that sum
// and op_energy splits it.
//
// It is not the detailed model: the SystemC modules in sim/ are, and retraining fits this one to them.
#pragma once

#include "ir/cost.h"
#include "ir/energy.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"

#include <array>

namespace lightsim::ir {

// Value of one feature, and of all of them (unit work counted once), for an op on a unit: the shape
// features and operand_bytes here, compute_cycles and the kind's own features by the unit's kind
// (UnitKind::fill_features), compute_cycles_per_byte from those.
double feature_value(Feature f, const OpFeatures& op, const Unit& unit);
FeatureValues feature_values(const OpFeatures& op, const Unit& unit);

// The piece of `entry` an op with feature values `x` takes: the first whose condition holds, else the last.
// The entry must have pieces.
std::size_t piece_index(const OpClassModel& entry, const FeatureValues& x);
// Cost of one class entry (the first matching piece), each part clamped at zero. The entry must have pieces.
Cost evaluate(const OpClassModel& entry, const OpFeatures& op, const Unit& unit);
// The same entry's energy by component (its total is evaluate's energy_j).
EnergyBreakdown evaluate_energy(const OpClassModel& entry, const OpFeatures& op, const Unit& unit);

// True when `unit`'s arithmetic model has the op's anchor class and every class of its fused tail; for a
// collective, when `unit` has a group for it (ir::collective_group: the links cost it, not the model).
bool model_covers(const Hardware& hw, int unit, const Op& op);
// True when `unit` can run `op`: model_covers, and its kind can compute it (UnitKind::supports: an array
// without MACs for the op's dtype cannot).
bool can_run(const Hardware& hw, int unit, const Op& op);

// The anchor class's entry on the op's features; requires can_run and an op that is not a collective
// (ir::collective_op_cost costs those, on the links).
Cost op_cost(const Hardware& hw, int unit, const Op& op);
// Anchor + tail by component; zero when the unit cannot run the op (an input its model has no entry for:
// the residency is free, as in the stacked graph) and for a collective (ir::collective_op_energy).
EnergyBreakdown op_energy(const Hardware& hw, int unit, const Op& op);

} // namespace lightsim::ir
