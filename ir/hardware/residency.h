// Where a graph input lives before a run, from the config's placement (ir/hardware/hardware.h, Placement):
// weights and, when placement.state says so, model state (Op::is_state, a KV cache) are resident data: held
// in a memory for the whole run, counted against its capacity, never sent per run (a copy is streamed to a
// consumer in another memory, as for a weight held there); every other input is sent from its memory.
//
// It is not the choice among memories: the stacked graph's residency nodes and the capacity pricing
// (scheduler/capacity.h) make it.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"

namespace lightsim::ir {

// A weight, or model state the placement keeps resident.
bool is_resident_input(const Hardware& hw, const Op& op);
// The unit whose memory must hold input `op`, or -1 when the solver chooses.
int fixed_input_unit(const Hardware& hw, const Op& op);
// "model state (KV cache)" or "weight": what capacity reports and errors call it.
const char* resident_input_noun(const Op& op);

} // namespace lightsim::ir
