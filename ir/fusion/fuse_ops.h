// FuseOps: the grouping of TVM's operator fusion pass (src/relay/transforms/fuse_ops.cc, since TVM 0.9
// src/relay/analysis/graph_partitioner.cc; described in Chen et al., "TVM", OSDI 2018, section 3), run on
// an ir::Graph. Every op and input is a node of TVM's IndexedForwardGraph, with the virtual nodes Relay
// has and graph-executor JSON does not: the argument tuple of each concatenate, a TupleGetItem per used
// output of a multi-output op (split), and the tuple of the graph's outputs. Then, as TVM:
// - each node gets its OpPattern (ir/fusion/op_pattern.h); an edge carries its consumer's pattern, and a
//   broadcast consumer whose output has the argument's shape makes the edge elemwise. Per-run inputs are
//   function parameters (extern, opaque); bound parameters are constants: opaque, except simple scalars
//   (int32, int64, float32, float64, bool, rank 0), which are elemwise and get inlined into a group;
// - the post-dominator tree is built in one pass in reverse topological order (the least common ancestor
//   of a node's consumers), each node keeping the combined (max) pattern of the edges to its
//   post-dominator;
// - three phases over the nodes in topological order try to fuse each node into the group of its
//   immediate post-dominator, when every node on every path between them passes a condition:
//   phase 0: an out-elementwise-fusable node (dense, batch_matmul, conv2d, pools, softmax: TVM's anchor)
//            takes its post-dominator when the path to it is elemwise and every node on it is at most
//            broadcast (the bias-add / activation epilogue); elemwise and broadcast nodes fuse into an
//            injective or comm-reduce post-dominator over injective paths (a reduction takes its
//            elementwise inputs; the sink may be an anchor's group);
//   phase 1: injective nodes (reshape, transpose, slices, concatenate, take) fuse over injective paths,
//            after the anchors have finished;
//   phase 2: injective nodes fuse into a tuple that has been fused into an injective consumer;
//   a group takes at most one anchor, and fusion is refused when the group would exceed `max_depth` nodes
//   (TVM's CountFusedNodesWithNewChild against relay.FuseOps.max_depth).
// Reductions fuse with their elementwise inputs only: TVM's rules fuse nothing into a reduction's output.
// Groups may be given beforehand (fused attention, ir/fusion/attention.h): each becomes one group with an
// anchor before the phases run, which may take an elementwise epilogue but none of its producers.
//
// It is not the rewrite: ir/fusion/fusion.h builds the fused graph from the groups.
#pragma once

#include "ir/graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace lightsim::ir::fusion {

// group_of[op] for every op of the graph: ops with the same value form one group (the value identifies
// the group's root node, TVM's root_ref, which may be a virtual TupleGetItem). Input ops that stay outside
// every group are groups of their own.
struct Grouping {
  std::vector<std::int32_t> group_of;
};

// `pre_groups`: op lists that must form one group each, the last op being the group's root. The graph must
// be finalized (consumers filled).
Grouping tvm_fuse_ops(const Graph& graph, int max_depth, std::span<const std::vector<OpId>> pre_groups = {});

} // namespace lightsim::ir::fusion
