// Batch runs: many invocations of one tool from one process, as a design-space sweep makes them
// (scripts/sweep.sh). Starting a lightsim process costs ~12 ms (loading the shared libraries SystemC, HDF5
// and ONNX bring) against a few ms of work for a typical sweep point; a batch pays it once and forks a
// child per run, so each run is still a process of its own: its own SystemC kernel, its own exit status,
// and a crash or a bad config takes only that run down.
//
// The list has one run per line, fields separated by tabs:
//   ARGS<TAB>OUT<TAB>ERR[<TAB>TAG]
// ARGS: a file of the run's command-line arguments, one per line (without the program name); OUT: where
// the run's standard output goes, written as OUT.tmp.<pid> and renamed to OUT only when the run exits 0
// (a failed or killed run leaves no OUT); ERR: its standard error (truncated first); TAG: printed on
// standard output, one line, when the run starts (a caller's journal of what ran). A line whose OUT exists
// is skipped (a resumed batch). Empty lines are ignored. Runs go one after another, in list order; callers
// run several batches side by side for parallelism.
//
// It is not a scheduler (no parallelism, no retries) and knows nothing of lightsim's options: `run` is the
// tool's own main.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace lightsim {

// One run of the tool: its main, given argv[0] = the tool's name and the run's arguments.
using BatchRun = std::function<int(int argc, char** argv)>;

// Runs every line of the list at `list_path`. Returns 0 when every run exited 0 (or was skipped), 1 when
// some did not: each such run is one line on `err`, "TOOL: batch: OUT: exit S: <the first line of ERR>".
// A list that cannot be read or a malformed line throws InputError naming the file and line, before any
// run starts.
int run_batch(const std::string& list_path, std::string_view tool, const BatchRun& run, std::ostream& out,
              std::ostream& err);

} // namespace lightsim
