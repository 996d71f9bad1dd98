#include "sim/cli/load_summary.h"

#include "ir/text_format.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace lightsim {
namespace {

using ir::format;

constexpr double kMiB = 1024.0 * 1024.0;

bool any_load_stage(const ir::Hardware& hw) {
  for (const ir::Unit& u : hw.units)
    if (ir::has_load_stage(u)) return true;
  return false;
}

} // namespace

void print_latency_hiding(std::ostream& out, const ir::Hardware& hw) {
  if (!hw.latency_hiding) {
    out << "latency   hiding off: weight tiles programmed one at a time; streamed weights sent when the run "
           "starts\n";
    return;
  }
  out << "latency   hiding on:";
  bool first = true;
  for (const ir::Unit& u : hw.units) {
    std::string what;
    if (const int buffers = u.kind->weight_buffers_in_use(u); buffers > 0)
      what = format("%d weight buffers", buffers);
    if (ir::has_load_stage(u))
      what += format("%sload stage %d x %.6g MiB", what.empty() ? "" : ", ", u.prefetch.depth,
                     u.prefetch.buffer_bytes / kMiB);
    if (what.empty()) continue;
    out << (first ? " " : "; ") << u.name << " " << what;
    first = false;
  }
  out << (first ? " (no unit double-buffers or has a load stage)\n" : "\n");
}

void print_loads(std::ostream& out, const ir::Hardware& hw, const sched::Schedule& schedule,
                 const char* title) {
  if (!any_load_stage(hw) || schedule.units.size() != hw.units.size()) return;
  out << "\n" << title << "\n";
  out << format("%-10s %7s %12s %12s %12s %12s\n", "unit", "loads", "load_MiB", "in_flight_s", "hidden_s",
                "stall_s");
  for (std::size_t u = 0; u < hw.units.size(); ++u) {
    if (!ir::has_load_stage(hw.units[u])) continue;
    const sched::UnitUsage& use = schedule.units[u];
    out << format("%-10s %7zu %12.6g %12.6g %12.6g %12.6g%s\n", hw.units[u].name.c_str(), use.loads,
                  use.load_bytes / kMiB, use.load_busy_s, use.load_hidden_s, use.load_stall_s,
                  use.oversized_loads
                      ? format("  (%zu larger than all its buffers)", use.oversized_loads).c_str()
                      : "");
  }
}

nlohmann::json loads_json(const ir::Hardware& hw, const sched::Schedule& schedule) {
  nlohmann::json units = nlohmann::json::array();
  for (std::size_t u = 0; u < hw.units.size(); ++u) {
    const ir::Unit& unit = hw.units[u];
    nlohmann::json j = {{"name", unit.name}};
    if (const int buffers = unit.kind->weight_buffers_in_use(unit); buffers > 0)
      j["weight_buffers"] = buffers;
    const bool stage = ir::has_load_stage(unit);
    j["prefetch_depth"] = stage ? unit.prefetch.depth : 0;
    j["buffer_bytes"] = stage ? unit.prefetch.buffer_bytes : 0.0;
    if (schedule.units.size() == hw.units.size()) {
      const sched::UnitUsage& use = schedule.units[u];
      j["loads"] = use.loads;
      j["oversized_loads"] = use.oversized_loads;
      j["load_bytes"] = use.load_bytes;
      j["load_busy_s"] = use.load_busy_s;
      j["hidden_s"] = use.load_hidden_s;
      j["stall_s"] = use.load_stall_s;
    }
    units.push_back(std::move(j));
  }
  return {{"enabled", hw.latency_hiding}, {"units", std::move(units)}};
}

} // namespace lightsim
