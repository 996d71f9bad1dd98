// PhotonicMacArray (PHU): from ir::Unit (clock_ghz, cores = arrays) and ir::PhuParams. A batch of
// (M x K) x (K x N) products is tiled onto the rows x cols array: the K x N weight matrix is cut into
// ceil(K/rows) x ceil(N/cols) weight tiles, each programmed (weight_reload_ns, not overlapped) before the
// M input vectors stream through it. Per tile of k x n used cells: the optics take ceil(M / wdm_channels)
// cycles at clock_ghz; the M x k inputs enter through dac.count DACs and the M x n results leave through
// adc.count ADCs at their sample rates; the slowest of the three sets the tile's pace. Partial sums over
// the K tiles are accumulated electronically (pipelined, no extra time). Energy: laser_power_w x busy
// time + DAC/ADC conversions x energy_pj + MACs x mac_energy_pj + operand bytes x memory energy. Static
// power is charged per unit over the makespan by the replay.
// A convolution's patches (im2col) are gathered from the unit's memory to feed the DACs: its memory moves
// the patch matrix's bytes beyond the data tensor too (ir::materialised_bytes).
// Ops without a GEMM view run in the electronic periphery at the speed of the unit's memory.
//
// It is not a noise or precision model: `bits` does not change timing here.
#pragma once

#include "ir/cost/unit_work.h"
#include "sim/hw/unit.h"

#include <cstdint>

namespace lightsim::sim {

// The tiling and pace of a GEMM on the array: one definition (ir/cost/unit_work.h), shared with the
// arithmetic model's unit-aware features.
using PhuGemmTiming = ir::PhuGemmWork;

class PhotonicMacArray : public UnitModule {
public:
  PhotonicMacArray(sc_core::sc_module_name name, const ir::Unit& params);

  // Pure timing and energy.
  PhuGemmTiming gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) const;
  double gemm_energy_j(const PhuGemmTiming& t) const; // laser + conversions + MACs
  double op_ns(const OpWork& work, const ir::Memory& home) const;
  double op_energy_j(const OpWork& work, const ir::Memory& home) const;

  void start(const OpWork& work) override;
};

} // namespace lightsim::sim
