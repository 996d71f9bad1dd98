// Dispatcher: the replay's SystemC module (sim/replay/replay.h says what it does). Internal to
// sim/replay: dispatcher.cc issues ops and transfers, load_stages.cc drives the units' load stages
// (latency hiding, scheduler/load_stage.h), replay.cc runs the simulation and collects the Schedule.
//
// It is not a public interface: include sim/replay/replay.h.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/transfer.h"
#include "scheduler/load_stage.h"
#include "scheduler/schedule.h"
#include "sim/hw/collective_engine.h"
#include "sim/hw/interfaces.h"
#include "sim/hw/machine.h"
#include "sim/replay/replay.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <systemc>
#include <utility>
#include <vector>

namespace lightsim::sim::detail {

// Compressed rows: row i is data[begin[i] .. begin[i+1]).
struct Rows {
  std::vector<std::uint32_t> begin{0};
  std::vector<std::int32_t> data;
  std::span<const std::int32_t> row(std::size_t i) const {
    return {data.data() + begin[i], data.data() + begin[i + 1]};
  }
};

struct Transfer {
  ir::TensorId tensor;
  int dst_memory;
  ir::OpId first_consumer;
  const ir::Route* route;
  std::size_t hop = 0;
  std::uint64_t start_ps = 0, end_ps = 0;
  double energy_j = 0;
  bool load = false; // fetched by first_consumer's load stage into its prefetch buffers
};

// A tensor's copy in one memory: where it was placed (after spilling) and how many readers remain.
struct Residency {
  int memory = -1, placed = -1;
  int refs = 0;
};

class Dispatcher : public sc_core::sc_module, public OpDoneIf, public HopDoneIf {
public:
  sc_core::sc_export<OpDoneIf> op_done_target;
  sc_core::sc_export<HopDoneIf> hop_done_target;
  sc_core::sc_port<UnitIf, 0> units;
  sc_core::sc_port<LinkIf, 0, sc_core::SC_ZERO_OR_MORE_BOUND> links; // a machine may have no links

  SC_HAS_PROCESS(Dispatcher);
  Dispatcher(sc_core::sc_module_name name, const ir::Graph& graph, const std::vector<int>& unit_of_op,
             const ir::TransferModel& tm, const ReplayOptions& options, sched::Schedule& out);
  void bind(Machine& machine);

  void op_done(ir::OpId op, int lane, const ir::EnergyBreakdown& energy) override;
  void hop_done(std::uint64_t token, double energy_j) override;
  // The collective ops' sends as they ran (after the simulation), appended in op order.
  void collect_collective_sends(std::vector<sched::CollectiveSend>& out) const;

  std::vector<Transfer> transfers;
  std::uint64_t hops = 0;
  ir::OpId producer(ir::TensorId t) const { return producer_[t]; }

private:
  static constexpr std::int32_t kInBuffer = -1; // in_res_: an input its op's load fetched into its buffers

  // Hop tokens of the collective ops' sends: this bit, the engine's index << 32, the send's index.
  static constexpr std::uint64_t kCollectiveToken = std::uint64_t{1} << 62;

  void end_of_elaboration() override; // caches the bound interfaces (multiport lookups are slower)
  void add_collective_engines();      // one per collective op, on the machine's links
  void kickoff();                     // SC_METHOD at t = 0
  void start_op(ir::OpId op, int lane);
  void produce(ir::OpId op);
  void send_hop(std::uint64_t token);                 // the transfer's current hop, on its link
  void arrive(ir::TensorId t, const Residency& copy); // t's copy is in copy.memory (or spilled)
  void release(Residency& r, ir::TensorId t);
  void make_ready(ir::OpId op);
  void dispatch(int unit);
  // Ops that become ready in one delta cycle compete together: dispatch runs in that delta's update
  // phase, after every process of the delta has run (no delta cycle of its own).
  void request_dispatch(int unit);
  void dispatch_pending(); // from update_hook_
  // A primitive channel whose update() dispatches: the update phase follows the evaluation phase of the
  // same delta cycle, so dispatching there needs no notification and no further delta.
  class UpdateHook : public sc_core::sc_prim_channel {
  public:
    explicit UpdateHook(Dispatcher& owner) : sc_core::sc_prim_channel("dispatch_hook"), owner_(owner) {}
    void request() { request_update(); }

  private:
    void update() override { owner_.dispatch_pending(); }
    Dispatcher& owner_;
  };
  Residency& residency_of_input(ir::OpId op, std::size_t k) {
    const std::int32_t r = in_res_.data[in_res_.begin[op] + k];
    return r < static_cast<std::int32_t>(home_.size()) ? home_[r] : xfer_res_[r - home_.size()];
  }
  // Input k of op is in op's prefetch buffers: a weight its load fetched, or a spilled activation fetched.
  bool in_buffer(ir::OpId op, std::size_t k) const {
    return in_res_.data[in_res_.begin[op] + k] == kInBuffer || fetched_[in_res_.begin[op] + k];
  }
  // Ready to issue: its data inputs, its load and its spill fetches have all arrived.
  bool ready_to_issue(ir::OpId op) const {
    return pending_[op] == 0 && !load_pending_[op] && fetches_in_flight_[op] == 0;
  }

  // Load stages (load_stages.cc).
  void init_load_stages();
  void reserve_prefetch_buffers();
  void pump(int unit);                                   // issues the unit's next load if its buffers allow
  void send_load(ir::OpId op);                           // the next weight of op's load
  void load_arrived(ir::OpId op);                        // the last of op's weights has arrived
  void release_buffers(ir::OpId op);                     // op ended
  void request_spill_fetch(ir::OpId op, ir::TensorId t); // t arrived spilled; op still waits for more
  bool issue_spill_fetch(int unit);                      // the unit's oldest request still worth it
  void spill_fetches_done();                             // SC_METHOD
  void note_load(ir::OpId op, double bytes);             // op's load record: one more load issued now

  const ir::Graph& graph_;
  const ir::Hardware& hw_;
  const ir::TransferModel& tm_;
  const std::vector<int>& unit_of_;
  const ReplayOptions& options_;
  sched::Schedule& out_;
  Machine* machine_ = nullptr;
  std::vector<char> dirty_;
  std::vector<int> dirty_units_;
  UpdateHook update_hook_{*this};
  std::vector<UnitIf*> unit_if_;
  std::vector<LinkIf*> link_if_;
  // Collective ops (ir/cost/collectives.h): their chunks moved on the machine's links by an engine each.
  std::vector<std::unique_ptr<CollectiveEngine>> collectives_;
  std::vector<std::int32_t> collective_of_; // per op: its engine, or -1
  std::vector<int> op_mem_, pending_;
  std::vector<ir::OpId> producer_;
  Rows inputs_, in_res_, consumers_, xfers_of_; // per op / per tensor
  std::vector<Residency> home_, xfer_res_;      // per tensor (producer's memory) / per transfer
  using ReadyItem = std::pair<double, ir::OpId>;
  std::vector<std::priority_queue<ReadyItem, std::vector<ReadyItem>, std::greater<>>> ready_;
  std::vector<std::priority_queue<int, std::vector<int>, std::greater<>>> free_lanes_;
  std::vector<int> op_lanes_;                  // per op: lanes (cores) it holds while it runs
  std::vector<std::vector<int>> extra_lanes_;  // per op split over cores: the lanes beyond its first
  std::vector<int> in_flight_, max_in_flight_; // per unit
  // Latency hiding.
  sched::LoadPlan loads_;
  std::vector<std::optional<sched::LoadStage>> stages_; // per unit with a load stage
  std::vector<char> load_pending_;                      // per op: its load has not arrived
  std::vector<std::size_t> load_sent_;                  // per op: weights of its load sent so far
  // Spilled activations fetched ahead (load_stages.cc).
  struct SpillFetch {
    ir::OpId op;
    std::uint32_t input; // index into op's inputs
  };
  std::vector<std::deque<SpillFetch>> spill_requests_; // per unit, oldest first
  std::vector<std::vector<std::uint32_t>> deferred_;   // per op its program has not passed: inputs to fetch
  std::vector<char> fetched_;                          // parallel to in_res_.data: fetched into buffers
  std::vector<int> fetches_in_flight_;                 // per op
  struct FetchDone {
    std::uint64_t end_ps, seq;
    SpillFetch fetch;
    bool operator>(const FetchDone& o) const { return end_ps != o.end_ps ? end_ps > o.end_ps : seq > o.seq; }
  };
  std::vector<FetchDone> fetch_heap_; // min-heap on (end_ps, seq)
  std::uint64_t fetch_seq_ = 0;
  sc_core::sc_event fetch_event_{"fetch_event"};
};

} // namespace lightsim::sim::detail
