#include "scheduler/load_stage.h"

#include "ir/hardware/residency.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace lightsim::sched {

LoadStage::LoadStage(const ir::PrefetchParams& buffers, std::vector<ir::OpId> program)
    : depth_(buffers.depth), buffer_bytes_(buffers.buffer_bytes), program_(std::move(program)),
      holders_(static_cast<std::size_t>(std::max(buffers.depth, 0)), 0) {
  if (depth_ < 1 || !(buffer_bytes_ > 0)) throw std::invalid_argument("LoadStage: no buffers");
  if (program_.empty()) return;
  position_.assign(static_cast<std::size_t>(*std::max_element(program_.begin(), program_.end())) + 1,
                   static_cast<std::size_t>(-1));
  for (std::size_t i = 0; i < program_.size(); ++i)
    position_[static_cast<std::size_t>(program_[i])] = i;
}

int LoadStage::buffers_for(double bytes) const {
  const double n = std::ceil(bytes / buffer_bytes_);
  return n >= depth_ ? depth_ : std::max(1, static_cast<int>(n));
}

int LoadStage::free_buffers() const {
  return static_cast<int>(std::count(holders_.begin(), holders_.end(), 0));
}

bool LoadStage::fits(double bytes) const {
  return (open_ >= 0 && bytes <= open_room_bytes_) || buffers_for(bytes) <= free_buffers();
}

bool LoadStage::take(ir::OpId op, double bytes) {
  if (busy_ || !fits(bytes)) return false;
  std::vector<int> used;
  if (open_ >= 0 && bytes <= open_room_bytes_) { // into the room the previous load left
    used.push_back(open_);
    open_room_bytes_ -= bytes;
  } else {
    const int n = buffers_for(bytes);
    for (int b = 0; b < depth_ && static_cast<int>(used.size()) < n; ++b)
      if (holders_[static_cast<std::size_t>(b)] == 0) used.push_back(b);
    open_ = used.back();
    open_room_bytes_ = std::max(0.0, n * buffer_bytes_ - bytes);
  }
  for (int b : used)
    ++holders_[static_cast<std::size_t>(b)];
  held_.emplace_back(op, std::move(used));
  busy_ = true;
  return true;
}

void LoadStage::issue(double bytes) {
  if (cursor_ >= program_.size() || !take(program_[cursor_], bytes))
    throw std::logic_error("LoadStage::issue: nothing to issue, or no room");
  ++cursor_;
}

bool LoadStage::issue_aside(ir::OpId op, double bytes) {
  if (!passed(op)) throw std::logic_error("LoadStage::issue_aside: the program has not passed the op");
  return take(op, bytes);
}

void LoadStage::release(ir::OpId op) {
  for (auto it = held_.begin(); it != held_.end();) {
    if (it->first != op) {
      ++it;
      continue;
    }
    for (int b : it->second)
      if (--holders_[static_cast<std::size_t>(b)] == 0 && b == open_) open_ = -1; // free, room closed
    it = held_.erase(it);
  }
}

LoadPlan plan_loads(const ir::Graph& graph, const ir::Hardware& hw, const std::vector<int>& unit_of_op) {
  LoadPlan plan;
  plan.tensors.resize(graph.ops.size());
  plan.bytes.assign(graph.ops.size(), 0.0);
  std::vector<char> staged(hw.units.size());
  for (std::size_t u = 0; u < hw.units.size(); ++u)
    staged[u] = ir::has_load_stage(hw.units[u]);
  if (std::find(staged.begin(), staged.end(), 1) == staged.end()) return plan;
  for (std::size_t op = 0; op < graph.ops.size(); ++op) {
    const auto u = static_cast<std::size_t>(unit_of_op[op]);
    if (!staged[u] || graph.ops[op].op_class == ir::OpClass::Input) continue;
    const ir::Unit& unit = hw.units[u];
    for (ir::TensorId t : graph.ops[op].inputs) {
      const ir::OpId producer = graph.tensors[t].producer;
      const ir::Op& p = graph.ops[producer];
      if (!ir::is_resident_input(hw, p)) continue;
      if (hw.units[static_cast<std::size_t>(unit_of_op[producer])].memory == unit.memory) continue;
      if (plan.fetches(static_cast<ir::OpId>(op), t)) continue;
      plan.tensors[op].push_back(t);
      plan.bytes[op] += static_cast<double>(graph.tensors[t].bytes);
    }
  }
  return plan;
}

namespace {

using Interval = std::pair<double, double>;

// Sorted, disjoint union of the intervals (empty ones dropped).
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (!(i.second > i.first)) continue;
    if (!out.empty() && i.first <= out.back().second)
      out.back().second = std::max(out.back().second, i.second);
    else
      out.push_back(i);
  }
  return out;
}

double length(const std::vector<Interval>& v) {
  double total = 0;
  for (const Interval& i : v)
    total += i.second - i.first;
  return total;
}

// Length of the intersection of two sorted, disjoint unions.
double overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double total = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    total += std::max(0.0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return total;
}

} // namespace

void summarise_loads(Schedule& schedule, const ir::Hardware& hw) {
  const std::size_t units = hw.units.size();
  if (schedule.units.size() != units) throw std::invalid_argument("summarise_loads: unit count differs");
  for (UnitUsage& u : schedule.units) {
    u.loads = u.oversized_loads = 0;
    u.load_bytes = u.load_busy_s = u.load_hidden_s = u.load_stall_s = 0;
  }
  // Only units whose load stage fetched anything have figures (most runs: none, every weight resident).
  std::vector<char> loaded(units, 0);
  for (const ScheduledOp& s : schedule.ops)
    if (s.lane >= 0 && s.load_bytes > 0) loaded[static_cast<std::size_t>(s.unit)] = 1;
  if (std::find(loaded.begin(), loaded.end(), 1) == loaded.end()) return;
  std::vector<std::vector<Interval>> loads(units), busy(units);
  // The end of the previous op on each op's lane: ops per (unit, lane) in start order.
  std::vector<const ScheduledOp*> ran;
  for (const ScheduledOp& s : schedule.ops)
    if (s.lane >= 0 && loaded[static_cast<std::size_t>(s.unit)]) ran.push_back(&s);
  std::sort(ran.begin(), ran.end(), [](const ScheduledOp* a, const ScheduledOp* b) {
    return std::tie(a->unit, a->lane, a->start_s, a->end_s, a->op) <
           std::tie(b->unit, b->lane, b->start_s, b->end_s, b->op);
  });
  for (std::size_t i = 0; i < ran.size(); ++i) {
    const ScheduledOp& s = *ran[i];
    const auto u = static_cast<std::size_t>(s.unit);
    busy[u].emplace_back(s.start_s, s.end_s);
    if (s.load_bytes <= 0) continue;
    const bool same_lane = i > 0 && ran[i - 1]->unit == s.unit && ran[i - 1]->lane == s.lane;
    const double lane_free = same_lane ? ran[i - 1]->end_s : 0.0;
    UnitUsage& use = schedule.units[u];
    const ir::PrefetchParams& p = hw.units[u].prefetch;
    ++use.loads;
    use.oversized_loads += s.load_bytes > p.depth * p.buffer_bytes;
    use.load_bytes += s.load_bytes;
    use.load_stall_s += std::max(0.0, s.load_end_s - std::max(s.inputs_ready_s, lane_free));
    loads[u].emplace_back(s.load_start_s, s.load_end_s);
  }
  for (std::size_t u = 0; u < units; ++u) {
    const std::vector<Interval> in_flight = merged(std::move(loads[u]));
    schedule.units[u].load_busy_s = length(in_flight);
    schedule.units[u].load_hidden_s = overlap(in_flight, merged(std::move(busy[u])));
  }
}

} // namespace lightsim::sched
