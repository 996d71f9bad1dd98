#include "sim/cli/report.h"

#include "ir/cost/collectives.h"
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "ir/text_format.h"
#include "sim/check/energy_breakdown.h"
#include "sim/cli/load_summary.h"
#include "sim/cli/plan_summary.h"
#include "sim/cli/unit_alternatives.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <ostream>
#include <string>

namespace lightsim {
namespace {

using ir::format;

struct UnitRow {
  std::string name, kind;
  std::size_t ops = 0, launches = 0; // launches: ops that do work (views excluded): kernels on a GPU
  double busy_s = 0, utilisation = 0, energy_j = 0;
  std::string mirrors; // a peer of an SPMD graph's shard group: the device whose row it repeats
};

// What each peer of a stage's device adds by running its own copy of the stage's shard: the device's dynamic
// energy less its collectives' (a collective's op energy is the link energy of every member's sends,
// charged once to the device's op), and the shard's transfers into the stage (each peer moves its own).
struct PeerEnergy {
  double unit_j = 0, transfers_j = 0;
};

std::vector<PeerEnergy> peer_energy(const Pipeline& run) {
  const ir::DevicePlan& plan = run.stacked().device_plan();
  const sched::Schedule& s = run.schedule();
  const ir::Graph& g = run.graph();
  std::vector<PeerEnergy> stages(plan.stages.size());
  for (std::size_t k = 0; k < stages.size(); ++k)
    stages[k].unit_j = s.units[static_cast<std::size_t>(plan.stages[k].front())].dynamic_energy_j;
  const auto stage_of_op = [&](ir::OpId op) {
    return static_cast<std::size_t>(std::max(0, g.ops[static_cast<std::size_t>(op)].pipeline_stage));
  };
  for (std::size_t op = 0; op < g.ops.size(); ++op)
    if (ir::is_collective(g.ops[op].op_class) && stage_of_op(static_cast<ir::OpId>(op)) < stages.size())
      stages[stage_of_op(static_cast<ir::OpId>(op))].unit_j -= s.ops[op].energy_j;
  for (const sched::ScheduledTransfer& t : s.transfers)
    if (stage_of_op(t.dst_op) < stages.size()) stages[stage_of_op(t.dst_op)].transfers_j += t.energy_j;
  return stages;
}

// A graph of a parallel plan (ir/cost/device_plan.h) runs each stage's shard on every member of its group
// at once. The peers' rows repeat their stage device's ops, busy time and dynamic energy but for the
// collectives' link energy, which the device's row holds for the whole group (they are not replayed apart;
// the collectives' chunks that reach them are); each keeps its own static energy.
void mirror_shard_peers(const Pipeline& run, std::vector<UnitRow>& rows) {
  const ir::DevicePlan& plan = run.stacked().device_plan();
  if (plan.empty()) return;
  const std::vector<PeerEnergy> extra = peer_energy(run);
  for (std::size_t u = 0; u < rows.size(); ++u) {
    const int device = plan.mirrored_device(static_cast<int>(u));
    if (device < 0) continue;
    const UnitRow& of = rows[static_cast<std::size_t>(device)];
    UnitRow& row = rows[u];
    row.ops = of.ops;
    row.launches = of.launches;
    row.busy_s = of.busy_s;
    row.utilisation = of.utilisation;
    row.energy_j += extra[static_cast<std::size_t>(plan.stage_of(static_cast<int>(u)))].unit_j;
    row.mirrors = of.name;
  }
}

// The machine's energy: the schedule's (one shard per stage, every unit's static power, the collectives'
// link energy for every member) plus what the stages' peers add by running their shards (peer_energy).
double machine_energy_j(const Pipeline& run) {
  double energy_j = run.schedule().energy_j;
  const ir::DevicePlan& plan = run.stacked().device_plan();
  if (plan.empty()) return energy_j;
  const std::vector<PeerEnergy> extra = peer_energy(run);
  for (std::size_t k = 0; k < plan.stages.size(); ++k)
    energy_j += (extra[k].unit_j + extra[k].transfers_j) * static_cast<double>(plan.stages[k].size() - 1);
  return energy_j;
}

std::vector<UnitRow> unit_rows(const Pipeline& run) {
  const ir::Hardware& hw = run.hardware();
  const sched::Schedule& s = run.schedule();
  std::vector<UnitRow> rows(hw.units.size());
  for (std::size_t u = 0; u < hw.units.size(); ++u) {
    rows[u].name = hw.units[u].name;
    rows[u].kind = std::string(hw.units[u].kind_name());
    rows[u].busy_s = s.units[u].busy_s;
    const double capacity = s.makespan_s * hw.units[u].cores;
    rows[u].utilisation = capacity > 0 ? s.units[u].busy_s / capacity : 0;
    rows[u].energy_j = s.units[u].dynamic_energy_j + s.units[u].static_energy_j;
  }
  for (std::size_t op = 0; op < run.graph().ops.size(); ++op) {
    const ir::OpClass c = run.graph().ops[op].op_class;
    if (c == ir::OpClass::Input) continue;
    UnitRow& row = rows[run.flat().unit_of(static_cast<ir::OpId>(op))];
    ++row.ops;
    row.launches += c != ir::OpClass::Nop;
  }
  mirror_shard_peers(run, rows);
  return rows;
}

// Operand bytes (read + written) of the ops per memory of the unit that runs them, as the arithmetic model
// counts them (ir::Feature::OperandBytes): the memory traffic of the plan.
nlohmann::json operand_bytes_by_memory(const Pipeline& run) {
  const ir::Hardware& hw = run.hardware();
  std::vector<double> bytes(hw.memories.size(), 0.0);
  for (std::size_t op = 0; op < run.graph().ops.size(); ++op) {
    const ir::Op& desc = run.graph().ops[op];
    if (desc.op_class == ir::OpClass::Input || desc.op_class == ir::OpClass::Nop) continue;
    const ir::Unit& unit = hw.units[run.flat().unit_of(static_cast<ir::OpId>(op))];
    bytes[unit.memory] += ir::feature_value(ir::Feature::OperandBytes, desc.features, unit);
  }
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t m = 0; m < bytes.size(); ++m)
    j[hw.memories[m].name] = bytes[m];
  return j;
}

// Compute ops by predicted duration, longest first (ties by op id).
std::vector<ir::OpId> costliest(const Pipeline& run, std::size_t n) {
  std::vector<ir::OpId> ops;
  for (std::size_t op = 0; op < run.graph().ops.size(); ++op)
    if (run.graph().ops[op].op_class != ir::OpClass::Input) ops.push_back(static_cast<ir::OpId>(op));
  auto duration = [&](ir::OpId op) { return run.schedule().ops[op].end_s - run.schedule().ops[op].start_s; };
  const std::size_t k = std::min(n, ops.size());
  std::partial_sort(
      ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(k), ops.end(),
      [&](ir::OpId a, ir::OpId b) { return duration(a) != duration(b) ? duration(a) > duration(b) : a < b; });
  ops.resize(k);
  return ops;
}

// GPU kernel launches: ops placed on a unit whose kind launches kernels (a GPU), views aside (Nop: a
// reshape moves no data and launches nothing). Ops on CPUs and accelerator cards are not counted.
std::size_t gpu_kernel_launches(const ir::Graph& g, const ir::Hardware& hw, const sched::Schedule& s) {
  std::size_t launches = 0;
  for (std::size_t op = 0; op < g.ops.size(); ++op)
    if (g.ops[op].op_class != ir::OpClass::Input && g.ops[op].op_class != ir::OpClass::Nop &&
        hw.units[s.ops[op].unit].kind->launches_kernels())
      ++launches;
  return launches;
}

// What the solver's objective value is, beside the schedule's makespan and energy printed under it.
const char* objective_meaning(sched::Objective objective) {
  switch (objective) {
  case sched::Objective::Time:
    return "the placement's op and transfer seconds summed, nothing overlapped";
  case sched::Objective::Energy:
    return "the searched schedule's energy";
  case sched::Objective::Makespan:
    return "the searched schedule's makespan";
  case sched::Objective::Edp:
    return "the searched schedule's energy x makespan";
  }
  return "";
}

} // namespace

void print_summary(std::ostream& out, const Pipeline& run, std::size_t top_ops) {
  const ir::Graph& g = run.graph();
  const ir::Hardware& hw = run.hardware();
  const sched::Schedule& s = run.schedule();
  const sched::Objective objective = run.flat().objective;
  out << "graph     " << g.source << ": " << g.num_compute_ops() << " ops, "
      << g.ops.size() - g.num_compute_ops() << " inputs and weights\n";
  out << "hardware  " << hw.source << " (" << hw.name << "): " << hw.units.size() << " units, "
      << hw.memories.size() << " memories, " << hw.links.size() << " links\n";
  const FusionStats& f = run.fusion();
  out << format("fusion    %s: %zu ops -> %zu ops (%zu GPU kernel launches%s)%s%s\n",
                std::string(ir::fusion::kFuseModes.name(f.mode)).c_str(), f.ops_before, f.ops_after,
                gpu_kernel_launches(g, hw, s),
                f.attention_ops ? (", " + std::to_string(f.attention_ops) + " fused attention").c_str() : "",
                f.arrived_fused ? ", the graph arrived fused" : "",
                f.folded_ops
                    ? (", " + std::to_string(f.folded_ops) + " ops on weights folded ahead of time").c_str()
                    : "");
  out << format("objective %s = %.6g %s: %s (exact solves %.2f ms, %zu choices, width %zu)\n",
                std::string(sched::objective_name(objective)).c_str(), run.flat().objective_value,
                std::string(sched::objective_unit(objective)).c_str(), objective_meaning(objective),
                run.times().solve_ms, run.solve_stats().variables, run.solve_stats().induced_width);
  out << format("makespan  %.6g s: the schedule's end, ops on different units overlapping\n"
                "energy    %.6g J: the schedule's, static power over the makespan included\n",
                s.makespan_s, s.energy_j);
  print_plan(out, run);
  print_latency_hiding(out, hw);
  print_loads(out, hw, s, "load stages (predicted)");
  out << "\n";

  out << format("%-10s %-4s %7s %12s %7s %12s\n", "unit", "kind", "ops", "busy_s", "util", "energy_j");
  const std::vector<UnitRow> rows = unit_rows(run);
  std::string peers;
  for (const UnitRow& r : rows) {
    out << format("%-10s %-4s %7zu %12.6g %6.1f%% %12.6g%s\n", r.name.c_str(), r.kind.c_str(), r.ops,
                  r.busy_s, 100 * r.utilisation, r.energy_j,
                  r.mirrors.empty() ? "" : (" = " + r.mirrors).c_str());
    if (!r.mirrors.empty()) peers += (peers.empty() ? "" : ", ") + r.name;
  }
  if (!peers.empty())
    out << format(
        "shard     rows marked = run the other shards of their stage's SPMD group at once: they repeat "
        "its device's ops, busy time and dynamic energy by symmetry, but for the collectives' link energy, "
        "which the device's row holds for the whole group (%s)\n"
        "machine   energy %.6g J: the schedule's, and the other shards' dynamic and transfer energy\n",
        peers.c_str(), machine_energy_j(run));
  print_unit_alternatives(out, run, unit_alternatives(run));
  out << "\nenergy by component (predicted)\n" << sim::format_energy_table(sim::energy_by_owner(g, hw, s));
  if (!hw.links.empty()) {
    out << format("\n%-10s %-4s %14s %12s\n", "link", "kind", "bytes", "busy_s");
    for (std::size_t l = 0; l < hw.links.size(); ++l)
      out << format("%-10s %-4s %14llu %12.6g\n", hw.links[l].name.c_str(),
                    std::string(ir::link_kind_name(hw.links[l].kind)).c_str(),
                    static_cast<unsigned long long>(s.link_bytes[l]), s.link_busy_s[l]);
  }
  out << "\ncostliest ops\n";
  out << format("%-44s %-14s %-8s %12s %12s\n", "op", "class", "unit", "time_s", "energy_j");
  for (ir::OpId op : costliest(run, top_ops))
    out << format("%-44s %-14s %-8s %12.6g %12.6g\n", g.ops[op].name.substr(0, 44).c_str(),
                  std::string(ir::op_class_name(g.ops[op].op_class)).c_str(),
                  hw.units[s.ops[op].unit].name.c_str(), s.ops[op].end_s - s.ops[op].start_s,
                  s.ops[op].energy_j);
}

nlohmann::json summary_json(const Pipeline& run, std::size_t top_ops) {
  const ir::Graph& g = run.graph();
  const ir::Hardware& hw = run.hardware();
  const sched::Schedule& s = run.schedule();
  nlohmann::json j;
  j["graph"] = g.source;
  j["hardware"] = hw.source;
  j["objective"] = sched::objective_name(run.flat().objective);
  j["objective_value"] = run.flat().objective_value;
  j["makespan_s"] = s.makespan_s;
  j["energy_j"] = s.energy_j;
  j["machine_energy_j"] = machine_energy_j(run);
  j["ops"] = g.num_compute_ops();
  j["inputs"] = g.ops.size() - g.num_compute_ops();
  j["solve_ms"] = run.times().solve_ms;
  j["fusion"] = {{"mode", ir::fusion::kFuseModes.name(run.fusion().mode)},
                 {"ops_before", run.fusion().ops_before},
                 {"ops_after", run.fusion().ops_after},
                 {"gpu_kernel_launches", gpu_kernel_launches(g, hw, s)},
                 {"attention_ops", run.fusion().attention_ops},
                 {"arrived_fused", run.fusion().arrived_fused},
                 {"folded_ops", run.fusion().folded_ops}};
  j["stage_ms"] = {{"import", run.times().import_ms},
                   {"fuse", run.times().fuse_ms},
                   {"stack", run.times().stack_ms},
                   {"solve", run.times().solve_ms},
                   {"schedule", run.times().schedule_ms}};
  j["solver"] = {{"choices", run.solve_stats().variables},
                 {"induced_width", run.solve_stats().induced_width}};
  const std::vector<sim::OwnerEnergy> owners = sim::energy_by_owner(g, hw, s);
  nlohmann::json by_unit = nlohmann::json::object(), units = nlohmann::json::array();
  const std::vector<UnitRow> rows = unit_rows(run);
  const std::vector<UnitAlternatives> alternatives = unit_alternatives(run);
  for (std::size_t u = 0; u < rows.size(); ++u) {
    const UnitRow& r = rows[u];
    by_unit[r.name] = r.ops;
    units.push_back({{"name", r.name},
                     {"kind", r.kind},
                     {"ops", r.ops},
                     {"launches", r.launches},
                     {"busy_s", r.busy_s},
                     {"utilisation", r.utilisation},
                     {"energy_j", r.energy_j},
                     {"energy_by_component", sim::components_json(owners[u].energy)},
                     {"not_chosen", not_chosen_json(alternatives[u])}});
    if (!r.mirrors.empty()) units.back()["mirrors"] = r.mirrors;
  }
  j["ops_by_unit"] = by_unit;
  j["units"] = units;
  j["energy_by_owner"] = sim::owners_json(owners);
  nlohmann::json links = nlohmann::json::array();
  for (std::size_t l = 0; l < hw.links.size(); ++l)
    links.push_back({{"name", hw.links[l].name}, {"bytes", s.link_bytes[l]}, {"busy_s", s.link_busy_s[l]}});
  j["links"] = links;
  nlohmann::json top = nlohmann::json::array();
  for (ir::OpId op : costliest(run, top_ops)) {
    nlohmann::json row = {{"id", op},
                          {"name", g.ops[op].name},
                          {"class", ir::op_class_name(g.ops[op].op_class)},
                          {"unit", hw.units[s.ops[op].unit].name},
                          {"time_s", s.ops[op].end_s - s.ops[op].start_s},
                          {"energy_j", s.ops[op].energy_j},
                          {"energy_by_component", sim::components_json(sim::op_energy_of(s, op))}};
    const ir::OpFeatures& f = g.ops[op].features;
    if (ir::has_gemm_view(f)) row["gemm"] = {f.gemm_batch, f.gemm_m, f.gemm_n, f.gemm_k}; // batch, m, n, k
    top.push_back(std::move(row));
  }
  j["costliest_ops"] = top;
  add_plan_json(j, run);
  j["latency_hiding"] = loads_json(hw, s);
  j["operand_bytes_by_memory"] = operand_bytes_by_memory(run);
  j["warnings"] = run.warnings();
  return j;
}

} // namespace lightsim
