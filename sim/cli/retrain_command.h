// retrain command: what `lightsim --retrain out.json` does. Loads the input config and every graph,
// runs the retrain loop (sim/retrain/retrain_loop.h) with the SystemC replay as the observer, prints each
// round and the before/after report, and writes the retrained config to `out` (never over the input config;
// through a temporary file renamed into place) plus the report as JSON beside it (`out` with
// `.report.json` in place of `.json`). With a trace path (--trace) it also writes the HDF5 trace of the
// first graph planned and replayed under the retrained config, with the whole report in its /model
// group (sim/trace/model_trace.h), so that the fit can be plotted from the trace alone (scripts/plot_fit.py).
//
// It is not the fit (sim/retrain/retrain.h) nor the loop; it wires them to files and to SystemC.
#pragma once

#include "sim/driver/pipeline.h"
#include "sim/retrain/retrain_loop.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace lightsim {

struct RetrainCommand {
  std::string output;              // the new config
  std::vector<std::string> graphs; // pooled with PipelineOptions::graph_path
  int rounds = 5;
  std::string trace_path; // "" for none; resolved as --trace (sim/cli/simulate_command.h)
};

// The SystemC replay of a plan, in the plan's dispatch order (alone: sim::ReplayOptions::ops_alone).
fit::Observer replay_observer();

// The report file written beside `output`.
std::string retrain_report_path(const std::string& output);

// Throws InputError on bad input (missing files, output == input config, unwritable output).
fit::RetrainReport run_retrain(const PipelineOptions& pipeline, const RetrainCommand& command,
                               std::ostream& out);

} // namespace lightsim
