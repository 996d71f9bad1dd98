#include "sim/hw/link.h"

#include "ir/hardware/transfer.h"
#include "sim/hw/sim_time.h"

#include <algorithm>
#include <cmath>

namespace lightsim::sim {

Link::Link(sc_core::sc_module_name name, const ir::Link& params)
    : sc_core::sc_module(name), target("target"), done("done"), params_(params),
      latency_ps_(ns_to_ps(params.latency_ns)),
      ports_(params.endpoints.size(), sched::FairShare(params.bandwidth_GBps * 1e-3)) {
  target.bind(*this);
  SC_METHOD(serve);
  sensitive << serve_event_;
  dont_initialize();
  SC_METHOD(deliver);
  sensitive << deliver_event_;
  dont_initialize();
}

double Link::wire_bytes(std::uint64_t bytes) const {
  return ir::TransferModel::wire_bytes(params_, bytes);
}

double Link::transfer_ns(std::uint64_t bytes) const {
  return params_.latency_ns + wire_bytes(bytes) / params_.bandwidth_GBps;
}

double Link::energy_j(std::uint64_t bytes) const {
  return ir::TransferModel::link_energy_j(params_, bytes);
}

void Link::send(std::uint64_t token, std::uint64_t bytes, int port, double occupancy) {
  const std::uint64_t now = now_ps();
  settle(now);
  const std::uint64_t slot = slots_.acquire({token, energy_j(bytes)});
  payload_bytes_ += bytes;
  ports_[static_cast<std::size_t>(port)].add(slot, occupancy * wire_bytes(bytes), now);
  rearm(now);
}

void Link::settle(std::uint64_t now_ps) {
  if (std::any_of(ports_.begin(), ports_.end(), [](const sched::FairShare& p) { return p.active() > 0; }))
    busy_ps_ += static_cast<double>(now_ps - last_ps_);
  last_ps_ = now_ps;
  finished_.clear();
  for (sched::FairShare& p : ports_)
    p.advance(now_ps, finished_);
  for (std::uint64_t slot : finished_) {
    if (in_flight_.empty()) deliver_event_.notify(sc_core::sc_time::from_value(latency_ps_));
    in_flight_.emplace_back(now_ps + latency_ps_, slot);
  }
}

void Link::rearm(std::uint64_t now_ps) {
  std::optional<std::uint64_t> next;
  for (const sched::FairShare& d : ports_) {
    std::optional<std::uint64_t> t = d.next_completion_ps();
    if (t && (!next || *t < *next)) next = t;
  }
  if (next) serve_event_.notify(sc_core::sc_time::from_value(std::max(*next, now_ps) - now_ps));
}

void Link::serve() {
  const std::uint64_t now = now_ps();
  settle(now);
  rearm(now);
}

void Link::deliver() {
  const std::uint64_t now = now_ps();
  while (!in_flight_.empty() && in_flight_.front().first <= now) {
    const std::uint64_t slot = in_flight_.front().second;
    in_flight_.pop_front();
    slots_.release(slot);
    done->hop_done(slots_[slot].token, slots_[slot].energy_j);
  }
  if (!in_flight_.empty())
    deliver_event_.notify(sc_core::sc_time::from_value(in_flight_.front().first - now));
}

} // namespace lightsim::sim
