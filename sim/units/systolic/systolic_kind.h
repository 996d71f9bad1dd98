// The systolic array unit kind (`kind: systolic`): a TPU-like rows x cols array of MAC PEs under a
// weight-, output- or input-stationary dataflow, with double-buffered ifmap / filter / ofmap scratchpads
// filled from its memory and a vector unit beside it, timed as SCALE-Sim times it (systolic_work.h). Its
// descriptor (ir::UnitKind) answers for it everywhere outside this folder; register_systolic_kind()
// registers it with its SystemC module (sim/units/kinds.def lists it).
//
// It is not the timing: systolic_work.h counts folds and traffic, systolic_module.h runs ops in the replay.
#pragma once

#include "ir/hardware/unit_kind.h"

namespace lightsim {

void register_systolic_kind();

namespace units {

// What the systolic kind adds to the arithmetic model (configs/README.md, "Models", "Energy").
struct SystolicFeatures {
  ir::Feature fill_stall_cycles; // cycles the folds wait for scratchpad fills and drains
  ir::Feature fold_memory_bytes; // bytes the folds move to and from the unit's memory (reuse included)
  ir::Feature ifmap_sram_bytes;  // bytes through the ifmap scratchpad
  ir::Feature filter_sram_bytes; // bytes through the filter scratchpad
  ir::Feature ofmap_sram_bytes;  // bytes through the ofmap scratchpad
  ir::EnergyComponent systolic_mac, scratchpad, systolic_vector;
};
// The registered systolic kind and its features (std::logic_error before register_systolic_kind()).
const ir::UnitKind& systolic_kind();
const SystolicFeatures& systolic_features();

} // namespace units
} // namespace lightsim
