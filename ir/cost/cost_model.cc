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

// The fused elementwise tail works on the anchor's output: it reads and writes that many elements.
OpFeatures tail_features(const OpFeatures& op) {
  OpFeatures t;
  t.elements_in = t.elements_out = op.elements_out;
  t.bytes_in = t.bytes_out = op.bytes_out;
  t.max_dim = op.max_dim;
  return t;
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
    return op.bytes_read + op.bytes_out;
  case Feature::ElementwiseOps:
    return elementwise_ops(op);
  case Feature::ComputeCycles:
    return compute_cycles(unit, op);
  case Feature::ComputeCyclesPerByte:
    return compute_cycles(unit, op) / std::max(1.0, op.bytes_in + op.bytes_out);
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
  case Feature::MemoryCycles:
    return unit.kind == UnitKind::Cpu
               ? cpu_work(unit, op, op.bytes_read + op.bytes_out).memory_ns * unit.clock_ghz
               : 0;
  case Feature::ComputeMemoryRatio: {
    if (unit.kind != UnitKind::Cpu) return 0;
    const CpuWork w = cpu_work(unit, op, op.bytes_read + op.bytes_out);
    return w.compute_cycles / std::max(1.0, w.memory_ns * unit.clock_ghz);
  }
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
  const ArithmeticModel& model = hw.model_of(unit);
  const Unit& u = hw.units[unit];
  Cost cost = evaluate(entry_of(model, op.op_class), op.features, u);
  if (!op.fused_tail.empty()) {
    const OpFeatures tail = tail_features(op.features);
    for (OpClass c : op.fused_tail)
      cost += evaluate(entry_of(model, c), tail, u);
  }
  return cost;
}

} // namespace lightsim::ir
