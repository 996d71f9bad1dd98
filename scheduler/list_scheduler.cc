#include "scheduler/list_scheduler.h"

#include <algorithm>
#include <numeric>

namespace lightsim::sched {
namespace {

// Upward rank: an op's duration plus the longest path (transfers included) to a graph exit.
std::vector<double> upward_ranks(const FlatGraph& flat) {
  const ir::StackedGraph& sg = *flat.stacked;
  std::vector<double> rank(sg.num_stacks(), 0.0);
  for (std::size_t i = sg.num_stacks(); i-- > 0;) {
    const auto op = static_cast<ir::OpId>(i);
    double tail = 0;
    for (std::uint32_t e : sg.out_edges(op)) {
      const ir::StackEdge& edge = sg.edges()[e];
      tail = std::max(tail, sg.edge_cost(edge, flat.choice[op], flat.choice[edge.dst]).time_s + rank[edge.dst]);
    }
    rank[op] = flat.cost_of(op).time_s + tail;
  }
  return rank;
}

class ListScheduler {
public:
  explicit ListScheduler(const FlatGraph& flat)
      : flat_(flat), sg_(*flat.stacked), graph_(sg_.graph()), hw_(sg_.hardware()) {
    schedule_.ops.resize(sg_.num_stacks());
    schedule_.units.resize(hw_.units.size());
    schedule_.link_bytes.assign(hw_.links.size(), 0);
    schedule_.link_busy_s.assign(hw_.links.size(), 0.0);
    link_free_.assign(hw_.links.size(), 0.0);
    for (const ir::Unit& unit : hw_.units) lane_free_.emplace_back(static_cast<std::size_t>(unit.cores), 0.0);
    lane_last_.resize(hw_.units.size());
    for (std::size_t u = 0; u < hw_.units.size(); ++u) lane_last_[u].assign(lane_free_[u].size(), -1);
    moved_.resize(graph_.tensors.size());
  }

  Schedule run(std::vector<ir::OpId>* binding) {
    const std::vector<double> rank = upward_ranks(flat_);
    std::vector<ir::OpId> order(sg_.num_stacks());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](ir::OpId a, ir::OpId b) { return rank[a] > rank[b]; });
    binding_.assign(sg_.num_stacks(), -1);
    for (ir::OpId op : order) place(op);
    finish();
    if (binding) *binding = std::move(binding_);
    return std::move(schedule_);
  }

private:
  int memory_of(ir::OpId op) const { return hw_.units[flat_.unit_of(op)].memory; }

  // Time at which tensor t (produced by `producer`) is available in memory `mem`, moving it if needed.
  double arrival(ir::TensorId t, ir::OpId producer, ir::OpId consumer, int mem) {
    const double ready = schedule_.ops[producer].end_s;
    const int src = memory_of(producer);
    if (src == mem) return ready;
    for (const auto& [m, index] : moved_[t])
      if (m == mem) return schedule_.transfers[index].end_s;
    ScheduledTransfer tr;
    tr.tensor = t;
    tr.src_op = producer;
    tr.dst_op = consumer;
    tr.src_memory = src;
    tr.dst_memory = mem;
    tr.bytes = graph_.tensors[t].bytes;
    tr.links = sg_.transfers().route(src, mem).links;
    double time = ready;
    bool first = true;
    for (int l : tr.links) {
      const ir::Cost hop = ir::TransferModel::link_cost(hw_.links[l], tr.bytes);
      const double start = std::max(time, link_free_[l]);
      if (first) tr.start_s = start;
      first = false;
      time = start + hop.time_s;
      link_free_[l] = time;
      tr.energy_j += hop.energy_j;
      schedule_.link_bytes[l] += tr.bytes;
      schedule_.link_busy_s[l] += hop.time_s;
    }
    tr.end_s = time;
    moved_[t].emplace_back(mem, static_cast<int>(schedule_.transfers.size()));
    schedule_.transfers.push_back(std::move(tr));
    return time;
  }

  void place(ir::OpId op) {
    const ir::Op& node = graph_.ops[op];
    const int unit = flat_.unit_of(op);
    const ir::Cost& cost = flat_.cost_of(op);
    ScheduledOp& s = schedule_.ops[op];
    s.op = op;
    s.unit = unit;
    s.energy_j = cost.energy_j;
    if (node.op_class == ir::OpClass::Input) { // resident from the start, no lane
      s.start_s = 0;
      s.end_s = cost.time_s;
      return;
    }
    double ready = 0;
    ir::OpId ready_by = -1;
    const int mem = memory_of(op);
    for (ir::TensorId t : node.inputs) {
      const ir::OpId producer = graph_.tensors[t].producer;
      const double at = arrival(t, producer, op, mem);
      if (at > ready || ready_by < 0) {
        ready = std::max(ready, at);
        ready_by = producer;
      }
    }
    std::vector<double>& lanes = lane_free_[unit];
    const auto lane = static_cast<std::size_t>(std::min_element(lanes.begin(), lanes.end()) - lanes.begin());
    s.lane = static_cast<int>(lane);
    s.start_s = std::max(ready, lanes[lane]);
    s.end_s = s.start_s + cost.time_s;
    binding_[op] = lanes[lane] > ready ? lane_last_[unit][lane] : ready_by;
    lanes[lane] = s.end_s;
    lane_last_[unit][lane] = op;
    schedule_.units[unit].busy_s += cost.time_s;
    schedule_.units[unit].dynamic_energy_j += cost.energy_j;
  }

  void finish() {
    double makespan = 0, energy = 0;
    for (const ScheduledOp& s : schedule_.ops) {
      makespan = std::max(makespan, s.end_s);
      if (graph_.ops[s.op].op_class == ir::OpClass::Input) energy += s.energy_j;
    }
    for (const ScheduledTransfer& t : schedule_.transfers) {
      makespan = std::max(makespan, t.end_s);
      energy += t.energy_j;
    }
    for (std::size_t u = 0; u < hw_.units.size(); ++u) {
      schedule_.units[u].static_energy_j = hw_.units[u].static_power_w * makespan;
      energy += schedule_.units[u].dynamic_energy_j + schedule_.units[u].static_energy_j;
    }
    for (const ir::Memory& m : hw_.memories) energy += m.static_power_w * makespan;
    schedule_.makespan_s = makespan;
    schedule_.energy_j = energy;
  }

  const FlatGraph& flat_;
  const ir::StackedGraph& sg_;
  const ir::Graph& graph_;
  const ir::Hardware& hw_;
  Schedule schedule_;
  std::vector<std::vector<double>> lane_free_;
  std::vector<std::vector<ir::OpId>> lane_last_;
  std::vector<double> link_free_;
  std::vector<std::vector<std::pair<int, int>>> moved_; // per tensor: (memory, transfer index)
  std::vector<ir::OpId> binding_;
};

} // namespace

Schedule list_schedule(const FlatGraph& flat, std::vector<ir::OpId>* binding) {
  return ListScheduler(flat).run(binding);
}

std::vector<ir::OpId> critical_path(const Schedule& schedule, const std::vector<ir::OpId>& binding) {
  std::vector<ir::OpId> path;
  ir::OpId op = -1;
  double last = -1;
  for (const ScheduledOp& s : schedule.ops)
    if (s.end_s > last) {
      last = s.end_s;
      op = s.op;
    }
  for (; op >= 0; op = binding[op]) path.push_back(op);
  return path;
}

} // namespace lightsim::sched
