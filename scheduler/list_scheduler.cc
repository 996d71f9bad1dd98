#include "scheduler/list_scheduler.h"

#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "scheduler/fair_share.h"
#include "scheduler/load_stage.h"
#include "scheduler/sram_residency.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <queue>
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

class ListScheduler {
public:
  explicit ListScheduler(const FlatGraph& flat)
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

  Schedule run(std::vector<ir::OpId>* binding) {
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

private:
  // At equal times: port and link flows end first (they may complete ops or deliver hops), hops arrive,
  // completions free lanes, then readiness.
  enum class Event { PortDone = 0, LinkDone = 1, Arrive = 2, Complete = 3, Ready = 4 };

  void push(double time, Event kind, ir::OpId op) { events_.push({time, kind, seq_++, op}); }

  static std::uint64_t to_ps(double s) { return static_cast<std::uint64_t>(std::llround(s * 1e12)); }
  static double to_s(std::uint64_t ps) { return static_cast<double>(ps) * 1e-12; }

  // Starts op's operand bytes through a shared port at `now`, as `flows` flows (one per core). The op
  // ends at max(now + body, port done + after_port) + tail: alone it takes exactly its model time.
  void start_port_flow(std::size_t port, ir::OpId op, double bytes, int flows, double body_s,
                       double after_port_s, double tail_s, double now) {
    floor_end_s_[op] = now + body_s;
    after_port_s_[op] = after_port_s;
    tail_s_[op] = tail_s;
    flows_left_[op] = flows;
    const std::uint64_t now_ps = to_ps(now);
    serve_port(port, now_ps);
    for (int f = 0; f < flows; ++f)
      ports_[port].add(static_cast<std::uint64_t>(op), bytes / flows, now_ps);
    arm_port(port);
  }

  // Serves the port up to now_ps and schedules the completion of every op whose last flow has ended.
  void serve_port(std::size_t port, std::uint64_t now_ps) {
    port_finished_.clear();
    ports_[port].advance(now_ps, port_finished_);
    for (std::uint64_t token : port_finished_) {
      const auto op = static_cast<ir::OpId>(token);
      if (--flows_left_[op] > 0) continue;
      ScheduledOp& s = schedule_.ops[op];
      s.end_s = std::max(floor_end_s_[op], to_s(now_ps) + after_port_s_[op]) + tail_s_[op];
      push(s.end_s, Event::Complete, op);
    }
    arm_port(port);
  }

  // An event of `kind` for the next flow completion of flows[i] (a memory port, or a link's sending port);
  // earlier ones for it become stale (their sequence number is no longer event_seq[i]).
  void arm(const std::vector<FairShare>& flows, std::vector<std::uint64_t>& event_seq,
           std::vector<std::uint64_t>& event_ps, std::size_t i, Event kind) {
    const std::optional<std::uint64_t> next = flows[i].next_completion_ps();
    if (!next) return;
    event_seq[i] = seq_;
    event_ps[i] = *next;
    push(to_s(*next), kind, static_cast<ir::OpId>(i));
  }
  void arm_port(std::size_t port) { arm(ports_, port_event_seq_, port_event_ps_, port, Event::PortDone); }

  // Starts op on a unit whose ops in flight share ports: its operand bytes stream through the shared port
  // its kind says (UnitKind::port_flow), as the unit's module streams them. False when it shares nothing.
  bool start_on_shared_port(std::size_t u, ir::OpId op, double duration, double now) {
    const ir::Unit& unit = hw_.units[u];
    const ir::Op& desc = graph_.ops[op];
    if (port_of_[u].empty() || desc.op_class == ir::OpClass::Nop) return false;
    const double operand_bytes = ir::feature_value(ir::Feature::OperandBytes, desc.features, unit);
    const std::optional<ir::PortFlow> flow = unit.kind->port_flow(unit, desc.features, operand_bytes);
    if (!flow || flow->port < 0 || static_cast<std::size_t>(flow->port) >= port_of_[u].size()) return false;
    const int port = port_of_[u][static_cast<std::size_t>(flow->port)];
    if (port < 0 || flow->bytes <= 0 || flow->memory_ns <= 0) return false;
    const double tail = std::min(duration, flow->fixed_ns * 1e-9);
    const double body = duration - tail;
    const double memory = flow->memory_ns * 1e-9;
    if (body <= 0) return false;
    // Never more than the port moves in `body` alone, so that an op alone keeps its model time. An op that
    // computes after its stream (a GEMM packs first) follows the port with the rest of its body; other ops
    // overlap the two.
    const double scale = std::min(1.0, body / memory);
    const double after_port = flow->compute_after ? body - memory * scale : 0.0;
    start_port_flow(static_cast<std::size_t>(port), op, flow->bytes * scale, flow->flows, body, after_port,
                    tail, now);
    return true;
  }

  int memory_of(ir::OpId op) const { return hw_.units[flat_.unit_of(op)].memory; }

  // Sends tensor t from `src` memory to `dst` memory at `now`, hop by hop (store and forward); returns the
  // transfer's token. Each hop is a flow of its wire bytes through its link's sending port, which the flows
  // in flight share equally (FairShare, as sim/hw/link.h); the hop arrives latency_ns after its last byte
  // left, and the next hop starts then. The consumers waiting for it are added by the caller.
  // `load`: fetched by the consumer's load stage (ScheduledTransfer::load).
  std::size_t send(ir::TensorId t, ir::OpId producer, ir::OpId consumer, int src, int dst, double now,
                   bool load = false) {
    ScheduledTransfer tr;
    tr.load = load;
    tr.tensor = t;
    tr.src_op = producer;
    tr.dst_op = consumer;
    tr.src_memory = src;
    tr.dst_memory = dst;
    tr.bytes = graph_.tensors[t].bytes;
    tr.links = sg_.transfers().route(src, dst).links;
    tr.start_s = now;
    schedule_.transfers.push_back(std::move(tr));
    transfers_in_flight_.push_back({schedule_.transfers.size() - 1, 0, to_ps(now), {}, load ? consumer : -1});
    start_hop(transfers_in_flight_.size() - 1);
    return transfers_in_flight_.size() - 1;
  }

  void start_hop(std::size_t token) {
    TransferInFlight& f = transfers_in_flight_[token];
    ScheduledTransfer& tr = schedule_.transfers[f.transfer];
    const int l = tr.links[f.hop];
    const ir::Link& link = hw_.links[static_cast<std::size_t>(l)];
    const int from = sg_.transfers().route(tr.src_memory, tr.dst_memory).memories[f.hop];
    const std::size_t dir =
        first_port_[static_cast<std::size_t>(l)] + static_cast<std::size_t>(ir::link_port(link, from));
    const ir::Cost hop = ir::TransferModel::link_cost(link, tr.bytes);
    tr.hop_start_s.push_back(to_s(f.at_ps));
    tr.energy_j += hop.energy_j;
    schedule_.link_bytes[static_cast<std::size_t>(l)] += tr.bytes;
    schedule_.link_busy_s[static_cast<std::size_t>(l)] += hop.time_s;
    serve_link(dir, f.at_ps);
    link_dirs_[dir].add(token, ir::TransferModel::wire_bytes(link, tr.bytes), f.at_ps);
    arm_link(dir);
  }

  // Serves a link port up to now_ps; every hop whose last byte has left arrives latency_ns later.
  void serve_link(std::size_t dir, std::uint64_t now_ps) {
    link_finished_.clear();
    link_dirs_[dir].advance(now_ps, link_finished_);
    const std::uint64_t latency_ps = to_ps(hw_.links[port_link_[dir]].latency_ns * 1e-9);
    for (std::uint64_t token : link_finished_) {
      transfers_in_flight_[token].at_ps = now_ps + latency_ps;
      push(to_s(now_ps + latency_ps), Event::Arrive, static_cast<ir::OpId>(token));
    }
    arm_link(dir);
  }

  void arm_link(std::size_t dir) { arm(link_dirs_, link_event_seq_, link_event_ps_, dir, Event::LinkDone); }

  // A hop reached the far end of its link: the next hop starts, or the tensor has arrived.
  void hop_arrived(std::size_t token) {
    TransferInFlight& f = transfers_in_flight_[token];
    ScheduledTransfer& tr = schedule_.transfers[f.transfer];
    const double now = to_s(f.at_ps);
    tr.hop_end_s.push_back(now);
    if (++f.hop < tr.links.size()) {
      start_hop(token);
      return;
    }
    tr.end_s = now;
    if (residency_) residency_->transfer_ended(tr.tensor);
    if (f.load_op >= 0) {
      load_tensor_arrived(f.load_op, now);
      return;
    }
    for (ir::OpId consumer : f.consumers)
      input_arrived(consumer, tr.src_op, now);
  }

  // One input edge of `op` (from `producer`) is in op's memory at `arrival`.
  void input_arrived(ir::OpId op, ir::OpId producer, double arrival) {
    data_ready_at_[op] = std::max(data_ready_at_[op], arrival);
    if (arrival > ready_at_[op] || ready_by_[op] < 0) {
      ready_at_[op] = std::max(ready_at_[op], arrival);
      ready_by_[op] = producer;
    }
    if (--missing_[op] == 0) push(ready_at_[op], Event::Ready, op);
  }

  void complete(ir::OpId op, double now) {
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

  // Starts ready ops on unit u while it has room: at most max_in_flight_ ops, each on its op_lanes_
  // lowest free lanes; an op that needs more lanes than are free waits, and so do those behind it.
  void dispatch(double now) {
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

  // The ops dispatch just put on unit u's lanes begin: with SRAMs that spill, their outputs are allocated in
  // op order (as the replay starts the ops of one instant), and an op pays what it reads or writes in a
  // spill memory on top of its model time.
  void start_ops(std::size_t u, double now) {
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

  void finish() {
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
    schedule_.makespan_s = makespan;
    schedule_.energy_j = energy;
    summarise_loads(schedule_, hw_);
  }

  // ---- Load stages (scheduler/load_stage.h): streamed weights fetched ahead of their consumers ----

  // Which weights each op's load fetches, and per unit with a load stage its program: the unit's ops in
  // order of upward rank, highest first, ties by op id (the dispatch priority; a topological order, as a
  // producer's rank is at least its consumer's). An op with a load waits for it as for one more input.
  void init_load_stages() {
    std::vector<int> units(sg_.num_stacks());
    for (std::size_t op = 0; op < units.size(); ++op)
      units[op] = flat_.unit_of(static_cast<ir::OpId>(op));
    loads_ = plan_loads(graph_, hw_, units);
    for (const ir::StackEdge& e : sg_.edges())
      if (loads_.fetches(e.dst, e.tensor)) --missing_[e.dst];
    stages_.resize(hw_.units.size());
    load_freed_by_.assign(sg_.num_stacks(), -1);
    load_sent_.assign(sg_.num_stacks(), 0);
    for (std::size_t u = 0; u < hw_.units.size(); ++u) {
      if (!ir::has_load_stage(hw_.units[u])) continue;
      std::vector<ir::OpId> program;
      for (std::size_t op = 0; op < units.size(); ++op)
        if (units[op] == static_cast<int>(u) && graph_.ops[op].op_class != ir::OpClass::Input)
          program.push_back(static_cast<ir::OpId>(op));
      std::sort(program.begin(), program.end(),
                [&](ir::OpId a, ir::OpId b) { return rank_[a] != rank_[b] ? rank_[a] > rank_[b] : a < b; });
      for (std::size_t i = 0; i < program.size(); ++i)
        schedule_.ops[program[i]].load_order = static_cast<int>(i);
      stages_[u].emplace(hw_.units[u].prefetch, std::move(program));
    }
    for (std::size_t op = 0; op < units.size(); ++op)
      missing_[op] += loads_.bytes[op] > 0;
    for (std::size_t u = 0; u < stages_.size(); ++u)
      pump(u, 0.0, -1);
  }

  // Issues the unit's next load if its buffers allow: its weights one after the other over their routes.
  // `freed_by`: the op whose end freed the buffers, if that is what let it issue (the critical path).
  void pump(std::size_t u, double now, ir::OpId freed_by) {
    if (!stages_[u]) return;
    stages_[u]->pump([&](ir::OpId op) { return loads_.bytes[op]; },
                     [&](ir::OpId op, double bytes) {
                       ScheduledOp& s = schedule_.ops[op];
                       s.load_bytes = bytes;
                       s.load_start_s = now;
                       load_freed_by_[op] = freed_by;
                       send_load_tensor(op, now);
                     });
  }

  // The next weight of op's load leaves its home memory at `now`.
  void send_load_tensor(ir::OpId op, double now) {
    const ir::TensorId tensor = loads_.tensors[op][load_sent_[op]++];
    const ir::OpId weight = graph_.tensors[tensor].producer;
    send(tensor, weight, op, memory_of(weight), memory_of(op), now, true);
  }

  void release_buffers(ir::OpId op, double now) {
    const auto u = static_cast<std::size_t>(schedule_.ops[op].unit);
    if (!stages_[u]) return;
    stages_[u]->release(op);
    pump(u, now, op);
  }

  // A weight of op's load has arrived: the next one leaves, or the load is complete: one input fewer to
  // wait for, and the stage takes its next load.
  void load_tensor_arrived(ir::OpId op, double now) {
    if (load_sent_[op] < loads_.tensors[op].size()) {
      send_load_tensor(op, now);
      return;
    }
    schedule_.ops[op].load_end_s = now;
    const auto u = static_cast<std::size_t>(schedule_.ops[op].unit);
    stages_[u]->arrived();
    if (now > ready_at_[op] || ready_by_[op] < 0) {
      ready_at_[op] = std::max(ready_at_[op], now);
      ready_by_[op] =
          load_freed_by_[op] >= 0 ? load_freed_by_[op] : graph_.tensors[loads_.tensors[op][0]].producer;
    }
    if (--missing_[op] == 0) push(ready_at_[op], Event::Ready, op);
    pump(u, now, -1);
  }

  const FlatGraph& flat_;
  const ir::StackedGraph& sg_;
  const ir::Graph& graph_;
  const ir::Hardware& hw_;
  const std::vector<double> rank_;
  Schedule schedule_;
  // (time, kind, sequence, op): earliest first, then completions, then issue order.
  using EventEntry = std::tuple<double, Event, std::uint64_t, ir::OpId>;
  std::priority_queue<EventEntry, std::vector<EventEntry>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  std::vector<std::priority_queue<std::pair<double, ir::OpId>>> ready_; // per unit: (rank, -op)
  std::vector<std::vector<bool>> lane_busy_;
  std::vector<std::vector<ir::OpId>> lane_last_;
  struct TransferInFlight {
    std::size_t transfer;            // index in schedule_.transfers
    std::size_t hop;                 // the link of the route it is on
    std::uint64_t at_ps;             // when the current hop started / arrived
    std::vector<ir::OpId> consumers; // ops waiting for it in the destination memory
    ir::OpId load_op = -1;           // for a load: the op whose load stage fetches it
  };
  std::vector<TransferInFlight> transfers_in_flight_; // per transfer token
  std::vector<FairShare> link_dirs_;                  // per sending port of a link (first_port_[link] + port)
  std::vector<std::size_t> first_port_;               // per link: its first entry in link_dirs_
  std::vector<std::size_t> port_link_;                // per entry of link_dirs_: its link
  std::vector<std::uint64_t> link_event_seq_, link_event_ps_; // per link port: its live LinkDone
  std::vector<std::uint64_t> link_finished_;
  std::vector<int> missing_;     // per op: input edges not yet arrived
  std::vector<double> ready_at_; // per op: latest input arrival so far
  std::vector<ir::OpId> ready_by_;
  std::vector<ir::OpId> binding_;
  std::vector<int> in_flight_, max_in_flight_; // per unit: ops running, and the most it runs at once
  std::vector<int> op_lanes_;                  // per op: lanes (cores) it holds
  std::vector<std::vector<int>> extra_lanes_;  // per op held on several lanes: those beyond its first
  std::vector<FairShare> ports_;               // shared ports of CPUs that run ops concurrently
  std::vector<std::vector<int>> port_of_;      // per unit, per shared port of its kind: into ports_ or -1
  std::vector<std::uint64_t> port_event_seq_;  // per port: the sequence number of its live PortDone
  std::vector<std::uint64_t> port_event_ps_;   // per port: its time in ps (seconds may not round-trip)
  std::vector<std::uint64_t> port_finished_;
  // Per op on a port: earliest end before the tail, time after its flows end, the tail, flows in flight.
  std::vector<double> floor_end_s_, after_port_s_, tail_s_;
  std::vector<int> flows_left_;
  std::vector<double> data_ready_at_; // per op: latest data input arrival (its load apart)
  LoadPlan loads_;
  std::vector<std::optional<LoadStage>> stages_; // per unit with a load stage
  std::vector<ir::OpId> load_freed_by_;          // per op: the op whose end let its load issue, or -1
  std::vector<std::size_t> load_sent_;           // per op: weights of its load sent so far
  std::optional<SramResidency> residency_;       // only where an SRAM can spill
  std::vector<ir::OpId> started_;                // the ops one dispatch of a unit started
  std::vector<double> start_extra_s_;            // start_ops' buffers: per started op its spill time,
  std::vector<std::size_t> start_order_;         // and the started ops in op order
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
  for (; op >= 0; op = binding[op])
    path.push_back(op);
  return path;
}

} // namespace lightsim::sched
