// The list scheduler: turns a FlatGraph into a predicted Schedule by discrete-event list scheduling.
// Each unit has `cores` lanes. When an op completes, each of its output tensors is sent at once to
// every other memory where a consumer runs (once per destination memory, hop by hop along the route;
// transfers in flight in one direction of a link share its bandwidth equally, as in the replay's Link,
// and a hop arrives latency_ns after its last byte left). An op is ready when all its
// inputs have arrived in its unit's memory; whenever a lane is free, the ready op of highest upward
// rank (longest remaining path, transfers included: HEFT's priority; ties by op id) starts on the
// lowest-numbered free lane. Inputs and weights are resident from the start and occupy no lane.
// Energy = ops + transfers + static power of units and memories over the makespan.
//
// An op lasts its arithmetic-model time, except on a CPU whose cores share a memory port (cores > 1,
// memory_port_GBps > 0): there its operand bytes stream through the port, which serves the ops in flight
// equally (FairShare), and the op ends at max(start + time - dispatch_ns, port done) + dispatch_ns. The
// port bytes are capped at what the port moves in that time, so an op alone keeps exactly its model time;
// ops that overlap stretch as the CPU module in sim/ stretches them.
//
// It is not a simulator: no tile or wave effects, no SRAM spills; the SystemC replay (sim/) is the
// detailed model.
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
