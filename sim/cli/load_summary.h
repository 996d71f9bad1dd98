// Load summary: the part of lightsim's report about latency hiding: whether it is on, which PHUs
// double-buffer their weight tiles, and per unit with a load stage (scheduler/load_stage.h) its buffers,
// the loads it issued, the time they were in flight, hidden behind the unit's compute, and the time its
// ops stalled waiting for them, from a schedule (the list scheduler's prediction, or the replay's).
// Printed by print_summary / print_simulation and merged into their JSON (sim/cli/report.h).
//
// It is not the memory table (sim/cli/plan_summary.h) nor the trace.
#pragma once

#include "ir/hardware/hardware.h"
#include "scheduler/schedule.h"

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>

namespace lightsim {

// The switch and per unit its weight buffers in use (PHUs) and its load stage's buffers.
void print_latency_hiding(std::ostream& out, const ir::Hardware& hw);
// The per-unit table of the schedule's loads (nothing when no unit has a load stage); `title` heads it.
void print_loads(std::ostream& out, const ir::Hardware& hw, const sched::Schedule& schedule,
                 const char* title);
// {"enabled": bool, "units": [{"name", "weight_buffers" (PHUs), "prefetch_depth", "buffer_bytes", "loads",
// "oversized_loads", "load_bytes", "load_busy_s", "hidden_s", "stall_s"}]}: every unit.
nlohmann::json loads_json(const ir::Hardware& hw, const sched::Schedule& schedule);

} // namespace lightsim
