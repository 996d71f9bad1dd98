// Micro-batches: the pass that puts `copies` requests of a graph in flight at once, as GPipe and
// Megatron-LM feed a pipeline: every op that is not a bound parameter (compute ops, per-run inputs, a
// decode step's KV cache) is repeated per micro-batch, the weights are shared. Copy 0 keeps the graph's
// names; copy k's ops and tensors are named "<name>:mb<k>". Pipeline stages (ir/partition/pipeline_stages.h)
// carry over, so micro-batch k enters stage s while k - 1 runs stage s + 1.
//
// It is not a scheduler: the list scheduler and the replay decide when each copy's ops run.
#pragma once

#include "ir/graph.h"

#include <string>

namespace lightsim::ir {

// The graph with `copies` micro-batches (copies >= 1; 1 returns it unchanged). InputError (naming the graph)
// for copies below 1; `flag` names the option in that message.
Graph replicate_micro_batches(Graph graph, int copies, const std::string& flag = "--micro-batches");

} // namespace lightsim::ir
