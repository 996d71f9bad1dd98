// Report: what `lightsim` prints about a pipeline run. A readable summary (placement per unit, makespan,
// energy, bytes per link, the costliest ops) and the same facts as one JSON object for scripts (`--json`).
//
// It is not the trace: sim/trace/trace_writer.h stores every op and transfer in HDF5.
#pragma once

#include "sim/driver/pipeline.h"

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>

namespace lightsim {

void print_summary(std::ostream& out, const Pipeline& run, std::size_t top_ops = 10);
nlohmann::json summary_json(const Pipeline& run, std::size_t top_ops = 10);

} // namespace lightsim
