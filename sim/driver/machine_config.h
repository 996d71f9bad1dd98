// MachineConfig: one config file as a run uses it: the machine (ir/hardware: units, memories, links,
// models) and the compiler section the fusion pass reads (ir/fusion/compiler_config.h), loaded together
// with `--set` overrides, which may address either, and written back together (retrain, calibration,
// traces).
//
// It is not a format of its own: the file is the hardware config documented in configs/README.md.
#pragma once

#include "ir/fusion/compiler_config.h"
#include "ir/hardware/hardware.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace lightsim {

struct MachineConfig {
  ir::Hardware hardware;
  ir::fusion::CompilerConfig compiler;
};

// Reads the file at `path`, applies the overrides (ir/hardware/config_override.h; a bad one is blamed by
// name) and validates both parts; InputError on any problem.
MachineConfig load_machine_config(const std::string& path, const std::vector<std::string>& overrides = {});
// The same from a config's JSON (`source` names it in messages).
MachineConfig machine_config_from_json(const nlohmann::json& config, const std::string& source);
// The config file's JSON: the hardware and, when it is not the default, the compiler section.
nlohmann::json machine_config_to_json(const ir::Hardware& hardware,
                                      const ir::fusion::CompilerConfig& compiler);

} // namespace lightsim
