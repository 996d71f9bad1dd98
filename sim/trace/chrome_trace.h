// Chrome trace export: a Schedule as Chrome's Trace Event Format (a JSON object with "traceEvents"),
// loadable in ui.perfetto.dev and chrome://tracing. Layout:
//   - one process per unit ("cpu0 (cpu)"), one thread per lane ("core 0", "stream 0", "array 0"), one
//     complete event ("ph":"X") per compute op on its lane; inputs and weights are resident and have none;
//     a tensor-parallel shard's peers (ir/cost/device_plan.h) repeat their device's ops on their own lanes
//     (args.mirrors: the device), as they run them at once;
//   - one process per link ("link pcie-phu (pcie)") with a slice per transfer crossing it;
//   - per transfer one flow (a shared id): "s" on the producer's slice (or on the first link slice when
//     the producer is a resident input), "t" on each link slice, "f" with "bp":"e" on the consumer's slice.
// Timestamps and durations in microseconds from the start of the inference step.
//
// It is not the HDF5 trace (sim/trace/trace_writer.h): this is for looking at, not for analysis.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "scheduler/schedule.h"

#include <iosfwd>
#include <string>

namespace lightsim {

// Writes the trace to `out`, one event per line.
void write_chrome_trace(std::ostream& out, const sched::Schedule& schedule, const ir::Graph& graph,
                        const ir::Hardware& hw);

// Writes it to `path` through a temporary file in the same directory that is renamed when complete, so
// `path` is never half-written. Throws InputError naming `path` when it cannot be written.
void write_chrome_trace_file(const std::string& path, const sched::Schedule& schedule, const ir::Graph& graph,
                             const ir::Hardware& hw);

} // namespace lightsim
