#include "scheduler/list_scheduler.h"

#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "scheduler/list_scheduler_impl.h"

#include <algorithm>
#include <cmath>
#include <tuple>

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
      tail =
          std::max(tail, sg.edge_cost(edge, flat.choice[op], flat.choice[edge.dst]).time_s + rank[edge.dst]);
    }
    rank[op] = flat.cost_of(op).time_s + tail;
  }
  return rank;
}

// The dispatch priority: the upward rank, micro-batches first in order (ir/partition/micro_batches.h: a
// stage's stream runs micro-batch k's kernels before k + 1's, as GPipe issues them), so every op of an
// earlier micro-batch ranks above every op of a later one.
std::vector<double> dispatch_priority(const FlatGraph& flat) {
  std::vector<double> rank = upward_ranks(flat);
  if (rank.empty() || !flat.stacked->has_graph()) return rank;
  const double span = 1 + 2 * *std::max_element(rank.begin(), rank.end());
  const ir::Graph& graph = flat.stacked->graph();
  for (std::size_t op = 0; op < rank.size(); ++op)
    rank[op] -= span * graph.ops[op].micro_batch;
  return rank;
}

} // namespace

ListScheduler::ListScheduler(const FlatGraph& flat)
    : flat_(flat), sg_(*flat.stacked), graph_(sg_.graph()), hw_(sg_.hardware()),
      rank_(dispatch_priority(flat)) {
  const std::size_t n = sg_.num_stacks();
  schedule_.ops.resize(n);
  schedule_.units.resize(hw_.units.size());
  schedule_.link_bytes.assign(hw_.links.size(), 0);
  schedule_.link_busy_s.assign(hw_.links.size(), 0.0);
  for (std::size_t l = 0; l < hw_.links.size();
       ++l) { // each sending port shares its bandwidth, as in the replay
    first_port_.push_back(link_dirs_.size());
    port_link_.insert(port_link_.end(), hw_.links[l].endpoints.size(), l);
    link_dirs_.insert(link_dirs_.end(), hw_.links[l].endpoints.size(),
                      FairShare(hw_.links[l].bandwidth_GBps * 1e-3));
  }
  link_event_seq_.assign(link_dirs_.size(), 0);
  link_event_ps_.assign(link_dirs_.size(), 0);
  lane_busy_.resize(hw_.units.size());
  lane_last_.resize(hw_.units.size());
  for (std::size_t u = 0; u < hw_.units.size(); ++u) {
    lane_busy_[u].assign(static_cast<std::size_t>(hw_.units[u].cores), false);
    lane_last_[u].assign(static_cast<std::size_t>(hw_.units[u].cores), -1);
  }
  in_flight_.assign(hw_.units.size(), 0);
  max_in_flight_.resize(hw_.units.size());
  port_of_.resize(hw_.units.size());
  for (std::size_t u = 0; u < hw_.units.size(); ++u) {
    const ir::Unit& unit = hw_.units[u];
    max_in_flight_[u] = unit.kind->ops_in_flight(unit);
    if (max_in_flight_[u] < 2) continue; // nothing to share with
    // One port per shared rate the unit's kind declares (a CPU's shared caches and memory port).
    const std::vector<ir::SharedPort> shared = unit.kind->shared_ports(unit);
    port_of_[u].assign(shared.size(), -1);
    for (std::size_t p = 0; p < shared.size(); ++p) {
      if (shared[p].total_GBps <= 0) continue;
      port_of_[u][p] = static_cast<int>(ports_.size());
      ports_.emplace_back(shared[p].total_GBps * 1e-3, shared[p].per_flow_GBps * 1e-3);
    }
  }
  port_event_seq_.assign(ports_.size(), 0);
  port_event_ps_.assign(ports_.size(), 0);
  op_lanes_.assign(n, 1);
  extra_lanes_.resize(n);
  for (std::size_t op = 0; op < n; ++op) {
    const ir::Unit& unit = hw_.units[flat_.unit_of(static_cast<ir::OpId>(op))];
    op_lanes_[op] = unit.kind->op_lanes(unit, graph_.ops[op].features);
  }
  floor_end_s_.assign(n, 0.0);
  after_port_s_.assign(n, 0.0);
  tail_s_.assign(n, 0.0);
  flows_left_.assign(n, 0);
  ready_.resize(hw_.units.size());
  missing_.assign(n, 0);
  ready_at_.assign(n, 0.0);
  ready_by_.assign(n, -1);
  binding_.assign(n, -1);
  for (const ir::StackEdge& e : sg_.edges())
    ++missing_[e.dst];
  data_ready_at_.assign(n, 0.0);
  init_load_stages();
  if (SramResidency::needed(hw_)) {
    std::vector<int> memories(n);
    for (std::size_t op = 0; op < n; ++op)
      memories[op] = memory_of(static_cast<ir::OpId>(op));
    residency_.emplace(graph_, hw_, std::move(memories), loads_);
  }
}

Schedule ListScheduler::run(std::vector<ir::OpId>* binding) {
  if (residency_) residency_->start_run();
  for (ir::OpId op = 0; op < static_cast<ir::OpId>(sg_.num_stacks()); ++op) {
    ScheduledOp& s = schedule_.ops[op];
    s.op = op;
    s.unit = flat_.unit_of(op);
    s.energy_j = flat_.cost_of(op).energy_j;
    if (graph_.ops[op].op_class == ir::OpClass::Input) { // resident from the start, no lane
      s.end_s = flat_.cost_of(op).time_s;
      push(s.end_s, Event::Complete, op);
    } else if (missing_[op] == 0) {
      push(0, Event::Ready, op);
    }
  }
  while (!events_.empty()) {
    const double now = std::get<0>(events_.top());
    while (!events_.empty() && std::get<0>(events_.top()) == now) {
      const auto [time, kind, seq, op] = events_.top();
      events_.pop();
      if (kind == Event::PortDone) {
        const auto port = static_cast<std::size_t>(op); // a port event carries its port
        if (seq == port_event_seq_[port]) serve_port(port, port_event_ps_[port]); // exact, not via s
      } else if (kind == Event::LinkDone) {
        const auto dir = static_cast<std::size_t>(op); // a link event carries its link port
        if (seq == link_event_seq_[dir]) serve_link(dir, link_event_ps_[dir]);
      } else if (kind == Event::Arrive) {
        hop_arrived(static_cast<std::size_t>(op)); // an arrival carries its transfer
      } else if (kind == Event::Complete) {
        complete(op, time);
      } else {
        ready_[schedule_.ops[op].unit].push({rank_[op], -op});
      }
      if (events_.empty() || std::get<0>(events_.top()) != now) dispatch(now);
    }
  }
  finish();
  if (binding) *binding = std::move(binding_);
  return std::move(schedule_);
}

void ListScheduler::input_arrived(ir::OpId op, ir::OpId producer, double arrival) {
  data_ready_at_[op] = std::max(data_ready_at_[op], arrival);
  if (arrival > ready_at_[op] || ready_by_[op] < 0) {
    ready_at_[op] = std::max(ready_at_[op], arrival);
    ready_by_[op] = producer;
  }
  if (--missing_[op] == 0) push(ready_at_[op], Event::Ready, op);
}

void ListScheduler::complete(ir::OpId op, double now) {
  const ScheduledOp& s = schedule_.ops[op];
  if (s.lane >= 0) {
    lane_busy_[s.unit][static_cast<std::size_t>(s.lane)] = false;
    for (int extra : extra_lanes_[op])
      lane_busy_[s.unit][static_cast<std::size_t>(extra)] = false;
    --in_flight_[s.unit];
    schedule_.units[s.unit].busy_s += s.end_s - s.start_s;
    schedule_.units[s.unit].dynamic_energy_j += s.energy_j;
    if (residency_) residency_->end(op);
    release_buffers(op, now);
  }
  const int src = memory_of(op);
  std::vector<std::tuple<ir::TensorId, int, std::size_t>> sent; // (tensor, memory, transfer token)
  for (std::uint32_t e : sg_.out_edges(op)) {
    const ir::StackEdge& edge = sg_.edges()[e];
    if (loads_.fetches(edge.dst, edge.tensor)) continue; // its consumer's load stage fetches it
    const int dst = memory_of(edge.dst);
    if (dst == src) {
      input_arrived(edge.dst, op, now);
      continue;
    }
    auto it = std::find_if(sent.begin(), sent.end(), [&](const auto& x) {
      return std::get<0>(x) == edge.tensor && std::get<1>(x) == dst;
    });
    if (it == sent.end()) {
      sent.emplace_back(edge.tensor, dst, send(edge.tensor, op, edge.dst, src, dst, now));
      it = sent.end() - 1;
    }
    transfers_in_flight_[std::get<2>(*it)].consumers.push_back(edge.dst);
  }
}

void ListScheduler::dispatch(double now) {
  for (std::size_t u = 0; u < hw_.units.size(); ++u) {
    auto& queue = ready_[u];
    std::vector<bool>& busy = lane_busy_[u];
    started_.clear();
    while (!queue.empty() && in_flight_[u] < max_in_flight_[u]) {
      const ir::OpId op = -queue.top().second;
      const auto free = static_cast<int>(std::count(busy.begin(), busy.end(), false));
      if (free < op_lanes_[op]) break;
      queue.pop();
      const auto lane = static_cast<std::size_t>(std::find(busy.begin(), busy.end(), false) - busy.begin());
      busy[lane] = true;
      for (std::size_t extra = lane + 1; static_cast<int>(extra_lanes_[op].size()) + 1 < op_lanes_[op];
           ++extra)
        if (!busy[extra]) {
          busy[extra] = true;
          extra_lanes_[op].push_back(static_cast<int>(extra));
        }
      ++in_flight_[u];
      ScheduledOp& s = schedule_.ops[op];
      s.lane = static_cast<int>(lane);
      s.start_s = now;
      s.inputs_ready_s = data_ready_at_[op];
      binding_[op] = now > ready_at_[op] ? lane_last_[u][lane] : ready_by_[op];
      lane_last_[u][lane] = op;
      started_.push_back(op);
    }
    start_ops(u, now);
  }
}

void ListScheduler::start_ops(std::size_t u, double now) {
  std::vector<double>& extra = start_extra_s_;
  extra.assign(started_.size(), 0.0);
  if (residency_) {
    std::vector<std::size_t>& order = start_order_;
    order.resize(started_.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return started_[a] < started_[b]; });
    for (std::size_t i : order) {
      const ir::OpId op = started_[i];
      ScheduledOp& s = schedule_.ops[op];
      const OpSpill spill = residency_->start(op);
      const SpillCharge c =
          spill_charge(hw_, static_cast<int>(u), graph_.ops[op], flat_.cost_of(op).time_s, spill);
      s.spilled_bytes = spill.spilled_bytes;
      s.spill_memory = c.traffic_bytes > 0 ? spill.spill_memory : -1;
      s.spill_traffic_bytes = c.traffic_bytes;
      s.energy_j += c.energy_j;
      extra[i] = c.time_s;
    }
  }
  for (std::size_t i = 0; i < started_.size(); ++i) {
    const ir::OpId op = started_[i];
    const double duration = flat_.cost_of(op).time_s;
    if (start_on_shared_port(u, op, duration, now)) {
      tail_s_[op] += extra[i]; // the modules fetch spilled operands after the op's own time
      continue;
    }
    ScheduledOp& s = schedule_.ops[op];
    s.end_s = now + duration + extra[i];
    push(s.end_s, Event::Complete, op);
  }
}

void ListScheduler::finish() {
  double makespan = 0, energy = 0;
  for (const ScheduledOp& s : schedule_.ops) {
    makespan = std::max(makespan, s.end_s);
    if (s.lane < 0) energy += s.energy_j; // inputs: not in any unit's dynamic energy
  }
  for (const ScheduledTransfer& t : schedule_.transfers) {
    makespan = std::max(makespan, t.end_s);
    energy += t.energy_j;
  }
  for (std::size_t u = 0; u < hw_.units.size(); ++u) {
    schedule_.units[u].static_energy_j = hw_.units[u].static_power_w * makespan;
    energy += schedule_.units[u].dynamic_energy_j + schedule_.units[u].static_energy_j;
  }
  for (const ir::Memory& m : hw_.memories)
    energy += m.static_power_w * makespan;
  add_collective_traffic();
  schedule_.makespan_s = makespan;
  schedule_.energy_j = energy;
  summarise_loads(schedule_, hw_);
}

// Collectives hold no link in this schedule (their closed form is their op's time); their sends' bytes
// and busy time still count in the link totals, as the replay's links count their chunks.
void ListScheduler::add_collective_traffic() {
  for (std::size_t i = 0; i < schedule_.ops.size(); ++i) {
    const ir::Op& op = graph_.ops[i];
    const int unit = schedule_.ops[i].unit;
    if (!ir::is_collective(op.op_class) || unit < 0) continue;
    const ir::CollectiveCost* c = sg_.collective_cost(static_cast<ir::OpId>(i), unit);
    if (!c) continue; // a stacked graph given directly (from_parts) has no closed forms
    for (std::size_t l = 0; l < hw_.links.size(); ++l) {
      schedule_.link_bytes[l] += static_cast<std::uint64_t>(std::llround(c->link_bytes[l]));
      schedule_.link_busy_s[l] += c->link_busy_s[l];
    }
  }
}

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
  for (; op >= 0; op = binding[op])
    path.push_back(op);
  return path;
}

} // namespace lightsim::sched
