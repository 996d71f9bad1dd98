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
  std::string trace_path;              // empty: no trace; else as written (README: output paths)
  sim::TraceInputs::ModelWriter model; // fills the trace's /model group (retrain); may be empty
};

struct SimulationOutcome {
  sched::Schedule simulated;
  sim::CheckReport check;
  std::vector<sim::OwnerEnergy> predicted_energy, simulated_energy; // by owner and component
  std::string trace_path;                                           // where the trace went ("" when none)
};

// Replays, checks and (when asked) writes the trace; nullopt when neither --simulate nor --trace was
// given. Throws InputError for a trace path that cannot be written (no partial file is left).
std::optional<SimulationOutcome> simulate(const Pipeline& run, const SimulateOptions& options);

// The check table and the replay's load stages; the same as JSON.
void print_simulation(std::ostream& out, const ir::Hardware& hw, const SimulationOutcome& outcome);
nlohmann::json simulation_json(const ir::Hardware& hw, const SimulationOutcome& outcome);

} // namespace lightsim
