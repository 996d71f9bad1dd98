// replay: runs a FlatGraph (one unit per op) on the SystemC modules of its hardware and returns what
// happened, in the same sched::Schedule layout the list scheduler predicts, so the two compare op by op.
//
// A dispatcher issues an op when every input tensor has arrived in its unit's memory and a lane of the
// unit is free (lowest free lane; among ready ops the lowest predicted start if a prediction is given,
// else the lowest op index; ops made ready in one delta cycle of one instant compete together). On a CPU an
// op the runtime splits over k cores (ir::cpu_op_cores) waits for k free lanes and holds them all, the ops
// behind it in the ready order waiting too, and at most concurrent_ops ops run at once. Inputs
// (OpClass::Input) are resident at t = 0 in their unit's memory and take no lane. When a tensor is produced
// (or at t = 0 for inputs) it is sent once to every other memory where a consumer runs, hop by hop along
// TransferModel::route, each hop a send on a Link module (store and forward; concurrent transfers share
// links). Tensors are placed in memories while they live (an SRAM that is full spills to its spill_to
// memory). Time resolution 1 ps. With latency hiding on, weights held in another memory are fetched per
// consumer by the units' load stages instead (scheduler/load_stage.h, by the same rules as the list
// scheduler; the program order is the predicted schedule's when given, else op order), into prefetch buffers
// reserved in the unit's memory for the whole run; an activation that spilled out of an SRAM is fetched back
// into them ahead of its consumer when that consumer still waits for another input
// (sim/replay/load_stages.cc; the list scheduler predicts the spills, scheduler/sram_residency.h, but not
// these fetches); a PHU double-buffers its weight tiles
// (sim/hw/photonic_mac_array.h).
//
// Each call runs in a fresh SystemC context (sim/hw/kernel.h). Not thread-safe (SystemC is not).
// It is not a predictor: scheduler/ predicts; this observes the detailed model.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/transfer.h"
#include "scheduler/flat_graph.h"
#include "scheduler/schedule.h"

#include <cstdint>
#include <vector>

namespace lightsim::sim {

struct ReplayOptions {
  // When set (ops indexed by OpId), ready ops are dispatched in order of predicted start_s.
  const sched::Schedule* predicted = nullptr;
  // Every unit runs one op at a time, so no op shares a unit (a CPU's memory port) with another: each
  // op's observed time is its time alone, what a per-op cost fit needs (sim/retrain/retrain_loop.h). A
  // CPU op split over cores still gets its cores.
  bool ops_alone = false;
};

struct ReplayStats {
  std::uint64_t ops = 0;       // compute ops simulated (inputs excluded)
  std::uint64_t transfers = 0; // tensor transfers
  std::uint64_t hops = 0;      // link sends
  double spilled_bytes = 0;    // bytes placed in a spill memory because an SRAM was full
};

// The FlatGraph's stacked graph must have a Graph behind it (built by ir::build_stacked_graph).
sched::Schedule replay(const sched::FlatGraph& flat, const ir::TransferModel& transfers,
                       const ReplayOptions& options = {}, ReplayStats* stats = nullptr);
// For stacked graphs made with StackedGraph::from_parts: the graph is given separately.
sched::Schedule replay(const sched::FlatGraph& flat, const ir::Graph& graph,
                       const ir::TransferModel& transfers, const ReplayOptions& options = {},
                       ReplayStats* stats = nullptr);
// The core: unit_of_op[op] is the unit that runs (or, for inputs, holds) each op.
sched::Schedule replay_units(const ir::Graph& graph, const std::vector<int>& unit_of_op,
                             const ir::TransferModel& transfers, const ReplayOptions& options = {},
                             ReplayStats* stats = nullptr);

} // namespace lightsim::sim
