#include "ir/cost/cost_model.h"

#include "ir/cost/collectives.h"
#include "ir/cost/unit_work.h"

#include <algorithm>
#include <stdexcept>

namespace lightsim::ir {
namespace {

constexpr std::size_t idx(Feature f) {
  return static_cast<std::size_t>(f);
}

const OpClassModel& entry_of(const ArithmeticModel& model, OpClass c) {
  return model.classes[static_cast<std::size_t>(c)];
}

const ModelPiece& choose_piece(const OpClassModel& entry, const FeatureValues& x) {
  return entry.pieces[piece_index(entry, x)];
}

EnergyBreakdown energy_of(const ModelPiece& piece, const FeatureValues& x) {
  EnergyBreakdown e;
  for (const auto& [c, form] : piece.energy_j.parts())
    if (form != LinearForm{}) e[c] = std::max(0.0, form.apply(x));
  return e;
}

} // namespace

std::size_t piece_index(const OpClassModel& entry, const FeatureValues& x) {
  for (std::size_t i = 0; i < entry.pieces.size(); ++i) {
    const ModelPiece& piece = entry.pieces[i];
    if (!piece.when) return i;
    const double v = x[idx(*piece.when)];
    if (v >= piece.when_min && v < piece.when_max) return i;
  }
  return entry.pieces.size() - 1;
}

double feature_value(Feature f, const OpFeatures& op, const Unit& unit) {
  switch (f) {
  case Feature::Macs:
    return op.macs;
  case Feature::ElementsIn:
    return op.elements_in;
  case Feature::ElementsOut:
    return op.elements_out;
  case Feature::BytesIn:
    return op.bytes_in;
  case Feature::BytesOut:
    return op.bytes_out;
  case Feature::MaxDim:
    return op.max_dim;
  case Feature::OperandBytes:
    return operand_bytes(unit, op);
  case Feature::ElementwiseOps:
    return elementwise_ops(op);
  case Feature::FusedOps:
    return op.fused_ops;
  default:
    return feature_values(op, unit)[idx(f)];
  }
}

FeatureValues feature_values(const OpFeatures& op, const Unit& unit) {
  FeatureValues x{};
  for (Feature f :
       {Feature::Macs, Feature::ElementsIn, Feature::ElementsOut, Feature::BytesIn, Feature::BytesOut,
        Feature::MaxDim, Feature::OperandBytes, Feature::ElementwiseOps, Feature::FusedOps})
    x[idx(f)] = feature_value(f, op, unit);
  unit.kind->fill_features(unit, op, x);
  // On the bytes the memory piece of a roofline moves (operand_bytes: a gather's rows read, not its whole
  // table; fused attention's FlashAttention traffic, not its boundary tensors), so that the two pieces turn
  // where they cross.
  x[idx(Feature::ComputeCyclesPerByte)] =
      x[idx(Feature::ComputeCycles)] / std::max(1.0, x[idx(Feature::OperandBytes)]);
  return x;
}

Cost evaluate(const OpClassModel& entry, const OpFeatures& op, const Unit& unit) {
  const FeatureValues x = feature_values(op, unit);
  const ModelPiece& piece = choose_piece(entry, x);
  return {std::max(0.0, piece.time_s.apply(x)), energy_of(piece, x).total()};
}

EnergyBreakdown evaluate_energy(const OpClassModel& entry, const OpFeatures& op, const Unit& unit) {
  const FeatureValues x = feature_values(op, unit);
  return energy_of(choose_piece(entry, x), x);
}

bool model_covers(const Hardware& hw, int unit, const Op& op) {
  if (is_collective(op.op_class)) return !collective_group(hw, unit, op).empty();
  const ArithmeticModel& model = hw.model_of(unit);
  return model.can_run(op.op_class) &&
         std::all_of(op.features.fused_tail.begin(), op.features.fused_tail.end(),
                     [&](OpClass c) { return model.can_run(c); });
}

bool can_run(const Hardware& hw, int unit, const Op& op) {
  const Unit& u = hw.units[static_cast<std::size_t>(unit)];
  if (is_collective(op.op_class)) return model_covers(hw, unit, op); // the links move it, not the unit
  return model_covers(hw, unit, op) && u.kind->supports(u, op.features);
}

Cost op_cost(const Hardware& hw, int unit, const Op& op) {
  if (is_collective(op.op_class))
    throw std::logic_error("op_cost: collective op '" + op.name + "' is costed by ir::collective_op_cost");
  return evaluate(entry_of(hw.model_of(unit), op.op_class), op.features, hw.units[unit]);
}

EnergyBreakdown op_energy(const Hardware& hw, int unit, const Op& op) {
  if (is_collective(op.op_class) || !can_run(hw, unit, op)) return {};
  // A fused op is costed by its anchor's entry alone (its tail is in its features), as op_cost is.
  return evaluate_energy(entry_of(hw.model_of(unit), op.op_class), op.features, hw.units[unit]);
}

} // namespace lightsim::ir
