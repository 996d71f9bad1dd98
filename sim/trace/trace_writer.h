// Trace writer: one HDF5 file per run holding the predicted schedule, the SystemC replay (when there is
// one), per-unit and per-link totals and the check table; the layout is documented in traces/README.md.
// The file is written through sim/io/atomic_file.h (a temporary beside `path`, renamed when complete), so
// a failed run never leaves a half trace under the final name (nor a temporary file). Two runs with the same
// inputs produce byte-identical files except for the /meta attribute `created` (the timestamp).
//
// It does not read traces (scripts/ and h5py do) and does not decide where traces go (the CLI does).
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "scheduler/schedule.h"

#include <functional>
#include <string>

namespace H5 {
class Group;
}

namespace lightsim::sim {
namespace h5 {
struct IoStatus;
}

struct TraceInputs {
  const ir::Graph* graph = nullptr;           // required; graph->source names the graph file (may be empty)
  const ir::Hardware* hardware = nullptr;     // required
  const sched::Schedule* predicted = nullptr; // required: the list scheduler's schedule
  const sched::Schedule* simulated = nullptr; // optional: the SystemC replay (same layout)
  std::string hardware_config_json;           // the config as JSON text (ir::hardware_to_json(hw).dump())
  std::string objective;                      // "time", "energy", "edp" or "makespan"
  // /meta `created`. Empty: $LIGHTSIM_TRACE_TIMESTAMP if set, else the current UTC time (ISO 8601).
  std::string created;
  // Fills the /model group (retrain: sim/trace/model_trace.h) inside the same atomic write; it gets the I/O
  // status to pass to h5::Table. Empty: /model holds only a `note` attribute.
  using ModelWriter = std::function<void(const H5::Group& model, const h5::IoStatus* io)>;
  ModelWriter model;
};

// Writes the trace. Throws lightsim::InputError (one line naming `path`) when the file cannot be
// created or written (missing directory, no permission, disk full) or the graph file cannot be read for
// its sha256; std::invalid_argument when the inputs are inconsistent (a caller bug).
void write_trace(const std::string& path, const TraceInputs& in);

// SHA-256 of a file as 64 lowercase hex digits; throws InputError naming the file if it cannot be read.
std::string sha256_file(const std::string& path);

} // namespace lightsim::sim
