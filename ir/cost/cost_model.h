// The arithmetic (linear) cost model: the time and energy of an op on a unit, from the unit's
// ArithmeticModel in the hardware config and the op's shape features. A fused op costs its anchor class
// plus each class of its elementwise tail, evaluated on the op's output.
//
// It is not the detailed model: the SystemC modules in sim/ are, and retraining fits this one to them.
#pragma once

#include "ir/cost.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"

namespace lightsim::ir {

// Value of a feature for an op on a unit.
double feature_value(Feature f, const OpFeatures& op, const Unit& unit);

// Cost of one class entry (the first matching piece), clamped at zero. The entry must have pieces.
Cost evaluate(const OpClassModel& entry, const OpFeatures& op, const Unit& unit);

// True when `unit` can run `op`: its model has the anchor class and every class of the fused tail.
bool can_run(const Hardware& hw, int unit, const Op& op);

// Anchor + tail; requires can_run.
Cost op_cost(const Hardware& hw, int unit, const Op& op);

} // namespace lightsim::ir
