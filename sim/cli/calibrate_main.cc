// lightsim-calibrate: fit a CPU's (or a GPU's) arithmetic model to measurement files and write a hardware
// config.
//   lightsim-calibrate --base configs/lightcode-cpu.json -o configs/measured/cpu.json a.h5 b.h5 ...
// The fit is the retrain's (sim/retrain/retrain.h) on the measured op times (sim/profile/calibrate.h).
// Exit status: 0 on success, 2 on bad input, 1 on an internal error.
#include "sim/cli/tool_main.h"
#include "sim/profile/calibrate.h"
#include "sim/profile/calibrate_command.h"
#include "sim/units/registry.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  lightsim::register_unit_kinds();
  CLI::App app{"lightsim-calibrate: fit a CPU's per-op-class time model to lightsim-profile measurements"};
  lightsim::CalibrateCommand command;
  app.add_option("--base", command.base_path, "hardware config to start from (one CPU unit is calibrated)")
      ->required();
  app.add_option("-o,--output", command.output, "calibrated hardware config to write (JSON)")->required();
  app.add_option("--unit", command.unit_name,
                 "unit to calibrate (default: the first CPU, or GPU for --unit gpu files)");
  app.add_option("--name", command.name, "name of the calibrated config (default: measured-<base name>)");
  std::vector<std::string> target_names;
  for (const auto& [target, name] : lightsim::profile::kFitTargets.entries())
    target_names.emplace_back(name);
  app.add_option(
         "--target", command.target,
         "in-graph: median op times inside whole-graph runs; in-graph-min: their minimum; isolated: ops "
         "repeated alone")
      ->check(CLI::IsMember(target_names));
  app.add_option("measurements", command.measurements, "measurement files from lightsim-profile")->required();
  if (const auto status = lightsim::parse_command_line(app, argc, argv, "lightsim-calibrate")) return *status;
  return lightsim::run_reporting_errors("lightsim-calibrate", [&] {
    lightsim::run_calibrate(command, std::cout);
    return 0;
  });
}
