// The replay's load stages (latency hiding): one sched::LoadStage per unit that has one, driven by the same
// rules as the list scheduler's. A load sends the op's streamed weights one after the other, each hop by
// hop on the Link modules (sharing them with every other transfer); the op becomes ready when the last has
// arrived and its data inputs are there. Its buffers are freed when it ends.
#include "sim/hw/sim_time.h"
#include "sim/replay/dispatcher.h"

#include <algorithm>

namespace lightsim::sim::detail {

// The program of each unit with a load stage: its ops in the predicted schedule's load order when there is
// one (the list scheduler's), else in op order (both topological).
void Dispatcher::init_load_stages() {
  const std::size_t n = graph_.ops.size();
  load_pending_.assign(n, 0);
  load_sent_.assign(n, 0);
  for (std::size_t op = 0; op < n; ++op)
    load_pending_[op] = loads_.bytes[op] > 0;
  stages_.resize(hw_.units.size());
  for (std::size_t u = 0; u < hw_.units.size(); ++u) {
    if (!ir::has_load_stage(hw_.units[u])) continue;
    std::vector<ir::OpId> program;
    for (std::size_t op = 0; op < n; ++op)
      if (unit_of_[op] == static_cast<int>(u) && graph_.ops[op].op_class != ir::OpClass::Input)
        program.push_back(static_cast<ir::OpId>(op));
    const sched::Schedule* predicted = options_.predicted;
    auto order = [&](ir::OpId op) { return predicted ? predicted->ops[op].load_order : -1; };
    std::stable_sort(program.begin(), program.end(),
                     [&](ir::OpId a, ir::OpId b) { return order(a) < order(b); });
    for (std::size_t i = 0; i < program.size(); ++i)
      out_.ops[program[i]].load_order = static_cast<int>(i);
    stages_[u].emplace(hw_.units[u].prefetch, std::move(program));
  }
}

// The prefetch buffers are reserved in their unit's memory for the whole run.
void Dispatcher::reserve_prefetch_buffers() {
  for (const ir::Unit& u : hw_.units)
    if (ir::has_load_stage(u)) machine_->memory(u.memory).allocate(ir::prefetch_reserved_bytes(u));
}

void Dispatcher::pump(int unit) {
  if (!stages_[unit]) return;
  stages_[unit]->pump([&](ir::OpId op) { return loads_.bytes[op]; },
                      [&](ir::OpId op, double bytes) {
                        out_.ops[op].load_bytes = bytes;
                        out_.ops[op].load_start_s = ps_to_s(now_ps());
                        send_load(op);
                      });
}

// Sends the next weight of op's load (after the previous one arrived), or completes the load.
void Dispatcher::send_load(ir::OpId op) {
  const std::vector<ir::TensorId>& weights = loads_.tensors[op];
  if (load_sent_[op] == weights.size()) {
    load_arrived(op);
    return;
  }
  const ir::TensorId t = weights[load_sent_[op]++];
  const auto token = static_cast<std::uint64_t>(transfers.size());
  transfers.push_back({t, op_mem_[op], op, &tm_.route(home_[t].memory, op_mem_[op])});
  Transfer& tr = transfers.back();
  tr.load = true;
  tr.start_ps = now_ps();
  send_hop(token);
}

void Dispatcher::load_arrived(ir::OpId op) {
  out_.ops[op].load_end_s = ps_to_s(now_ps());
  load_pending_[op] = 0;
  const int unit = unit_of_[op];
  stages_[unit]->arrived();
  if (pending_[op] == 0) {
    make_ready(op);
    request_dispatch(unit);
  }
  pump(unit);
}

void Dispatcher::release_buffers(ir::OpId op) {
  const int unit = unit_of_[op];
  if (!stages_[unit]) return;
  stages_[unit]->release(op);
  pump(unit);
}

} // namespace lightsim::sim::detail
