// ListScheduler: the state and event loop behind list_schedule (scheduler/list_scheduler.h says what it
// models). Internal to the scheduler library, not an API: the class is split over list_scheduler.cc (ops:
// readiness, dispatch to lanes, completion, the totals) and list_scheduler_flows.cc (what moves bytes: the
// shared memory ports of a CPU's cores, the links' hops, the units' load stages).
#pragma once

#include "scheduler/fair_share.h"
#include "scheduler/flat_graph.h"
#include "scheduler/load_stage.h"
#include "scheduler/schedule.h"
#include "scheduler/sram_residency.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <queue>
#include <tuple>
#include <vector>

namespace lightsim::sched {

class ListScheduler {
public:
  explicit ListScheduler(const FlatGraph& flat);

  Schedule run(std::vector<ir::OpId>* binding);

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
                       double after_port_s, double tail_s, double now);

  // Serves the port up to now_ps and schedules the completion of every op whose last flow has ended.
  void serve_port(std::size_t port, std::uint64_t now_ps);

  // An event of `kind` for the next flow completion of flows[i] (a memory port, or a link's sending port);
  // earlier ones for it become stale (their sequence number is no longer event_seq[i]).
  void arm(const std::vector<FairShare>& flows, std::vector<std::uint64_t>& event_seq,
           std::vector<std::uint64_t>& event_ps, std::size_t i, Event kind);
  void arm_port(std::size_t port) { arm(ports_, port_event_seq_, port_event_ps_, port, Event::PortDone); }

  // Starts op on a unit whose ops in flight share ports: its operand bytes stream through the shared port
  // its kind says (UnitKind::port_flow), as the unit's module streams them. False when it shares nothing.
  bool start_on_shared_port(std::size_t u, ir::OpId op, double duration, double now);

  int memory_of(ir::OpId op) const { return hw_.units[flat_.unit_of(op)].memory; }

  // Sends tensor t from `src` memory to `dst` memory at `now`, hop by hop (store and forward); returns the
  // transfer's token. Each hop is a flow of its wire bytes through its link's sending port, which the flows
  // in flight share equally (FairShare, as sim/hw/link.h); the hop arrives latency_ns after its last byte
  // left, and the next hop starts then. The consumers waiting for it are added by the caller.
  // `load`: fetched by the consumer's load stage (ScheduledTransfer::load).
  std::size_t send(ir::TensorId t, ir::OpId producer, ir::OpId consumer, int src, int dst, double now,
                   bool load = false);

  void start_hop(std::size_t token);

  // Serves a link port up to now_ps; every hop whose last byte has left arrives latency_ns later.
  void serve_link(std::size_t dir, std::uint64_t now_ps);

  void arm_link(std::size_t dir) { arm(link_dirs_, link_event_seq_, link_event_ps_, dir, Event::LinkDone); }

  // A hop reached the far end of its link: the next hop starts, or the tensor has arrived.
  void hop_arrived(std::size_t token);

  // One input edge of `op` (from `producer`) is in op's memory at `arrival`.
  void input_arrived(ir::OpId op, ir::OpId producer, double arrival);

  void complete(ir::OpId op, double now);

  // Starts ready ops on unit u while it has room: at most max_in_flight_ ops, each on its op_lanes_
  // lowest free lanes; an op that needs more lanes than are free waits, and so do those behind it.
  void dispatch(double now);

  // The ops dispatch just put on unit u's lanes begin: with SRAMs that spill, their outputs are allocated in
  // op order (as the replay starts the ops of one instant), and an op pays what it reads or writes in a
  // spill memory on top of its model time.
  void start_ops(std::size_t u, double now);

  void add_collective_traffic();
  void finish();

  // ---- Load stages (scheduler/load_stage.h): streamed weights fetched ahead of their consumers ----

  // Which weights each op's load fetches, and per unit with a load stage its program: the unit's ops in
  // order of upward rank, highest first, ties by op id (the dispatch priority; a topological order, as a
  // producer's rank is at least its consumer's). An op with a load waits for it as for one more input.
  void init_load_stages();

  // Issues the unit's next load if its buffers allow: its weights one after the other over their routes.
  // `freed_by`: the op whose end freed the buffers, if that is what let it issue (the critical path).
  void pump(std::size_t u, double now, ir::OpId freed_by);

  // The next weight of op's load leaves its home memory at `now`.
  void send_load_tensor(ir::OpId op, double now);

  void release_buffers(ir::OpId op, double now);

  // A weight of op's load has arrived: the next one leaves, or the load is complete: one input fewer to
  // wait for, and the stage takes its next load.
  void load_tensor_arrived(ir::OpId op, double now);

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

} // namespace lightsim::sched
