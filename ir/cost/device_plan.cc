#include "ir/cost/device_plan.h"

#include "ir/cost/collectives.h"
#include "ir/error.h"
#include "ir/partition/pipeline_stages.h"

#include <algorithm>
#include <string>

namespace lightsim::ir {
namespace {

std::vector<int> units_of_kind(const Hardware& hw, std::string_view kind) {
  std::vector<int> units;
  for (std::size_t u = 0; u < hw.units.size(); ++u)
    if (hw.units[u].kind_name() == kind) units.push_back(static_cast<int>(u));
  return units;
}

// The first unit whose kind has a group for every collective; -1 when none does.
int first_group_unit(const std::vector<const Op*>& collectives, const Hardware& hw) {
  for (std::size_t u = 0; u < hw.units.size(); ++u)
    if (std::all_of(collectives.begin(), collectives.end(),
                    [&](const Op* op) { return !collective_group(hw, static_cast<int>(u), *op).empty(); }))
      return static_cast<int>(u);
  return -1;
}

// The first kind (config order of its first unit) with at least `count` units; "" when none has.
std::string kind_with(const Hardware& hw, std::size_t count) {
  for (const Unit& unit : hw.units)
    if (units_of_kind(hw, unit.kind_name()).size() >= count) return std::string(unit.kind_name());
  return "";
}

} // namespace

bool DevicePlan::excludes(const Hardware& hw, int unit, const Op& op) const {
  if (stages.empty()) return false;
  if (closed[static_cast<std::size_t>(unit)]) return true;
  const bool own_kind = hw.units[static_cast<std::size_t>(unit)].kind_name() == kind;
  if (shard && !own_kind && op.op_class != OpClass::Input) return true;
  return stages.size() > 1 && op.pipeline_stage >= 0 && own_kind &&
         unit != stages[static_cast<std::size_t>(op.pipeline_stage)].front();
}

int DevicePlan::stage_of(int unit) const {
  for (std::size_t s = 0; s < stages.size(); ++s)
    if (std::find(stages[s].begin(), stages[s].end(), unit) != stages[s].end()) return static_cast<int>(s);
  return -1;
}

int DevicePlan::mirrored_device(int unit) const {
  const int s = stage_of(unit);
  return s < 0 || stages[static_cast<std::size_t>(s)].front() == unit
             ? -1
             : stages[static_cast<std::size_t>(s)].front();
}

DevicePlan device_plan(const Graph& graph, const Hardware& hw) {
  DevicePlan plan;
  std::vector<const Op*> collectives;
  std::int64_t group_size = 1;
  for (const Op& op : graph.ops)
    if (is_collective(op.op_class)) {
      collectives.push_back(&op);
      group_size = std::max(group_size, op.features.collective_workers);
    }
  const int stage_count = std::max(1, pipeline_stage_count(graph));
  if (collectives.empty() && stage_count == 1) return plan;

  if (!collectives.empty()) {
    const int first = first_group_unit(collectives, hw);
    if (first < 0) return plan; // the stacked graph names the collective no unit can run
    plan.kind = std::string(hw.units[static_cast<std::size_t>(first)].kind_name());
  } else {
    plan.kind = kind_with(hw, static_cast<std::size_t>(stage_count));
  }
  const std::vector<int> devices = units_of_kind(hw, plan.kind);
  const std::size_t needed = static_cast<std::size_t>(stage_count) * static_cast<std::size_t>(group_size);
  if (plan.kind.empty() || devices.size() < needed)
    throw InputError(graph.source,
                     std::to_string(stage_count) + " pipeline stage" + (stage_count > 1 ? "s" : "") +
                         (group_size > 1 ? " of " + std::to_string(group_size) + "-unit shards" : "") +
                         " need " + std::to_string(needed) + " units of one kind" +
                         (plan.kind.empty() ? "" : " ('" + plan.kind + "')") + ", and " + hw.source +
                         " has " +
                         (plan.kind.empty() ? "no kind with that many" : std::to_string(devices.size())));

  plan.shard = group_size > 1;
  plan.closed.assign(hw.units.size(), false);
  for (int u : devices)
    plan.closed[static_cast<std::size_t>(u)] = true;
  for (int s = 0; s < stage_count; ++s) {
    const int device = devices[static_cast<std::size_t>(s) * static_cast<std::size_t>(group_size)];
    plan.closed[static_cast<std::size_t>(device)] = false;
    std::vector<bool> member(hw.units.size(), false);
    for (const Op* op : collectives)
      for (int u : collective_group(hw, device, *op))
        member[static_cast<std::size_t>(u)] = true;
    std::vector<int> group{device};
    for (std::size_t u = 0; u < hw.units.size(); ++u)
      if (member[u] && static_cast<int>(u) != device) group.push_back(static_cast<int>(u));
    plan.stages.push_back(std::move(group));
  }
  return plan;
}

std::vector<std::vector<int>> replica_memories(const DevicePlan& plan, const Hardware& hw) {
  std::vector<std::vector<int>> maps;
  if (!plan.shard) return maps;
  const std::size_t peers = plan.stages.front().size();
  for (std::size_t k = 1; k < peers; ++k) {
    std::vector<int> map(hw.memories.size());
    for (std::size_t m = 0; m < map.size(); ++m)
      map[m] = static_cast<int>(m);
    for (const std::vector<int>& stage : plan.stages)
      if (k < stage.size())
        map[static_cast<std::size_t>(hw.units[static_cast<std::size_t>(stage.front())].memory)] =
            hw.units[static_cast<std::size_t>(stage[k])].memory;
    maps.push_back(std::move(map));
  }
  return maps;
}

} // namespace lightsim::ir
