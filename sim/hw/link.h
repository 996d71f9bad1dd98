// Link: one PCIe link, on-chip bus or NVLink between two memories, or between several through a switch,
// from ir::Link. Each sending port (for two ends: each direction) carries its own traffic at bandwidth_GBps.
// A transfer of N payload bytes puts wire bytes = N + ceil(N / max_payload) x header on the wire (PCIe TLP
// packetisation; a bus has max_payload 0: no headers); transfers in flight from one port share its bandwidth
// equally, recomputed at every arrival and departure (FairShare: packet round robin in the fluid limit); the
// last byte reaches the far end latency_ns later. Energy: wire bytes x energy_pj_per_byte + packets x
// energy_pj_per_packet (ir::TransferModel::link_energy_j).
//
// It is not a router: a multi-hop route is a sequence of sends issued by the replay (store and forward).
#pragma once

#include "scheduler/fair_share.h"
#include "sim/hw/interfaces.h"
#include "sim/hw/slot_pool.h"

#include <cstdint>
#include <deque>
#include <systemc>
#include <utility>
#include <vector>

namespace lightsim::sim {

class Link : public sc_core::sc_module, public LinkIf {
public:
  sc_core::sc_export<LinkIf> target;
  sc_core::sc_port<HopDoneIf> done;

  SC_HAS_PROCESS(Link);
  Link(sc_core::sc_module_name name, const ir::Link& params);

  // Timing of one transfer alone on the link (pure functions of the config).
  double wire_bytes(std::uint64_t bytes) const;
  double transfer_ns(std::uint64_t bytes) const; // latency + wire bytes / bandwidth
  double energy_j(std::uint64_t bytes) const;    // per wire byte and per packet

  void send(std::uint64_t token, std::uint64_t bytes, int port, double occupancy) override;

  const ir::Link& params() const { return params_; }
  std::uint64_t payload_bytes() const { return payload_bytes_; }
  double busy_s() const { return busy_ps_ * 1e-12; } // time with data on the wire, any port

private:
  struct Slot {
    std::uint64_t token;
    double energy_j;
  };
  void settle(std::uint64_t now_ps); // serves both directions up to now, queues finished for delivery
  void rearm(std::uint64_t now_ps);
  void serve();   // SC_METHOD: a flow may have finished
  void deliver(); // SC_METHOD: the last byte of a transfer reached the far end

  ir::Link params_;
  std::uint64_t latency_ps_;
  std::vector<sched::FairShare> ports_; // per sending endpoint
  SlotPool<Slot> slots_;
  std::vector<std::uint64_t> finished_;
  std::deque<std::pair<std::uint64_t, std::uint64_t>> in_flight_; // (arrival ps, slot), FIFO
  sc_core::sc_event serve_event_{"serve_event"}, deliver_event_{"deliver_event"};
  std::uint64_t payload_bytes_ = 0, last_ps_ = 0;
  double busy_ps_ = 0;
};

} // namespace lightsim::sim
