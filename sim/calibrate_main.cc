// lightsim-calibrate: fit a CPU's (or a GPU's) arithmetic model to measurement files and write a hardware
// config. The unit calibrated is --unit, else the base config's first unit of the measured kind.
//   lightsim-calibrate --base configs/lightcode-cpu.json -o configs/measured/cpu.json a.h5 b.h5 ...
// The fit is the retrain's (sim/retrain.h) on the measured op times (sim/profile/calibrate.h).
// Exit status: 0 on success, 2 on bad input, 1 on an internal error.
#include "ir/error.h"
#include "sim/profile/calibrate.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  CLI::App app{"lightsim-calibrate: fit a CPU's per-op-class time model to lightsim-profile measurements"};
  std::string base_path, output, unit_name, name, target = "in-graph";
  std::vector<std::string> inputs;
  app.add_option("--base", base_path, "hardware config to start from (one CPU unit is calibrated)")
      ->required();
  app.add_option("-o,--output", output, "calibrated hardware config to write (JSON)")->required();
  app.add_option("--unit", unit_name, "unit to calibrate (default: the first unit of the measured kind)");
  app.add_option("--name", name, "name of the calibrated config (default: measured-<base name>)");
  app.add_option(
         "--target", target,
         "in-graph: median op times inside whole-graph runs; in-graph-min: their minimum; isolated: ops "
         "repeated alone")
      ->check(CLI::IsMember({"in-graph", "in-graph-min", "isolated"}));
  app.add_option("measurements", inputs, "measurement files from lightsim-profile")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "lightsim-calibrate: " << e.what() << " (see --help)\n";
    return lightsim::kExitBadInput;
  }
  try {
    const lightsim::ir::Hardware base = lightsim::ir::load_hardware(base_path);
    std::vector<std::vector<lightsim::profile::Measurement>> files;
    std::string cpu, graphs, measured_unit;
    std::size_t ops = 0;
    for (const std::string& path : inputs) {
      auto file = lightsim::profile::read_measurement_file(path);
      if (file.machine.unit != "cpu" && file.machine.unit != "gpu")
        throw lightsim::InputError(path, "measures unit " + file.machine.unit);
      if (!measured_unit.empty() && file.machine.unit != measured_unit)
        throw lightsim::InputError(path, "measures unit " + file.machine.unit + ", the files before it " +
                                             measured_unit);
      measured_unit = file.machine.unit;
      cpu = measured_unit == "gpu" ? "GPU '" + file.machine.gpu.name + "' ("
                                   : "CPU '" + file.machine.cpu_model + "' (" +
                                         std::to_string(file.machine.threads) + " thread(s), ";
      graphs += (graphs.empty() ? "" : ", ") + file.graph;
      ops += file.ops.size();
      files.push_back(std::move(file.ops));
    }
    const auto target_kind = target == "isolated"       ? lightsim::profile::FitTarget::Isolated
                             : target == "in-graph-min" ? lightsim::profile::FitTarget::InGraphMin
                                                        : lightsim::profile::FitTarget::InGraph;
    const auto kind = measured_unit == "gpu" ? lightsim::ir::UnitKind::Gpu : lightsim::ir::UnitKind::Cpu;
    int unit = unit_name.empty() ? -1 : base.find_unit(unit_name);
    for (std::size_t u = 0; unit_name.empty() && u < base.units.size(); ++u)
      if (base.units[u].kind == kind && unit < 0) unit = static_cast<int>(u);
    if (unit < 0 || base.units[static_cast<std::size_t>(unit)].kind != kind)
      throw lightsim::InputError(base_path, "no " + measured_unit + " unit '" + unit_name + "'");
    auto result = lightsim::profile::calibrate_unit(base, unit, files, target_kind);
    result.hardware.name = name.empty() ? "measured-" + base.name : name;
    result.hardware.description = cpu +
                                  "one op at a time): time per op class fitted by "
                                  "the retrain's fitter to " +
                                  std::to_string(ops) + " ops measured by lightsim-profile (" + target +
                                  " op times) in: " + graphs + ". Energy and everything else from " +
                                  base_path + ".";
    std::ofstream out(output);
    if (!out) throw lightsim::InputError(output, "cannot write");
    out << lightsim::ir::hardware_to_json(result.hardware).dump(2) << "\n";
    if (!out.flush()) throw lightsim::InputError(output, "cannot write");
    for (const auto& e : result.entries)
      std::cout << lightsim::ir::op_class_name(e.op_class) << ": "
                << lightsim::fit::entry_status_name(e.status) << ", samples " << e.samples << ", pieces "
                << e.pieces << ", r2 " << e.r2_time << (e.note.empty() ? "" : " (" + e.note + ")") << "\n";
  } catch (const lightsim::InputError& e) {
    std::cerr << "lightsim-calibrate: error: " << e.what() << "\n";
    return lightsim::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "lightsim-calibrate: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
