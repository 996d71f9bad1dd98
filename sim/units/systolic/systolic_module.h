// SystolicArray: the systolic kind's SystemC module, from ir::Unit (clock_ghz, cores = arrays) and
// SystolicParams. A GEMM (dense, batch_matmul, a convolution's implicit GEMM) runs as systolic_gemm counts it
// (systolic_work.h: SCALE-Sim's folds, 2R + C + T' - 2 cycles each, and the cycles the double-buffered
// scratchpads wait for the unit's memory); a fused tail runs on the vector unit as the results leave the
// array, so the op's cycles are max(folds, vector) + stalls. Other ops run on the vector unit while their
// operands stream through the ifmap scratchpad from memory: max(vector, bytes / (bandwidth x
// memory_efficiency)). Every op adds op_overhead_ns and the fetch of operands that spilled.
// Energy (op_energy): systolic_mac = MACs x mac_energy_pj; scratchpad = bytes through each scratchpad x its
// energy per byte; systolic_vector = element operations x vector_energy_pj_per_op; the memory's component
// on the folds' memory traffic (a GEMM) or the operand bytes (other ops), a spill memory's on its share.
//
// It is not a cycle-level PE model: SCALE-Sim's closed form per fold stands for the wavefront.
#pragma once

#include "sim/hw/unit.h"
#include "sim/units/systolic/systolic_work.h"

namespace lightsim::units {

class SystolicArray : public sim::UnitModule {
public:
  SystolicArray(sc_core::sc_module_name name, const ir::Unit& params);

  // Pure timing and energy.
  double op_ns(const sim::OpWork& work) const; // 0 for a view
  ir::EnergyBreakdown op_energy(const sim::OpWork& work, const ir::Memory& home) const;

  void start(const sim::OpWork& work) override;

private:
  const SystolicParams& p_; // params_'s, the kind's struct
};

} // namespace lightsim::units
