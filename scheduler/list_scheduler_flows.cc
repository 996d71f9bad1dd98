// ListScheduler's flows (scheduler/list_scheduler_impl.h): the shared memory ports of units that run ops
// concurrently, the links' hops, and the units' load stages.
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "scheduler/list_scheduler_impl.h"

#include <algorithm>

namespace lightsim::sched {

void ListScheduler::start_port_flow(std::size_t port, ir::OpId op, double bytes, int flows, double body_s,
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

void ListScheduler::serve_port(std::size_t port, std::uint64_t now_ps) {
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

void ListScheduler::arm(const std::vector<FairShare>& flows, std::vector<std::uint64_t>& event_seq,
                        std::vector<std::uint64_t>& event_ps, std::size_t i, Event kind) {
  const std::optional<std::uint64_t> next = flows[i].next_completion_ps();
  if (!next) return;
  event_seq[i] = seq_;
  event_ps[i] = *next;
  push(to_s(*next), kind, static_cast<ir::OpId>(i));
}

bool ListScheduler::start_on_shared_port(std::size_t u, ir::OpId op, double duration, double now) {
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

std::size_t ListScheduler::send(ir::TensorId t, ir::OpId producer, ir::OpId consumer, int src, int dst,
                                double now, bool load) {
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

void ListScheduler::start_hop(std::size_t token) {
  TransferInFlight& f = transfers_in_flight_[token];
  ScheduledTransfer& tr = schedule_.transfers[f.transfer];
  const int l = tr.links[f.hop];
  const ir::Link& link = hw_.links[static_cast<std::size_t>(l)];
  const ir::Route& route = sg_.transfers().route(tr.src_memory, tr.dst_memory);
  const int from = route.memories[f.hop], copies = route.copies[f.hop]; // a shard's peers' copies share it
  const std::size_t dir =
      first_port_[static_cast<std::size_t>(l)] + static_cast<std::size_t>(ir::link_port(link, from));
  const ir::Cost hop = ir::TransferModel::link_cost(link, tr.bytes, copies);
  tr.hop_start_s.push_back(to_s(f.at_ps));
  tr.energy_j += hop.energy_j;
  schedule_.link_bytes[static_cast<std::size_t>(l)] += tr.bytes;
  schedule_.link_busy_s[static_cast<std::size_t>(l)] += hop.time_s;
  serve_link(dir, f.at_ps);
  link_dirs_[dir].add(token, copies * ir::TransferModel::wire_bytes(link, tr.bytes), f.at_ps);
  arm_link(dir);
}

void ListScheduler::serve_link(std::size_t dir, std::uint64_t now_ps) {
  link_finished_.clear();
  link_dirs_[dir].advance(now_ps, link_finished_);
  const std::uint64_t latency_ps = to_ps(hw_.links[port_link_[dir]].latency_ns * 1e-9);
  for (std::uint64_t token : link_finished_) {
    transfers_in_flight_[token].at_ps = now_ps + latency_ps;
    push(to_s(now_ps + latency_ps), Event::Arrive, static_cast<ir::OpId>(token));
  }
  arm_link(dir);
}

void ListScheduler::hop_arrived(std::size_t token) {
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

void ListScheduler::init_load_stages() {
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

void ListScheduler::pump(std::size_t u, double now, ir::OpId freed_by) {
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

void ListScheduler::send_load_tensor(ir::OpId op, double now) {
  const ir::TensorId tensor = loads_.tensors[op][load_sent_[op]++];
  const ir::OpId weight = graph_.tensors[tensor].producer;
  send(tensor, weight, op, memory_of(weight), memory_of(op), now, true);
}

void ListScheduler::release_buffers(ir::OpId op, double now) {
  const auto u = static_cast<std::size_t>(schedule_.ops[op].unit);
  if (!stages_[u]) return;
  stages_[u]->release(op);
  pump(u, now, op);
}

void ListScheduler::load_tensor_arrived(ir::OpId op, double now) {
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

} // namespace lightsim::sched
