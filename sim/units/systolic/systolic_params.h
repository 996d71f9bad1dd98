// The systolic array's parameters (config keys of a unit with `kind: systolic`): a rows x cols array of
// processing elements (PEs) under one of SCALE-Sim's three dataflows, the MACs a PE does per cycle at each
// operand precision, the three double-buffered scratchpads (ifmap, filter, ofmap) with their energy per
// byte, the accumulators' width, the vector unit beside the array (TPU's activation pipeline) and energy
// per MAC; and their field table, which declares each key once (ir/hardware/fields.h).
//
// It is not the array's timing: systolic_work.h counts folds, cycles and traffic, systolic_module.h times
// ops in the replay.
#pragma once

#include "ir/dtype.h"
#include "ir/hardware/fields.h"
#include "ir/names.h"

#include <array>
#include <cstdint>
#include <optional>

namespace lightsim::units {

// What stays in the PEs while the other two operands stream (Chen et al., Eyeriss, ISCA 2016; SCALE-Sim's
// names): the weights (TPU), the outputs (partial sums accumulate in place) or the inputs.
enum class Dataflow : std::uint8_t { WeightStationary, OutputStationary, InputStationary };
inline constexpr ir::NameTable kDataflows{
    std::array{std::pair{Dataflow::WeightStationary, std::string_view("ws")},
               std::pair{Dataflow::OutputStationary, std::string_view("os")},
               std::pair{Dataflow::InputStationary, std::string_view("is")}}};

// Operand precisions a PE may multiply, keyed in configs by these names; an op's GEMM dtype picks one
// (uint8 as int8).
enum class SystolicPrecision : std::uint8_t { Int8, Int16, Float16, BFloat16, Float32 };
inline constexpr std::size_t kNumSystolicPrecisions = 5;
inline constexpr ir::NameTable kSystolicPrecisions{
    std::array{std::pair{SystolicPrecision::Int8, std::string_view("int8")},
               std::pair{SystolicPrecision::Int16, std::string_view("int16")},
               std::pair{SystolicPrecision::Float16, std::string_view("float16")},
               std::pair{SystolicPrecision::BFloat16, std::string_view("bfloat16")},
               std::pair{SystolicPrecision::Float32, std::string_view("float32")}}};
// The precision a GEMM with operands of `dtype` runs at; nullopt for a dtype no PE multiplies.
std::optional<SystolicPrecision> systolic_precision(ir::DType dtype);

// One on-chip scratchpad, double-buffered: half of it holds the fold being computed, the other half fills
// with the next fold's operands (SCALE-Sim v2).
struct Scratchpad {
  double size_bytes = 0;
  double energy_pj_per_byte = 0; // a byte written or read, on either side (memory or array)
  friend bool operator==(const Scratchpad&, const Scratchpad&) = default;
};

struct SystolicParams {
  int rows = 1, cols = 1; // PEs
  Dataflow dataflow = Dataflow::WeightStationary;
  // MACs one PE does per cycle at each precision (0: none; 0.5: one every other cycle, as TPU v1 runs 16-bit
  // operands; 2: two narrow MACs per cycle).
  std::array<double, kNumSystolicPrecisions> macs_per_pe_per_cycle{};
  int accumulator_bytes = 4; // partial sums (int32 / fp32 accumulate)
  Scratchpad ifmap_sram, filter_sram, ofmap_sram;
  double memory_efficiency = 1; // achievable / peak bandwidth of the unit's memory for scratchpad fills
  double mac_energy_pj = 0;     // one MAC in the array (component systolic_mac)
  // The vector unit beside the array (TPU's activation pipeline): element operations per cycle and energy.
  double vector_ops_per_cycle = 1;
  double vector_energy_pj_per_op = 0;
  double op_overhead_ns = 0; // fixed time per op: its instructions issued by the host
  // Copied from the unit's memory when the config is loaded (not a config key): scratchpads fill from it.
  double memory_bandwidth_GBps = 0;
  friend bool operator==(const SystolicParams&, const SystolicParams&) = default;
};

const ir::FieldTable<Scratchpad>& scratchpad_fields();
const ir::FieldTable<SystolicParams>& systolic_fields();

} // namespace lightsim::units
