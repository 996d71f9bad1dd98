#include "sim/cli/simulate_command.h"

#include "sim/cli/load_summary.h"
#include "sim/replay/replay.h"
#include "sim/trace/trace_writer.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace lightsim {

std::optional<SimulationOutcome> simulate(const Pipeline& run, const SimulateOptions& options) {
  if (!options.simulate && options.trace_path.empty()) return std::nullopt;
  SimulationOutcome outcome;
  sim::ReplayOptions replay_options;
  replay_options.predicted = &run.schedule();
  outcome.simulated = sim::replay(run.flat(), run.transfers(), replay_options);
  outcome.check = sim::check_schedules(run.graph(), run.hardware(), run.schedule(), outcome.simulated);
  outcome.predicted_energy = sim::energy_by_owner(run.graph(), run.hardware(), run.schedule());
  outcome.simulated_energy = sim::energy_by_owner(run.graph(), run.hardware(), outcome.simulated);
  if (!options.trace_path.empty()) {
    outcome.trace_path = options.trace_path;
    sim::TraceInputs in;
    in.graph = &run.graph();
    in.hardware = &run.hardware();
    in.predicted = &run.schedule();
    in.simulated = &outcome.simulated;
    in.hardware_config_json = machine_config_to_json(run.hardware(), run.compiler()).dump();
    in.objective = std::string(sched::objective_name(run.flat().objective));
    in.model = options.model;
    sim::write_trace(outcome.trace_path, in);
  }
  return outcome;
}

void print_simulation(std::ostream& out, const ir::Hardware& hw, const SimulationOutcome& outcome) {
  out << "\nSystemC replay vs prediction (per op duration error = (simulated - predicted) / simulated)\n"
      << sim::format_check_table(outcome.check)
      << "\nenergy by component, predicted vs simulated (error = (simulated - predicted) / simulated)\n"
      << sim::format_energy_comparison(outcome.predicted_energy, outcome.simulated_energy);
  print_loads(out, hw, outcome.simulated, "load stages (SystemC replay)");
  if (!outcome.trace_path.empty()) out << "trace     " << outcome.trace_path << "\n";
}

nlohmann::json simulation_json(const ir::Hardware& hw, const SimulationOutcome& outcome) {
  nlohmann::json j;
  j["simulated_makespan_s"] = outcome.simulated.makespan_s;
  j["latency_hiding"] = loads_json(hw, outcome.simulated);
  j["simulated_energy_j"] = outcome.simulated.energy_j;
  j["check"] = sim::check_to_json(outcome.check);
  j["energy_by_owner"] = sim::owners_json(outcome.simulated_energy);
  j["energy_comparison"] = sim::energy_comparison_json(outcome.predicted_energy, outcome.simulated_energy);
  if (!outcome.trace_path.empty()) j["trace"] = outcome.trace_path;
  return j;
}

} // namespace lightsim
