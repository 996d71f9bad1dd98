// Constant folding: computations on weights done once, ahead of time, as TVM's relay.transform.FoldConstant
// does in any optimised build. An op is folded when every tensor it reads is a bound parameter (a weight or
// constant: Op::is_param) or the output of a folded op: an unoptimised graph's weight transposes, the
// broadcast_to of a weight in front of a batch_matmul (TVM's PyTorch front end), a weight's dequantisation
// or reshape. A folded op's output that an op left in the graph reads (or that is a graph output) becomes a
// bound parameter itself, of its own shape and dtype: the weight as the kernels read it. Weights read only
// by folded ops are gone. Ops that read a per-run input or model state are never folded.
//
// It is not fusion (ir/fusion/fusion.h), which runs after it on what it leaves, and not a cost model.
#pragma once

#include "ir/graph.h"

#include <cstddef>

namespace lightsim::ir::fusion {

struct FoldResult {
  Graph graph;                    // finalized, in the input's op order (folded outputs where their op was)
  std::size_t folded_ops = 0;     // compute ops done ahead of time
  std::size_t dropped_params = 0; // weights read by folded ops only
};

// The graph must be finalized and topologically ordered (every importer and builder orders it so); an op
// that reads a tensor produced later is left alone.
FoldResult fold_constants(const Graph& graph);

} // namespace lightsim::ir::fusion
