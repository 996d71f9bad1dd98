#include "ir/cost/cost_model.h"

#include "ir/cost/gpu_kernel.h"
#include "ir/cost/unit_work.h"

#include <algorithm>

namespace lightsim::ir {
namespace {

constexpr std::size_t idx(Feature f) {
  return static_cast<std::size_t>(f);
}

double apply(const LinearForm& form, const FeatureValues& x) {
  double value = form.intercept;
  for (std::size_t i = 0; i < kNumFeatures; ++i)
    if (form.coef[i] != 0) value += form.coef[i] * x[i];
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

const ModelPiece& choose_piece(const OpClassModel& entry, const FeatureValues& x) {
  for (const ModelPiece& piece : entry.pieces) {
    if (!piece.when) return piece;
    const double v = x[idx(*piece.when)];
    if (v >= piece.when_min && v < piece.when_max) return piece;
  }
  return entry.pieces.back();
}

EnergyBreakdown energy_of(const ModelPiece& piece, const FeatureValues& x) {
  EnergyBreakdown e;
  for (std::size_t c = 0; c < kNumEnergyComponents; ++c)
    if (piece.energy_j.parts[c] != LinearForm{}) e.j[c] = std::max(0.0, apply(piece.energy_j.parts[c], x));
  return e;
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
    return op.bytes_read + op.bytes_out + materialised_bytes(unit, op);
  case Feature::ElementwiseOps:
    return elementwise_ops(op);
  default:
    return feature_values(op, unit)[idx(f)];
  }
}

FeatureValues feature_values(const OpFeatures& op, const Unit& unit) {
  FeatureValues x{};
  for (Feature f : {Feature::Macs, Feature::ElementsIn, Feature::ElementsOut, Feature::BytesIn,
                    Feature::BytesOut, Feature::MaxDim, Feature::OperandBytes, Feature::ElementwiseOps})
    x[idx(f)] = feature_value(f, op, unit);
  if (unit.kind == UnitKind::Phu) { // the tiling once for every PHU feature
    const PhuGemmWork w = phu_gemm_work(unit, op);
    const PhuConversionSteps steps = phu_conversion_steps(unit, w);
    x[idx(Feature::ComputeCycles)] = w.busy_ns * unit.clock_ghz;
    x[idx(Feature::WeightTiles)] = static_cast<double>(w.weight_tiles);
    x[idx(Feature::DacConversions)] = w.dac_samples;
    x[idx(Feature::AdcConversions)] = w.adc_samples;
    x[idx(Feature::DacConversionSteps)] = steps.dac;
    x[idx(Feature::AdcConversionSteps)] = steps.adc;
    x[idx(Feature::WeightConversionSteps)] = steps.weight;
  } else {
    x[idx(Feature::ComputeCycles)] = compute_cycles(unit, op);
  }
  if (unit.kind == UnitKind::Gpu && has_gemm_view(op)) {
    const GpuGemmKernel g = gpu_gemm_kernel(unit, gpu_gemm_shape(op));
    x[idx(Feature::TilePassWaves)] = static_cast<double>(g.waves * g.k_steps);
  }
  if (unit.kind == UnitKind::Cpu) {
    const CpuWork w = cpu_work(unit, op, op.bytes_read + op.bytes_out);
    x[idx(Feature::MemoryCycles)] = w.memory_ns * unit.clock_ghz;
    x[idx(Feature::ComputeMemoryRatio)] = w.compute_cycles / std::max(1.0, w.memory_ns * unit.clock_ghz);
    x[idx(Feature::OpCores)] = w.cores;
    if (w.gemm)
      x[idx(Feature::CoreCycles)] =
          w.cores * (cpu_fixed_ns(unit, w) * unit.clock_ghz + w.memory_ns * unit.clock_ghz +
                     w.compute_cycles / unit.cpu.gemm_efficiency);
  }
  x[idx(Feature::ComputeCyclesPerByte)] =
      x[idx(Feature::ComputeCycles)] / std::max(1.0, op.bytes_in + op.bytes_out);
  return x;
}

Cost evaluate(const OpClassModel& entry, const OpFeatures& op, const Unit& unit) {
  const FeatureValues x = feature_values(op, unit);
  const ModelPiece& piece = choose_piece(entry, x);
  return {std::max(0.0, apply(piece.time_s, x)), energy_of(piece, x).total()};
}

EnergyBreakdown evaluate_energy(const OpClassModel& entry, const OpFeatures& op, const Unit& unit) {
  const FeatureValues x = feature_values(op, unit);
  return energy_of(choose_piece(entry, x), x);
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

EnergyBreakdown op_energy(const Hardware& hw, int unit, const Op& op) {
  if (!can_run(hw, unit, op)) return {};
  const ArithmeticModel& model = hw.model_of(unit);
  const Unit& u = hw.units[unit];
  EnergyBreakdown energy = evaluate_energy(entry_of(model, op.op_class), op.features, u);
  if (!op.fused_tail.empty()) {
    const OpFeatures tail = tail_features(op.features);
    for (OpClass c : op.fused_tail)
      energy += evaluate_energy(entry_of(model, c), tail, u);
  }
  return energy;
}

} // namespace lightsim::ir
