// `lightsim --simulate` / `--trace`: replays a pipeline's placement on the SystemC modules, compares the
// replay with the list scheduler's prediction (the check table) and writes the HDF5 trace. A trace always
// carries the replay, so --trace implies --simulate.
//
// It is not the replay itself (sim/replay/replay.h) nor the trace layout (sim/trace/trace_writer.h,
// traces/README.md).
#pragma once

#include "scheduler/schedule.h"
#include "sim/check/check.h"
#include "sim/check/energy_breakdown.h"
#include "sim/driver/pipeline.h"
#include "sim/trace/trace_writer.h"

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace lightsim {

struct SimulateOptions {
  bool simulate = false;
  std::string trace_path;              // empty: no trace
  sim::TraceInputs::ModelWriter model; // fills the trace's /model group (retrain); may be empty
};

struct SimulationOutcome {
  sched::Schedule simulated;
  sim::CheckReport check;
  std::vector<sim::OwnerEnergy> predicted_energy, simulated_energy; // by owner and component
  std::string trace_path;                                           // where the trace went ("" when none)
};

// A trace path without a directory goes to traces/ (relative to the working directory), as users expect
// from `--trace run.h5`; any other path is taken as given.
std::string resolve_trace_path(const std::string& path);

// Replays, checks and (when asked) writes the trace; nullopt when neither --simulate nor --trace was
// given. Throws InputError for a trace path that cannot be written (no partial file is left).
std::optional<SimulationOutcome> simulate(const Pipeline& run, const SimulateOptions& options);

void print_simulation(std::ostream& out, const SimulationOutcome& outcome);
nlohmann::json simulation_json(const SimulationOutcome& outcome);

} // namespace lightsim
