// The CPU unit's keys of a hardware config (configs/README.md, "CPU"): reading them (strictly, through
// ConfigObject) and writing them back. Internal to the hardware loader and writer.
//
// It is not the CPU's timing: ir/cost/unit_work.h counts the work, sim/hw/cpu.h times it.
#pragma once

#include "ir/hardware/config_reader.h"
#include "ir/hardware/hardware.h"

#include <nlohmann/json.hpp>

namespace lightsim::ir::detail {

// Reads the CPU keys of unit object `o` (a unit with `cores` cores) into `cpu`.
void read_cpu_params(ConfigObject& o, int cores, CpuParams& cpu);

// Adds the CPU keys to unit object `j` (optional ones only where they differ from their default).
void write_cpu_params(const CpuParams& cpu, nlohmann::json& j);

} // namespace lightsim::ir::detail
