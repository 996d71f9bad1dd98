// lightsim-calibrate: fit a CPU's arithmetic model to measurement files and write a hardware config.
//   lightsim-calibrate --base configs/lightcode-cpu.json -o configs/measured/cpu.json a.h5 b.h5 ...
// The fit is the retrain's (sim/retrain.h) on the measured op times (sim/profile/calibrate.h).
// Exit status: 0 on success, 2 on bad input, 1 on an internal error.
#include "ir/error.h"
#include "sim/atomic_file.h"
#include "sim/profile/calibrate.h"

#include <CLI/CLI.hpp>
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
  app.add_option("--unit", unit_name, "CPU unit to calibrate (default: the first CPU)");
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
    int unit = unit_name.empty() ? -1 : base.find_unit(unit_name);
    for (std::size_t u = 0; unit_name.empty() && u < base.units.size(); ++u)
      if (base.units[u].kind == lightsim::ir::UnitKind::Cpu && unit < 0) unit = static_cast<int>(u);
    if (unit < 0) throw lightsim::InputError(base_path, "no CPU unit '" + unit_name + "'");
    std::vector<lightsim::profile::MeasurementFile> files;
    std::string cpu, graphs;
    int threads = 0;
    for (const std::string& path : inputs) {
      files.push_back(lightsim::profile::read_measurement_file(path));
      const auto& file = files.back();
      if (file.machine.unit != "cpu") throw lightsim::InputError(path, "measures unit " + file.machine.unit);
      if (!cpu.empty() && (file.machine.cpu_model != cpu || file.machine.threads != threads))
        throw lightsim::InputError(path, "measured on another CPU or thread count than " + inputs.front());
      cpu = file.machine.cpu_model;
      threads = file.machine.threads;
      if (graphs.find(file.graph) == std::string::npos) graphs += (graphs.empty() ? "" : ", ") + file.graph;
    }
    const auto merged = lightsim::profile::merge_repeated_profiles(files);
    std::size_t ops = 0;
    for (const auto& f : merged)
      ops += f.size();
    const auto target_kind = target == "isolated"       ? lightsim::profile::FitTarget::Isolated
                             : target == "in-graph-min" ? lightsim::profile::FitTarget::InGraphMin
                                                        : lightsim::profile::FitTarget::InGraph;
    lightsim::profile::CpuModuleFit module;
    auto result = lightsim::profile::calibrate_cpu(base, unit, merged, target_kind, {}, &module);
    result.hardware.name = name.empty() ? "measured-" + base.name : name;
    result.hardware.description =
        "CPU '" + cpu + "' (" + std::to_string(threads) +
        " thread(s), one op at a time): time per op class fitted by the retrain's fitter, and the CPU "
        "module's dispatch, compute efficiency and memory port fitted, to " +
        std::to_string(ops) + " ops measured by lightsim-profile (" + target + " op times, the least of " +
        std::to_string(files.size()) + " profile(s)) in: " + graphs + ". Energy and everything else from " +
        base_path + ".";
    lightsim::write_file_atomically(output, lightsim::ir::hardware_to_json(result.hardware).dump(2) + "\n");
    for (const auto& e : result.entries)
      std::cout << lightsim::ir::op_class_name(e.op_class) << ": "
                << lightsim::fit::entry_status_name(e.status) << ", samples " << e.samples << ", pieces "
                << e.pieces
                << (e.pieces == 2 ? " (split on " + std::string(lightsim::ir::feature_name(e.split_on)) + ")"
                                  : "")
                << ", r2 " << e.r2_time << (e.note.empty() ? "" : " (" + e.note + ")") << "\n";
    std::cout << "cpu module: dispatch_ns " << module.dispatch_ns << ", compute_efficiency "
              << module.compute_efficiency << ", memory_port_GBps " << module.memory_port_GBps << " ("
              << module.compute_bound << " of " << module.samples << " ops compute-bound; relative rms error "
              << module.relative_rms << ", total time error " << module.total_error << ")\n";
  } catch (const lightsim::InputError& e) {
    std::cerr << "lightsim-calibrate: error: " << e.what() << "\n";
    return lightsim::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "lightsim-calibrate: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
