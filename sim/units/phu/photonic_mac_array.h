// PhotonicMacArray: the PHU kind's SystemC module, from ir::Unit (clock_ghz, cores = arrays) and PhuParams. A
// batch of (M x K) x (K x N) products is tiled onto the rows x cols array: the K x N weight matrix is cut
// into ceil(K/rows) x ceil(N/cols) weight tiles, each programmed (weight_reload_ns; with
// weight_buffers_in_use 2, behind the previous tile's stream: phu_work.h) before the M input vectors stream
// through it. Per tile of k x n used cells: the optics take ceil(M / wdm_channels) cycles at clock_ghz; the M
// x k inputs enter through dac.count DACs and the M x n results leave through adc.count ADCs at the sample
// rate their bits allow (bit_clock_ghz / (bits + 1)); the slowest of the three sets the tile's pace. Partial
// sums over the K tiles are accumulated electronically (pipelined, no extra time). Energy by component
// (op_energy): laser = laser_power_w x busy time (weight reloads included: the lasers stay on), or with
// laser_gated x the tiles' streams alone; dac / adc = conversions x fom x 2^bits; optical_mac = optical MACs
// (MACs x sign passes) x mac_energy_pj; weight_programming = weight cells x one DAC conversion each; operand
// bytes x memory energy under the memory's access component; with buffer levels (PhuParams::buffers) a GEMM's
// bytes through each level x its energy (phu_buffer_traffic), and the memory's share of them (re-sent
// operands, output round trips) in its time and energy. Static power is charged per unit over the makespan by
// the replay. A convolution's patches (im2col) are gathered from the unit's memory to feed the DACs: its
// memory moves the patch matrix's bytes beyond the data tensor too (phu_materialised_bytes). The electronic
// periphery: one digital ALU behind each ADC, running at the ADC sample rate (it already accumulates the
// partial sums of the K tiles at that pace), so adc.count x the ADCs' sample rate element operations per ns
// (phu_periphery_ops_per_ns). Ops without a GEMM view run there on operands from the SRAM: max(element
// operations / that rate, memory time). A fused op runs its GEMM anchor optically and its elementwise tail
// (bias add, activation, ...) in the periphery on the results as they leave the ADCs, pipelined with the
// optics: max(optical busy time, periphery time, memory time of the bytes that cross the group's boundary) +
// spill; the intermediate results never go to the SRAM. The periphery's ALUs charge periphery_pj_per_op per
// element operation (component periphery: a GEMM's tail, an op without a GEMM view, fused attention's
// softmax), beside the bytes its operands move. Fused attention (with buffer levels: phu_op_work) runs Q K^T
// and P V on the array one after the other, its softmax in the periphery alongside, its memory traffic
// FlashAttention's tiled to the local buffer (sim::memory_traffic).
//
// It is not a noise model: `bits` sets the converters' pace and energy, not an error on the results.
#pragma once

#include "sim/hw/unit.h"
#include "sim/units/phu/phu_work.h"

#include <cstdint>

namespace lightsim::units {

using sim::OpWork;

// The tiling and pace of a GEMM on the array: one definition (phu_work.h), shared with the
// arithmetic model's unit-aware features.
using PhuGemmTiming = PhuGemmWork;

class PhotonicMacArray : public sim::UnitModule {
public:
  PhotonicMacArray(sc_core::sc_module_name name, const ir::Unit& params);

  // Pure timing and energy.
  PhuGemmTiming gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) const;
  // laser, dac, adc, optical_mac and weight_programming of a GEMM (the timing's result).
  ir::EnergyBreakdown gemm_energy(const PhuGemmTiming& t) const;
  // local_buffer, register_file and partial_sum_network of a GEMM's buffer traffic (phu_work.h).
  ir::EnergyBreakdown buffer_energy(const PhuBufferTraffic& t) const;
  double periphery_ns(const ir::Op& op) const; // the op's element operations in the periphery
  double op_ns(const OpWork& work, const ir::Memory& home) const;
  ir::EnergyBreakdown op_energy(const OpWork& work, const ir::Memory& home) const;

  void start(const OpWork& work) override;

private:
  // The same, on an op's traffic (sim::memory_traffic) and its work on the array, counted once.
  static double materialised_bytes(const ir::Op& op, const PhuOpWork& w);
  double op_ns(const OpWork& work, const PhuOpWork& w, const ir::Memory& home) const;
  ir::EnergyBreakdown op_energy(const OpWork& work, const PhuOpWork& w, const ir::Memory& home) const;
};

} // namespace lightsim::units
