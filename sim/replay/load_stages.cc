// The replay's load stages (latency hiding): one sched::LoadStage per unit that has one, driven by the same
// rules as the list scheduler's. A load sends the op's streamed weights one after the other, each hop by
// hop on the Link modules (sharing them with every other transfer); the op becomes ready when the last has
// arrived and its data inputs are there. Its buffers are freed when it ends.
#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"
#include "sim/replay/dispatcher.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace lightsim::sim::detail {

// The program of each unit with a load stage: its ops in the predicted schedule's load order when there is
// one (the list scheduler's), else in op order (both topological).
void Dispatcher::init_load_stages() {
  const std::size_t n = graph_.ops.size();
  load_pending_.assign(n, 0);
  load_sent_.assign(n, 0);
  fetched_.assign(in_res_.data.size(), 0);
  fetches_in_flight_.assign(n, 0);
  spill_requests_.resize(hw_.units.size());
  deferred_.resize(n);
  SC_METHOD(spill_fetches_done);
  sensitive << fetch_event_;
  dont_initialize();
  for (std::size_t op = 0; op < n; ++op)
    load_pending_[op] = loads_.bytes[op] > 0;
  stages_.resize(hw_.units.size());
  // (load order, op) per unit with a load stage, in one pass; sorted, ties in op order.
  std::vector<std::vector<std::pair<int, ir::OpId>>> keyed(hw_.units.size());
  bool any = false;
  for (std::size_t u = 0; u < hw_.units.size(); ++u)
    any = any || ir::has_load_stage(hw_.units[u]);
  if (!any) return;
  const sched::Schedule* predicted = options_.predicted;
  for (std::size_t op = 0; op < n; ++op) {
    const auto u = static_cast<std::size_t>(unit_of_[op]);
    if (graph_.ops[op].op_class == ir::OpClass::Input || !ir::has_load_stage(hw_.units[u])) continue;
    keyed[u].emplace_back(predicted ? predicted->ops[op].load_order : -1, static_cast<ir::OpId>(op));
  }
  for (std::size_t u = 0; u < hw_.units.size(); ++u) {
    if (!ir::has_load_stage(hw_.units[u])) continue;
    std::vector<ir::OpId> program(keyed[u].size(), -1);
    // The list scheduler numbers each unit's program 0, 1, ...: place each op at its number; any other
    // numbering (or none) is sorted.
    bool placed = predicted != nullptr;
    for (const auto& [order, op] : keyed[u]) {
      if (!placed) break;
      placed = order >= 0 && static_cast<std::size_t>(order) < program.size() && program[order] < 0;
      if (placed) program[order] = op;
    }
    if (!placed) {
      std::sort(keyed[u].begin(), keyed[u].end());
      for (std::size_t i = 0; i < program.size(); ++i)
        program[i] = keyed[u][i].second;
    }
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
  if (!stages_[unit] || issue_spill_fetch(unit)) return;
  sched::LoadStage& stage = *stages_[unit];
  const std::size_t from = stage.cursor();
  stage.pump([&](ir::OpId op) { return loads_.bytes[op]; },
             [&](ir::OpId op, double bytes) {
               note_load(op, bytes);
               send_load(op);
             });
  // The fetches deferred for the ops it passed join the requests (served when the engine is idle).
  bool deferred = false;
  for (std::size_t i = from; i < stage.cursor(); ++i) {
    const ir::OpId op = stage.program()[i];
    for (std::uint32_t k : deferred_[op])
      spill_requests_[unit].push_back({op, k});
    deferred = deferred || !deferred_[op].empty();
    deferred_[op] = {};
  }
  if (deferred) issue_spill_fetch(unit);
}

void Dispatcher::note_load(ir::OpId op, double bytes) {
  sched::ScheduledOp& s = out_.ops[op];
  if (s.load_bytes == 0) s.load_start_s = ps_to_s(now_ps());
  s.load_bytes += bytes;
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
  out_.ops[op].load_end_s = std::max(out_.ops[op].load_end_s, ps_to_s(now_ps()));
  load_pending_[op] = 0;
  const int unit = unit_of_[op];
  stages_[unit]->arrived();
  if (ready_to_issue(op)) {
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

// Spilled activations. An input that arrives in a spill memory (its SRAM was full) while its consumer still
// waits for other inputs is worth fetching ahead: the request joins the unit's queue, which its load
// stage serves before its program, when its engine is idle, and only into buffers free at that moment (a
// fetch never waits for buffers). A fetch holds its buffers until its consumer ends, so it is only issued
// for a consumer the program has passed: a request for one it has not reached waits (in deferred_) until
// it has. (Fetched at once, it could hold the buffers that the load of an op before its consumer in the
// program needs, while the consumer waits for that op's output, or for its own load behind it: a
// deadlock. scheduler/load_stage.h says why the rule excludes every deadlock.) A request whose consumer
// has meanwhile started or become ready, or that finds no free buffer, is dropped: the consumer then reads
// the input from the spill memory as it runs, as without latency hiding. The fetch takes the spill
// memory's access time for the bytes the consumer reads; the consumer waits for it and then reads the
// input from its buffers at its own memory's speed.
void Dispatcher::request_spill_fetch(ir::OpId op, ir::TensorId t) {
  const int unit = unit_of_[op];
  if (!stages_[unit]) return;
  const auto ins = inputs_.row(op);
  const auto k = static_cast<std::uint32_t>(std::find(ins.begin(), ins.end(), t) - ins.begin());
  const Residency& r = residency_of_input(op, k);
  if (r.placed == r.memory || r.placed < 0) return; // resident where it should be
  if (!stages_[unit]->passed(op)) {
    deferred_[op].push_back(k);
    return;
  }
  spill_requests_[unit].push_back({op, k});
  pump(unit);
}

bool Dispatcher::issue_spill_fetch(int unit) {
  auto& requests = spill_requests_[unit];
  sched::LoadStage& stage = *stages_[unit];
  while (stage.idle() && !requests.empty()) {
    const SpillFetch f = requests.front();
    requests.pop_front();
    if (out_.ops[f.op].lane >= 0 || pending_[f.op] == 0) continue; // started, or ready: no time to win
    const ir::TensorId t = inputs_.row(f.op)[f.input];
    const auto bytes = static_cast<double>(ir::bytes_read_from(graph_, graph_.ops[f.op], t));
    if (bytes <= 0 || !stage.issue_aside(f.op, bytes)) continue; // no free buffer: read it as it runs
    note_load(f.op, bytes);
    ++fetches_in_flight_[f.op];
    const Residency& r = residency_of_input(f.op, f.input);
    const std::uint64_t now = now_ps();
    fetch_heap_.push_back({now + ns_to_ps(access_ns(hw_.memories[r.placed], bytes)), fetch_seq_++, f});
    std::push_heap(fetch_heap_.begin(), fetch_heap_.end(), std::greater<>());
    fetch_event_.notify(sc_core::sc_time::from_value(fetch_heap_.front().end_ps - now));
    return true;
  }
  return false;
}

void Dispatcher::spill_fetches_done() {
  const std::uint64_t now = now_ps();
  while (!fetch_heap_.empty() && fetch_heap_.front().end_ps <= now) {
    std::pop_heap(fetch_heap_.begin(), fetch_heap_.end(), std::greater<>());
    const SpillFetch f = fetch_heap_.back().fetch;
    fetch_heap_.pop_back();
    fetched_[in_res_.begin[f.op] + f.input] = 1;
    --fetches_in_flight_[f.op];
    out_.ops[f.op].load_end_s = std::max(out_.ops[f.op].load_end_s, ps_to_s(now));
    const int unit = unit_of_[f.op];
    stages_[unit]->arrived();
    if (ready_to_issue(f.op)) {
      make_ready(f.op);
      request_dispatch(unit);
    }
    pump(unit);
  }
  if (!fetch_heap_.empty())
    fetch_event_.notify(sc_core::sc_time::from_value(fetch_heap_.front().end_ps - now));
}

} // namespace lightsim::sim::detail
