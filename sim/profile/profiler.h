// The profiler: executes every op of a Graph for real on this CPU (sim/profile/graph_executor.h) and times
// it. Per op: one warm-up run, then `samples` timed samples, each the mean of a batch of back-to-back runs
// (batches make sub-microsecond ops measurable above the clock's resolution); the number of samples adapts
// to the op's duration within a time budget, bounded by min/max. End to end: the whole graph run op by op
// in topological order, timed without timers inside; and again with a timestamp between ops, giving each
// op's in-graph time (caches as the real run leaves them: weights cold, activations warm).
//
// It is not a benchmark harness for lightsim itself (tests/bench/ is).
#pragma once

#include "ir/graph.h"
#include "sim/profile/measurements.h"

#include <cstdint>
#include <functional>
#include <string>

namespace lightsim::profile {

struct ProfileOptions {
  int threads = 1;            // Eigen::setNbThreads (effective when built with OpenMP)
  int min_samples = 5;        // per op
  int max_samples = 200;      // per op
  double op_budget_s = 0.01;  // per op, for the samples after warm-up (min_samples may exceed it)
  double min_sample_s = 5e-6; // a sample lasts at least this long (batching)
  int graph_runs = 5;         // whole-graph runs, each of the two kinds
  std::uint64_t seed = 0x6c6967687473696dULL;
};

// Machine description for the file's attributes (CPU model, compiler, flags, Eigen, load).
MachineInfo describe_machine(int threads);

// `progress` (optional) receives one line per phase.
MeasurementFile profile_graph(const ir::Graph& graph, const ProfileOptions& options,
                              const std::function<void(const std::string&)>& progress = {});

} // namespace lightsim::profile
