// CollectiveEngine: replays one collective (ir/cost/collectives.h) chunk by chunk on the machine's SystemC
// Links. The algorithm becomes a graph of point-to-point sends, each waiting for the sends whose data it
// needs (then for the protocol's step_ns) and for the earlier chunks of its connection (their slots):
// - ring: device i's send of step k waits for its own send of step k - 1 and for the chunk of step k - 1
//   from its predecessor (which it reduces or forwards); the 2D ring runs its three phases (reduce-scatter
//   in rows, all-reduce in columns, all-gather in rows) one after the other per device;
// - double binary tree (all-reduce) and broadcast (down the chain of devices): the buffer in chunks of
//   pipeline_chunk_bytes, a chunk sent on once it has arrived (reduced from the children, or from the
//   parent), at most pipeline_slots chunks in flight per connection.
// Each send goes hop by hop over its route (store and forward), sharing each link port with whatever else
// is on it at the time (several collectives may run at once), so contention is what the Links' fair
// sharing gives, not a formula.
//
// The library's bandwidth_efficiency is the share of a port's rate its copies reach: a chunk of c bytes
// goes on the wire as c / payload_fraction line bytes (LL128's flags), which the Link counts and charges
// energy for (the closed form's link energy), and holds its port as 1 / efficiency times as many would.
//
// Two ways to run it: on its own (the constructor that builds a Link per link of the machine; every
// request starts at time 0; run() simulates to the end), or inside a replay (the constructor given the
// machine's links: the replay forwards their hop_done calls for this engine's tokens, and start() begins
// the one request at the current time, the callback firing when its last chunk has arrived).
//
// It is not the closed form (that is ir::collective_cost) and does not choose an algorithm: Auto is
// resolved by the caller.
#pragma once

#include "ir/cost/collectives.h"
#include "ir/hardware/transfer.h"
#include "sim/hw/interfaces.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <systemc>
#include <vector>

namespace lightsim::sim {

class Link;

struct CollectiveReplay {
  double time_s = 0;
  double energy_j = 0;
  std::uint64_t sends = 0;
};

// One point-to-point send of a collective as it ran: from one member's memory to another's, its payload,
// when it left (its first hop went out) and when its last byte arrived (seconds of simulated time).
struct CollectiveSendRecord {
  int src_memory = -1, dst_memory = -1;
  double bytes = 0;
  double start_s = 0, end_s = 0;
};

class CollectiveEngine : public sc_core::sc_module, public HopDoneIf {
public:
  SC_HAS_PROCESS(CollectiveEngine);
  // Builds the sends of `requests` (algorithm and protocol resolved: not Auto), which all start at time 0
  // and share the machine's links, and a Link module per link. Call after fresh_simulation(); `where`
  // names the requests in errors.
  CollectiveEngine(sc_core::sc_module_name name, const ir::TransferModel& transfers,
                   const ir::CollectiveConfig& config, const std::vector<ir::CollectiveRequest>& requests,
                   const std::string& where);
  // On the machine's links (`links`, one per Hardware link once the caller's elaboration is over, each
  // calling back whoever owns it; the vector must outlive the engine): one request, started by start();
  // its sends go out as tokens token_base + 0, 1, ... Call during elaboration.
  CollectiveEngine(sc_core::sc_module_name name, const ir::TransferModel& transfers,
                   const ir::CollectiveConfig& config, const ir::CollectiveRequest& request,
                   const std::string& where, const std::vector<LinkIf*>& links, std::uint64_t token_base);
  ~CollectiveEngine() override;

  // Runs the simulation to the end (sc_start) and returns what each collective took.
  std::vector<CollectiveReplay> run();

  // Starts the request now (the second constructor); `done` gets what it took from now, once.
  void start(std::function<void(const CollectiveReplay&)> done);

  void hop_done(std::uint64_t token, double energy_j) override;

  // Every send of every request, in the order the algorithm built them, once the simulation has run.
  std::vector<CollectiveSendRecord> send_records() const;

private:
  struct Send {
    int src = -1, dst = -1;                                 // memories
    double bytes = 0;                                       // payload
    std::vector<std::pair<std::uint32_t, bool>> dependents; // (send, whether it waits a step after this)
    int waiting = 0;                                        // sends it still waits for
    std::uint64_t ready_ps = 0; // when it may go, as far as the sends it waited for say
    std::size_t hop = 0;
    std::size_t collective = 0;             // its request
    std::uint64_t start_ps = 0, end_ps = 0; // its first hop out, its arrival
  };
  void check(const ir::CollectiveRequest& request, const std::string& where) const;
  void add_request(const ir::CollectiveRequest& request);
  void add_collective(const ir::CollectiveRequest& request);
  void add_ring_phase(const std::vector<std::vector<int>>& rings, double bytes, int steps,
                      std::vector<int>& last_send_of, std::vector<int>& last_receive_of);
  std::vector<double> chunks(double bytes) const;
  void add_tree_all_reduce(int n, double bytes);
  void add_chain_broadcast(int n, double bytes);
  std::uint32_t add_send(int src, int dst, double bytes, std::initializer_list<int> data,
                         std::initializer_list<int> slot);
  void send_hop(std::uint32_t s);
  void ready(std::uint32_t s, std::uint64_t at_ps);
  void issue(); // SC_METHOD: sends whose wait is over go out

  const ir::TransferModel& transfers_;
  ir::CollectiveConfig config_;
  std::vector<ir::ProtocolParams> protocols_; // per request
  std::vector<CollectiveReplay> results_;     // per request
  std::vector<std::unique_ptr<Link>> links_;  // the first constructor's own
  std::vector<LinkIf*> own_link_if_;
  const std::vector<LinkIf*>* link_if_ = &own_link_if_; // the links sends go out on
  std::uint64_t token_base_ = 0;
  std::uint64_t start_ps_ = 0;
  std::vector<std::uint64_t> remaining_; // per request: sends not yet arrived
  std::function<void(const CollectiveReplay&)> on_done_;
  std::vector<int> memories_; // per device of the group being built
  std::vector<Send> sends_;
  std::priority_queue<std::pair<std::uint64_t, std::uint32_t>,
                      std::vector<std::pair<std::uint64_t, std::uint32_t>>,
                      std::greater<>>
      pending_; // (ready ps, send)
  sc_core::sc_event issue_event_{"issue_event"};
  std::uint64_t done_ = 0;
};

} // namespace lightsim::sim
