#include "sim/cli/plan_summary.h"

#include "ir/text_format.h"
#include "scheduler/memory_use.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace lightsim {
namespace {

using ir::format;

constexpr double kMiB = 1024.0 * 1024.0;

std::string search_line(const sched::ScheduleSearchStats& s, sched::Objective metric) {
  const std::string unit(sched::objective_unit(metric));
  std::string line = format("search    %s: %.6g -> %.6g %s in %zu moves, %zu schedules",
                            std::string(sched::objective_name(metric)).c_str(), s.start_value, s.final_value,
                            unit.c_str(), s.moves, s.evaluations);
  line += s.gave_up ? "; gave up at its budget (not a local optimum)\n" : "; no move improves further\n";
  return line;
}

} // namespace

void print_plan(std::ostream& out, const Pipeline& run) {
  const sched::ObjectiveReport& r = run.objective_report();
  const sched::Objective objective = run.options().objective;
  const std::string unit(sched::objective_unit(objective));
  if (!r.starts.empty()) {
    out << "starts    ";
    for (std::size_t i = 0; i < r.starts.size(); ++i)
      out << format("%s%s %.6g %s%s", i ? ", " : "", r.starts[i].name.c_str(), r.starts[i].value,
                    unit.c_str(), i == r.start ? " (searched from)" : "");
    out << "\n";
  }
  if (r.searched) out << search_line(r.search, objective);
  const sched::CapacityStats& c = r.capacity;
  if (!c.binding) {
    out << "capacity  every weight fits where the exact solve put it (no price needed)\n";
  } else {
    out << format("capacity  weights over capacity: priced in %zu exact solves (%zu rounds); prices per MiB:",
                  c.solves, c.rounds);
    for (std::size_t m = 0; m < c.price_per_byte.size(); ++m)
      if (c.price_per_byte[m] > 0)
        out << format(" %s %.4g", run.hardware().memories[m].name.c_str(), c.price_per_byte[m] * kMiB);
    out << format("; gap to the Lagrangian bound %.4g (%.3g%%)\n", c.gap(), 100 * c.relative_gap());
  }
  for (std::size_t m = 0; m < r.reserved_bytes.size(); ++m)
    if (r.reserved_bytes[m] > 0)
      out << format("          %s: %.6g MiB kept free of weights for the peak of live activations\n",
                    run.hardware().memories[m].name.c_str(), r.reserved_bytes[m] / kMiB);
  out << format("\n%-10s %-4s %13s %13s %13s %13s %13s\n", "memory", "kind", "capacity_MiB", "weights_MiB",
                "streamed_MiB", "peak_live_MiB", "peak_strm_MiB");
  const auto use = sched::memory_use(run.flat(), run.schedule());
  bool streamed_over = false;
  for (std::size_t m = 0; m < use.size(); ++m) {
    const ir::Memory& mem = run.hardware().memories[m];
    const double peak = use[m].resident_weight_bytes + use[m].resident_state_bytes + use[m].peak_live_bytes;
    out << format("%-10s %-4s %13.6g %13.6g %13.6g %13.6g %13.6g%s\n", mem.name.c_str(),
                  std::string(ir::memory_kind_name(mem.kind)).c_str(), use[m].capacity_bytes / kMiB,
                  use[m].resident_weight_bytes / kMiB, use[m].streamed_weight_bytes / kMiB,
                  use[m].peak_live_bytes / kMiB, use[m].peak_streamed_bytes / kMiB,
                  peak <= use[m].capacity_bytes ? ""
                  : mem.kind == ir::MemoryKind::Sram && mem.spill_to >= 0
                      ? "  (weights + live over capacity: spills)"
                      : "  (weights + live over capacity)");
    streamed_over = streamed_over || (use[m].peak_streamed_bytes > 0 &&
                                      peak + use[m].peak_streamed_bytes > use[m].capacity_bytes);
  }
  for (std::size_t m = 0; m < use.size(); ++m)
    if (use[m].resident_state_bytes > 0)
      out << format("state     %s holds %.6g MiB of model state (KV cache) for the whole run, counted in its "
                    "capacity, not sent per run (placement.state)\n",
                    run.hardware().memories[m].name.c_str(), use[m].resident_state_bytes / kMiB);
  if (streamed_over)
    out << (run.hardware().latency_hiding ? "note      loads larger than their unit's prefetch buffers take "
                                            "the peak of streamed copies "
                                            "(peak_strm_MiB) beyond capacity\n"
                                          : "note      without latency hiding streamed weights are sent when "
                                            "the run starts, so their copies "
                                            "pile up (peak_strm_MiB) beyond capacity; --latency-hiding on "
                                            "fetches them through the load "
                                            "stages' buffers\n");
}

void add_plan_json(nlohmann::json& j, const Pipeline& run) {
  const sched::ObjectiveReport& r = run.objective_report();
  const ir::Hardware& hw = run.hardware();
  const sched::CapacityStats& c = r.capacity;
  nlohmann::json prices = nlohmann::json::object();
  for (std::size_t m = 0; m < c.price_per_byte.size(); ++m)
    prices[hw.memories[m].name] = c.price_per_byte[m];
  j["capacity"] = {{"binding", c.binding},
                   {"solves", c.solves},
                   {"rounds", c.rounds},
                   {"price_per_byte", prices},
                   {"value", c.value},
                   {"bound", c.bound},
                   {"gap", c.gap()},
                   {"relative_gap", c.relative_gap()},
                   {"weights_refilled", c.weights_refilled}};
  nlohmann::json memories = nlohmann::json::array();
  const auto use = sched::memory_use(run.flat(), run.schedule());
  for (std::size_t m = 0; m < use.size(); ++m)
    memories.push_back({{"name", hw.memories[m].name},
                        {"kind", ir::memory_kind_name(hw.memories[m].kind)},
                        {"capacity_bytes", use[m].capacity_bytes},
                        {"resident_weight_bytes", use[m].resident_weight_bytes},
                        {"resident_state_bytes", use[m].resident_state_bytes},
                        {"streamed_weight_bytes", use[m].streamed_weight_bytes},
                        {"peak_live_bytes", use[m].peak_live_bytes},
                        {"peak_streamed_bytes", use[m].peak_streamed_bytes}});
  j["memories"] = memories;
  nlohmann::json reserved = nlohmann::json::object();
  for (std::size_t m = 0; m < r.reserved_bytes.size(); ++m)
    if (r.reserved_bytes[m] > 0) reserved[hw.memories[m].name] = r.reserved_bytes[m];
  j["capacity"]["reserved_for_activations_bytes"] = reserved;
  if (!r.starts.empty()) {
    nlohmann::json starts = nlohmann::json::array();
    for (std::size_t i = 0; i < r.starts.size(); ++i)
      starts.push_back({{"name", r.starts[i].name},
                        {"value", r.starts[i].value},
                        {"per_s", r.starts[i].cost.per_s},
                        {"per_j", r.starts[i].cost.per_j},
                        {"searched_from", i == r.start}});
    j["starts"] = starts;
  }
  if (r.searched)
    j["search"] = {{"start_value", r.search.start_value},
                   {"final_value", r.search.final_value},
                   {"evaluations", r.search.evaluations},
                   {"moves", r.search.moves},
                   {"gave_up", r.search.gave_up}};
}

} // namespace lightsim
