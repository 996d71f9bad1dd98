// Plan summary: the part of lightsim's report that says how the placement was reached and what it holds
// in memory: the objective's exact starts and schedule search (and whether the search gave up), the
// capacity pricing (prices, solves, the gap to the Lagrangian bound) and per memory its capacity,
// resident weights, weights streamed in per inference and peak live bytes. Printed by print_summary and
// merged into summary_json (sim/cli/report.h).
//
// It is not the trace or the energy breakdown.
#pragma once

#include "sim/driver/pipeline.h"

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>

namespace lightsim {

void print_plan(std::ostream& out, const Pipeline& run);
// Adds "capacity", "memories" and, when there are any, "starts" and "search" to `j`.
void add_plan_json(nlohmann::json& j, const Pipeline& run);

} // namespace lightsim
