// build_fused_graph: the fused graph of a grouping (ir/fusion/fuse_ops.h), one op per group, as TVM's
// FuseOps and its naming make it (the rules are in ir/fusion/fusion.h): members in op order, the body in
// TVM's post-order, parameters and outputs, the function name and its variant suffixes, the fused op's
// features and shape (a vLLM row kernel where `vectorized` says so). Internal to ir/fusion.
//
// It is not the grouping: tvm_fuse_ops, find_attention and merge_vllm_kernels decide what fuses.
#pragma once

#include "ir/fusion/fuse_ops.h"
#include "ir/fusion/fusion.h"

#include <cstdint>
#include <vector>

namespace lightsim::ir::fusion {

// Takes the tensors and inputs it keeps from `g` (moves them). `vectorized` (vllm mode, per op) makes the
// ops without an anchor row kernels; empty otherwise.
FusionResult build_fused_graph(Graph& g, const Grouping& grouping, const FusionOptions& options,
                               std::vector<std::uint8_t> vectorized);

} // namespace lightsim::ir::fusion
