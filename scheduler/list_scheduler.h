// The list scheduler: turns a FlatGraph into a predicted Schedule by discrete-event list scheduling.
// Each unit has `cores` lanes. When an op completes, each of its output tensors is sent at once to
// every other memory where a consumer runs (once per destination memory, hop by hop along the route;
// transfers in flight out of one port of a link (one direction) share its bandwidth equally, as in the
// replay's Link, and a hop arrives latency_ns after its last byte left). An op is ready when all its inputs
// have arrived in its unit's memory; whenever a lane is free, the ready op of highest upward rank (longest
// remaining path, transfers included: HEFT's priority; ties by op id; an earlier micro-batch's ops before a
// later one's) starts on the lowest-numbered free lane. Inputs and weights are resident from the start and
// occupy no lane. Energy = ops + transfers + static power of units and memories over the makespan.
//
// Latency hiding (ir::Hardware::latency_hiding): a weight held in another memory than its consumer's is
// not sent at t = 0 but fetched by the consumer unit's load stage (scheduler/load_stage.h), whose program is
// the unit's ops in dispatch priority (upward rank, then op id): one load in flight per unit, its weights
// sent one after the other, as far ahead as the unit's prefetch buffers allow; the consumer waits for its
// load as for one more input, and its buffers are freed when it ends. A unit's own overlap of loading and
// computing (a PHU's weight double-buffering) is in its arithmetic model. Each op records its load
// (ScheduledOp::load_*), each unit what its loads did (summarise_loads).
//
// How a unit is shared between ops is its kind's (ir/hardware/unit_kind.h): an op may hold several lanes
// (op_lanes: a CPU GEMM the runtime splits over k cores waits for k free lanes and holds them all, the ops
// behind it in rank order waiting too), and at most ops_in_flight ops run at once.
//
// An op lasts its arithmetic-model time, except on a unit that runs ops concurrently and whose op streams
// through one of the unit's shared ports (port_flow: on a CPU a cache with shared_GBps, or memory through
// memory_port_GBps): there its operand bytes stream through that port as its flows (FairShare, each flow
// capped at the port's per-flow rate), as the unit's module in sim/ streams them. An op that computes
// after its stream (a GEMM packs, then computes) does so after its flows end; others compute while theirs
// stream. The op ends at max(start + body, port done + after_port) + tail, tail = its fixed time
// (dispatch, + sync when split), body = time - tail, after_port = body - the flows' time alone when it
// computes after, 0 otherwise; the bytes are capped at what the port moves in `body`, so an op alone keeps
// exactly its model time, and ops that overlap stretch as the module stretches them.
//
// SRAM spills (an SRAM with a spill_to): the SRAM's bytes are counted as the replay counts them
// (scheduler/sram_residency.h); a tensor copy that does not fit when it is allocated is placed in the spill
// memory, and an op that reads or writes it there lasts that memory's access longer and pays its energy per
// byte (ScheduledOp::spilled_bytes, spill_memory, spill_traffic_bytes). The replay's spill fetches (a load
// stage bringing a spilled input back ahead of its consumer) are not modelled.
//
// It is not a simulator: no tile or wave effects; the SystemC replay (sim/) is the detailed model.
#pragma once

#include "scheduler/flat_graph.h"
#include "scheduler/schedule.h"

#include <vector>

namespace lightsim::sched {

// `binding`, when given, receives per op the op whose completion (an input's producer, or the previous
// op on the same lane) fixed its start; -1 when it started at time 0. It traces the critical path.
// The FlatGraph's stacked graph must come from build_stacked_graph (it needs the hardware).
Schedule list_schedule(const FlatGraph& flat, std::vector<ir::OpId>* binding = nullptr);

// The ops of the critical path, last first, following `binding` back from the op that ends last.
std::vector<ir::OpId> critical_path(const Schedule& schedule, const std::vector<ir::OpId>& binding);

} // namespace lightsim::sched
