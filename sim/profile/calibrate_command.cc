#include "sim/profile/calibrate_command.h"

#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "sim/driver/machine_config.h"
#include "sim/io/atomic_file.h"
#include "sim/profile/calibrate.h"
#include "sim/profile/measurements.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/gpu/gpu_kind.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

namespace lightsim {

void run_calibrate(const CalibrateCommand& command, std::ostream& out) {
  std::error_code ec;
  if (std::filesystem::equivalent(command.base_path, command.output, ec))
    throw InputError(command.output, "is the base config; write the calibrated config elsewhere");
  const MachineConfig machine_config = load_machine_config(command.base_path);
  const ir::Hardware& base = machine_config.hardware;
  std::vector<profile::MeasurementFile> files;
  std::string machine, graphs;
  for (const std::string& path : command.measurements) {
    files.push_back(profile::read_measurement_file(path));
    const auto& file = files.back();
    if (file.machine.unit != "cpu" && file.machine.unit != "gpu")
      throw InputError(path, "measures unit " + file.machine.unit);
    const std::string this_machine = file.machine.unit == "gpu"
                                         ? "GPU '" + file.machine.gpu.name + "' ("
                                         : "CPU '" + file.machine.cpu_model + "' (" +
                                               std::to_string(file.machine.threads) + " thread(s), ";
    if (!machine.empty() && this_machine != machine)
      throw InputError(path, std::string("measured on another ") +
                                 (file.machine.unit == "gpu" ? "GPU" : "CPU or thread count") + " than " +
                                 command.measurements.front());
    machine = this_machine;
    if (graphs.find(file.graph) == std::string::npos) graphs += (graphs.empty() ? "" : ", ") + file.graph;
  }
  const bool gpu = !files.empty() && files.front().machine.unit == "gpu";
  const ir::UnitKind* kind = &(gpu ? units::gpu_kind() : units::cpu_kind());
  const char* kind_name = gpu ? "GPU" : "CPU";
  int unit = command.unit_name.empty() ? -1 : base.find_unit(command.unit_name);
  for (std::size_t u = 0; command.unit_name.empty() && u < base.units.size(); ++u)
    if (base.units[u].kind == kind && unit < 0) unit = static_cast<int>(u);
  if (unit < 0 || base.units[static_cast<std::size_t>(unit)].kind != kind)
    throw InputError(command.base_path, std::string("no ") + kind_name + " unit '" + command.unit_name + "'");
  const auto merged = profile::merge_repeated_profiles(files);
  std::size_t ops = 0;
  for (const auto& f : merged)
    ops += f.size();
  const std::optional<profile::FitTarget> target = profile::kFitTargets.parse(command.target);
  if (!target)
    throw InputError("--target", "unknown fit target '" + command.target + "' (expected " +
                                     profile::kFitTargets.choices() + ")");
  const profile::FitTarget target_kind = *target;
  profile::CpuModuleFit module;
  auto result =
      gpu ? profile::calibrate_gpu(base, unit, merged, target_kind)
          : profile::calibrate_cpu(base, unit, merged, files.front().machine, target_kind, {}, &module);
  result.hardware.name = command.name.empty() ? "measured-" + base.name : command.name;
  result.hardware.description =
      machine + "one op at a time): time per op class fitted by the retrain's fitter" +
      (gpu ? "" : ", and the CPU module's rates (GEMM, per element op, per cache level, dispatch) fitted,") +
      " to " + std::to_string(ops) + " ops measured by lightsim-profile (" + command.target +
      " op times, the least of " + std::to_string(files.size()) + " profile(s)) in: " + graphs +
      ". Energy and everything else from " + command.base_path + ".";
  write_file_atomically(command.output, "calibrated config",
                        machine_config_to_json(result.hardware, machine_config.compiler).dump(2) + "\n");
  for (const auto& e : result.entries)
    out << ir::op_class_name(e.op_class) << ": " << fit::entry_status_name(e.status) << ", samples "
        << e.samples << ", pieces " << e.pieces
        << (e.pieces == 2 ? " (split on " + std::string(ir::feature_name(e.split_on)) + ")" : "") << ", r2 "
        << e.r2_time << (e.note.empty() ? "" : " (" + e.note + ")") << "\n";
  if (gpu) return;
  const units::CpuParams& p = module.cpu;
  out << "cpu module: dispatch_ns " << p.dispatch_ns << ", gemm_efficiency " << p.gemm_efficiency;
  for (const units::CacheLevel& c : p.caches)
    out << ", " << c.name << " " << c.bandwidth_GBps << " GB/s per core"
        << (c.shared_GBps > 0 ? " (" + std::to_string(c.shared_GBps) + " shared)" : "");
  out << ", memory " << (p.core_memory_GBps > 0 ? p.core_memory_GBps : p.memory_port_GBps)
      << " GB/s per core (port " << p.memory_port_GBps << "), intra_op_sync_ns " << p.intra_op_sync_ns << " ("
      << module.compute_bound << " of " << module.samples << " ops compute-bound, " << module.split
      << " split over cores, " << module.shared_bound << " bound by a shared rate; relative rms error "
      << module.relative_rms << ", total time error " << module.total_error << ")\n";
  for (const std::string& k : module.kept)
    out << "cpu module: kept from the base (no measured op depends on it): " << k << "\n";
}

} // namespace lightsim
