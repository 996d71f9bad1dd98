#include "ir/cost/cost_model.h"

#include "ir/cost/unit_work.h"

#include <algorithm>

namespace lightsim::ir {
namespace {

double apply(const LinearForm& form, const OpFeatures& op, const Unit& unit) {
  double value = form.intercept;
  for (std::size_t i = 0; i < kNumFeatures; ++i)
    if (form.coef[i] != 0) value += form.coef[i] * feature_value(static_cast<Feature>(i), op, unit);
  return value;
}

const OpClassModel& entry_of(const ArithmeticModel& model, OpClass c) {
  return model.classes[static_cast<std::size_t>(c)];
}

} // namespace

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
  case Feature::ComputeCycles:
    return compute_cycles(unit, op);
  case Feature::ComputeCyclesPerByte: {
    const double bytes = op.attention_value_dim > 0 ? operand_bytes(unit, op) : op.bytes_in + op.bytes_out;
    return compute_cycles(unit, op) / std::max(1.0, bytes);
  }
  case Feature::TilePassWaves: {
    if (unit.kind != UnitKind::Gpu) return 0;
    const GpuGemmWork g = gpu_gemm_work(unit.gpu, op);
    return static_cast<double>(g.waves * g.k_passes);
  }
  case Feature::WeightTiles:
    return unit.kind == UnitKind::Phu ? static_cast<double>(phu_gemm_work(unit, op).weight_tiles) : 0;
  case Feature::DacConversions:
    return unit.kind == UnitKind::Phu ? phu_gemm_work(unit, op).dac_samples : 0;
  case Feature::AdcConversions:
    return unit.kind == UnitKind::Phu ? phu_gemm_work(unit, op).adc_samples : 0;
  case Feature::FusedOps:
    return op.fused_ops;
  case Feature::Count_:
    break;
  }
  return 0;
}

Cost evaluate(const OpClassModel& entry, const OpFeatures& op, const Unit& unit) {
  const ModelPiece* chosen = &entry.pieces.back();
  for (const ModelPiece& piece : entry.pieces) {
    if (!piece.when) {
      chosen = &piece;
      break;
    }
    const double v = feature_value(*piece.when, op, unit);
    if (v >= piece.when_min && v < piece.when_max) {
      chosen = &piece;
      break;
    }
  }
  return {std::max(0.0, apply(chosen->time_s, op, unit)), std::max(0.0, apply(chosen->energy_j, op, unit))};
}

bool can_run(const Hardware& hw, int unit, const Op& op) {
  const ArithmeticModel& model = hw.model_of(unit);
  if (!model.can_run(op.op_class)) return false;
  return std::all_of(op.fused_tail.begin(), op.fused_tail.end(), [&](OpClass c) { return model.can_run(c); });
}

Cost op_cost(const Hardware& hw, int unit, const Op& op) {
  return evaluate(entry_of(hw.model_of(unit), op.op_class), op.features, hw.units[unit]);
}

} // namespace lightsim::ir
