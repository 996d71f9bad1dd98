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
#include "sim/profile/host_cpu.h"
#include "sim/profile/measurements.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lightsim::profile {

struct ProfileOptions {
  int threads = 1;            // Eigen::setNbThreads (effective when built with OpenMP)
  int min_samples = 5;        // per op
  int max_samples = 200;      // per op
  double op_budget_s = 0.01;  // per op, for the samples after warm-up (min_samples may exceed it)
  double min_sample_s = 5e-6; // a sample lasts at least this long (batching)
  int graph_runs = 5;         // whole-graph runs, each of the two kinds
  std::uint64_t seed = 0x6c6967687473696dULL;
  // A CPU profile is marked disturbed when other processes (or the hypervisor) took more than this many
  // cores' worth of CPU time on average while it ran (sim/profile/host_cpu.h).
  double max_other_load_cores = 0.1;
};

// Machine description for the file's attributes (CPU model, clock, SIMD lanes, caches, what runs on several
// threads, compiler, flags, Eigen, load average at the start).
MachineInfo describe_machine(int threads);
// Adds how busy the machine was during a profile (and the load average now) to `machine`.
void record_load(MachineInfo& machine, const LoadReport& load, double max_other_cores);

// What the profiler needs from a unit that executes a graph's ops (this CPU here; a GPU in
// sim/profile/gpu.h). Times are in seconds, each taken with the unit's own clock.
class OpRunner {
public:
  virtual ~OpRunner() = default;
  // Ops that execute something, in topological order.
  virtual const std::vector<ir::OpId>& compute_ops() const = 0;
  // One whole-graph run, op by op in topological order, with no timer inside.
  virtual double time_graph() = 0;
  // One whole-graph run with a timestamp between ops: per_op[i] is compute_ops()[i]'s time.
  virtual void time_graph_ops(std::vector<double>& per_op) = 0;
  // `batch` back-to-back runs of `op` alone: their mean time.
  virtual double time_op(ir::OpId op, int batch) = 0;
  // Checksum of the op's outputs as they are now (sim/profile/buffer.h's checksum_bytes).
  virtual std::uint64_t output_checksum(ir::OpId op) = 0;
};

// Profiles `graph` on `runner` (warm-up, whole-graph runs, then each op alone) and describes it with
// `machine`. `progress` (optional) receives one line per phase.
MeasurementFile profile_with(OpRunner& runner, const ir::Graph& graph, const ProfileOptions& options,
                             MachineInfo machine,
                             const std::function<void(const std::string&)>& progress = {});

// Profiles `graph` on this CPU.
MeasurementFile profile_graph(const ir::Graph& graph, const ProfileOptions& options,
                              const std::function<void(const std::string&)>& progress = {});

} // namespace lightsim::profile
