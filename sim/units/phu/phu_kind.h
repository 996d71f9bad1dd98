// The photonic MAC array unit kind (`kind: phu`): GEMMs tiled onto a rows x cols array of programmed
// weights, inputs through DACs and results through ADCs at the rate their bits allow, WDM channels, an
// electronic periphery for element ops. Its descriptor (ir::UnitKind) answers for it everywhere outside
// this folder; register_phu_kind() registers it with its SystemC module (sim/units/kinds.def lists it).
//
// It is not the timing: phu_work.h counts the work, photonic_mac_array.h times it in the replay.
#pragma once

#include "ir/hardware/unit_kind.h"

namespace lightsim {

void register_phu_kind();

namespace units {

// What the PHU kind adds to the arithmetic model (configs/README.md, "Models", "Energy").
struct PhuFeatures {
  ir::Feature weight_tiles;            // batch x ceil(k / rows) x ceil(n / cols) weight tiles programmed
  ir::Feature dac_conversions;         // input samples through the DACs, over all weight tiles
  ir::Feature adc_conversions;         // result samples through the ADCs, over all weight tiles
  ir::Feature dac_conversion_steps;    // dac_conversions x 2^(DAC bits)
  ir::Feature adc_conversion_steps;    // adc_conversions x 2^(ADC bits)
  ir::Feature weight_conversion_steps; // weight cells programmed (batch x k x n) x 2^(DAC bits)
  ir::Feature local_buffer_bytes, register_file_bytes, partial_sum_network_bytes; // phu_buffer_traffic
  ir::Feature optical_macs; // MACs x the streamed operand's sign passes (PhuParams::input_sign_passes)
  ir::Feature laser_cycles; // cycles the lasers draw power (phu_laser_ns): busy, or streaming when gated
  ir::EnergyComponent laser, dac, adc, optical_mac, weight_programming;
  ir::EnergyComponent local_buffer, register_file, partial_sum_network;
  ir::EnergyComponent periphery; // the periphery's ALUs: element operations x periphery_pj_per_op
};
// The registered PHU kind and its features (std::logic_error before register_phu_kind()).
const ir::UnitKind& phu_kind();
const PhuFeatures& phu_features();

} // namespace units
} // namespace lightsim
