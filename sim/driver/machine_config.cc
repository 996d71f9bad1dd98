#include "sim/driver/machine_config.h"

#include "ir/hardware/config_override.h"

#include <nlohmann/json.hpp>

namespace lightsim {

MachineConfig machine_config_from_json(const nlohmann::json& config, const std::string& source) {
  MachineConfig m{ir::hardware_from_json(config, source), {}};
  m.compiler = ir::fusion::read_compiler_config(config, source);
  return m;
}

MachineConfig load_machine_config(const std::string& path, const std::vector<std::string>& overrides) {
  const nlohmann::json config = ir::read_hardware_config(path);
  if (overrides.empty()) return machine_config_from_json(config, path);
  return machine_config_from_json(
      ir::config_with_overrides(
          config, path, overrides,
          [](const nlohmann::json& c, const std::string& s) { machine_config_from_json(c, s); }),
      path);
}

nlohmann::json machine_config_to_json(const ir::Hardware& hardware,
                                      const ir::fusion::CompilerConfig& compiler) {
  nlohmann::json j = ir::hardware_to_json(hardware);
  ir::fusion::write_compiler_config(compiler, j);
  return j;
}

} // namespace lightsim
