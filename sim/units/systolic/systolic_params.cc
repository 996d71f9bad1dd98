#include "sim/units/systolic/systolic_params.h"

#include <algorithm>
#include <string>

namespace lightsim::units {
namespace {

using ir::detail::ConfigObject;

constexpr double kBytesPerKiB = 1024.0;

double positive_rate(ConfigObject& o, const std::string& key) {
  return o.rate(key);
}

// The narrowest operand a PE multiplies (bytes): the smallest stationary tile a scratchpad must hold.
double narrowest_operand_bytes(const SystolicParams& p) {
  constexpr std::array<double, kNumSystolicPrecisions> kBytes = {1, 2, 2, 2, 4};
  double narrowest = 0;
  for (std::size_t i = 0; i < kNumSystolicPrecisions; ++i)
    if (p.macs_per_pe_per_cycle[i] > 0)
      narrowest = narrowest == 0 ? kBytes[i] : std::min(narrowest, kBytes[i]);
  return narrowest;
}

// Every scratchpad's half must hold one fold's tile of its operand: rows x cols at the narrowest precision
// the array multiplies (outputs: at the accumulators' width), or no fold could be staged.
void check_scratchpads(SystolicParams& p, ConfigObject& o) {
  const double operand = narrowest_operand_bytes(p);
  if (operand == 0)
    o.fail("macs_per_pe_per_cycle", "has no precision: the array needs MACs for at least one");
  const double tile = static_cast<double>(p.rows) * p.cols;
  const std::pair<const char*, std::pair<const Scratchpad*, double>> pads[] = {
      {"ifmap_sram", {&p.ifmap_sram, operand}},
      {"filter_sram", {&p.filter_sram, operand}},
      {"ofmap_sram", {&p.ofmap_sram, static_cast<double>(p.accumulator_bytes)}}};
  for (const auto& [key, pad] : pads) {
    const double needed = 2 * tile * pad.second;
    if (pad.first->size_bytes >= needed) continue;
    ConfigObject sub(o.raw().at(key), o.source(), o.key_path(key));
    sub.set_context(o.context());
    sub.fail("size_KiB", "holds no fold's tile: both halves must hold rows x cols x " +
                             ir::detail::number_text(pad.second) + " B (" + std::to_string(p.rows) + " x " +
                             std::to_string(p.cols) + "), " + ir::detail::number_text(needed / kBytesPerKiB) +
                             " KiB in all, got " +
                             ir::detail::number_text(pad.first->size_bytes / kBytesPerKiB));
  }
}

} // namespace

std::optional<SystolicPrecision> systolic_precision(ir::DType dtype) {
  switch (dtype) {
  case ir::DType::Int8:
  case ir::DType::UInt8:
    return SystolicPrecision::Int8;
  case ir::DType::Int16:
  case ir::DType::UInt16:
    return SystolicPrecision::Int16;
  case ir::DType::Float16:
    return SystolicPrecision::Float16;
  case ir::DType::BFloat16:
    return SystolicPrecision::BFloat16;
  case ir::DType::Float32:
    return SystolicPrecision::Float32;
  default:
    return std::nullopt;
  }
}

const ir::FieldTable<Scratchpad>& scratchpad_fields() {
  using F = ir::Field<Scratchpad>;
  static const ir::FieldTable<Scratchpad> table(
      "scratchpad", {F::scaled_rate(&Scratchpad::size_bytes, "size_KiB", kBytesPerKiB, "KiB",
                                    "capacity, both halves of the double buffer together"),
                     F::non_negative(&Scratchpad::energy_pj_per_byte, "energy_pj_per_byte", "pJ/B",
                                     "energy of a byte written or read (fills from memory and reads by the "
                                     "array; component scratchpad)")});
  return table;
}

const ir::FieldTable<SystolicParams>& systolic_fields() {
  using F = ir::Field<SystolicParams>;
  static const ir::FieldTable<SystolicParams> table(
      "systolic",
      {F::count(&SystolicParams::rows, "rows", "PEs", "rows of the PE array"),
       F::count(&SystolicParams::cols, "cols", "PEs", "columns of the PE array"),
       F::choice(&SystolicParams::dataflow, "dataflow", kDataflows, "dataflow",
                 "ws (weights stay in the PEs: TPU), os (outputs accumulate in place) or is (inputs stay); "
                 "SCALE-Sim's mapping of a GEMM's dimensions onto the array")
           .optional(),
       F::keyed(&SystolicParams::macs_per_pe_per_cycle, "macs_per_pe_per_cycle", kSystolicPrecisions,
                "precision", "number > 0", "MACs/cycle/PE",
                "MACs one PE does per cycle at each operand precision (absent: the array cannot multiply it; "
                "0.5: one MAC every other cycle)",
                positive_rate),
       F::integer(&SystolicParams::accumulator_bytes, "accumulator_bytes", 2, 8, "B",
                  "width of a partial sum (4: int32 / fp32 accumulate)")
           .optional(),
       F::object(&SystolicParams::ifmap_sram, "ifmap_sram", scratchpad_fields(),
                 "input (activation) scratchpad (TPU: the unified buffer)"),
       F::object(&SystolicParams::filter_sram, "filter_sram", scratchpad_fields(),
                 "weight scratchpad (TPU: the weight FIFO)"),
       F::object(&SystolicParams::ofmap_sram, "ofmap_sram", scratchpad_fields(),
                 "output / partial-sum scratchpad (TPU: the accumulators)"),
       F::fraction(&SystolicParams::memory_efficiency, "memory_efficiency",
                   "achievable / peak bandwidth of the unit's memory when scratchpads fill")
           .optional(),
       F::non_negative(&SystolicParams::mac_energy_pj, "mac_energy_pj", "pJ",
                       "energy of one MAC in the array (component systolic_mac)"),
       F::rate(&SystolicParams::vector_ops_per_cycle, "vector_ops_per_cycle", "ops/cycle",
               "element operations per cycle of the vector unit beside the array (activation, pooling, "
               "element ops; a GEMM's fused tail runs there as its results leave the array)"),
       F::non_negative(&SystolicParams::vector_energy_pj_per_op, "vector_energy_pj_per_op", "pJ",
                       "energy of one vector-unit element operation (component systolic_vector)"),
       F::non_negative(&SystolicParams::op_overhead_ns, "op_overhead_ns", "ns",
                       "fixed time of every op (its instructions issued by the host)")
           .optional()},
      {check_scratchpads});
  return table;
}

} // namespace lightsim::units
