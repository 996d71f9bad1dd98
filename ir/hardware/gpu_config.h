// The GPU section of a unit in a hardware config: reading and validating GpuParams (rates per precision
// and engine, MMA shape, CTA tiles, efficiencies, launch latency and gaps) and writing them back.
// Internal to the hardware loader (included only by ir/hardware/*.cc).
//
// It is not the GPU timing model (ir/cost/gpu_gemm.h) nor the SystemC module (sim/hw/gpu.h).
#pragma once

#include "ir/hardware/config_reader.h"
#include "ir/hardware/hardware.h"

#include <nlohmann/json.hpp>
#include <string>

namespace lightsim::ir::detail {

// Reads the GPU keys of unit `unit_name` from `o` (the unit's object; its other keys are read elsewhere).
// Throws InputError "<file>: units[i].<field>: <problem>, got <value> (unit 'name')" on any bad value.
void read_gpu_params(ConfigObject& o, const std::string& unit_name, GpuParams& gpu);

// Adds the GPU keys of `gpu` to a unit's JSON object (the loader's derived fields are left out).
void write_gpu_params(const GpuParams& gpu, nlohmann::json& unit);

} // namespace lightsim::ir::detail
