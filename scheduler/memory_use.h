// Memory use of a planned run, per memory: its capacity, the weight bytes resident there for the whole
// run (the placement's), the weight bytes streamed into it per inference (transfers of weights held in
// another memory), the peak of live activation bytes over the schedule (per-run inputs, activations and
// their transferred copies) and, apart, the peak of streamed weight copies live at once. Each tensor
// lives from its allocation (an op's outputs when it starts, a transferred copy when its transfer starts,
// inputs at 0) until its last reader in that memory ends (graph outputs: the end of the run). Views (nop
// outputs) take no bytes in their producer's memory, as in the SystemC replay.
//
// Without latency hiding, streamed weights are sent when the run starts (the list scheduler sends every
// input at once), so their copies can pile up in the consumer's memory: peak_streamed_bytes shows it. With
// it, each is fetched by its consumer's load stage into the prefetch buffers (scheduler/load_stage.h) and
// lives there until that consumer ends, so the peak stays within the buffers (but for oversized loads).
//
// It is not an allocator: nothing is refused here (capacity of weights is scheduler/capacity.h's; an
// SRAM that overflows spills in the replay).
#pragma once

#include "scheduler/flat_graph.h"
#include "scheduler/schedule.h"

#include <vector>

namespace lightsim::sched {

struct MemoryUse {
  double capacity_bytes = 0;
  double resident_weight_bytes = 0;
  double resident_state_bytes = 0;  // model state held here for the whole run (a KV cache; not in weights)
  double streamed_weight_bytes = 0; // into this memory, per inference (state held elsewhere included)
  double peak_live_bytes = 0;       // activations, per-run inputs and their copies
  double peak_streamed_bytes = 0;   // streamed weight copies live at once
};

// Indexed like Hardware::memories. The FlatGraph's stacked graph must have a graph and hardware behind it.
std::vector<MemoryUse> memory_use(const FlatGraph& flat, const Schedule& schedule);

} // namespace lightsim::sched
