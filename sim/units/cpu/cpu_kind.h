// The CPU unit kind (`kind: cpu`): N cores sharing a memory port, cache levels by working set, a runtime
// that splits large GEMMs over cores and runs several ops at once. Its descriptor (ir::UnitKind) answers
// for it everywhere outside this folder; register_cpu_kind() registers it with its SystemC module
// (sim/units/kinds.def lists it).
//
// It is not the timing: cpu_work.h counts the work, cpu_module.h times it in the replay.
#pragma once

#include "ir/hardware/unit_kind.h"

namespace lightsim {

void register_cpu_kind();

namespace units {

// The features the CPU kind adds to the arithmetic model (configs/README.md, "Models").
struct CpuFeatures {
  ir::Feature memory_cycles;        // cycles its operand bytes take alone at their cache level's rate
  ir::Feature compute_memory_ratio; // compute (+ tail) cycles / memory cycles: the roofline's side
  ir::Feature core_cycles;          // a GEMM: cycles it holds its cores alone x those cores (dynamic power)
  ir::Feature op_cores;             // cores the op holds (a split GEMM: k; else 1)
  ir::Feature tail_cycles;          // cycles of the fused tail on one core, each class at its own rate
};
// The registered CPU kind and its features (std::logic_error before register_cpu_kind()).
const ir::UnitKind& cpu_kind();
const CpuFeatures& cpu_features();

} // namespace units
} // namespace lightsim
