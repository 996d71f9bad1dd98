// Helpers for the fusion tests: graphs written in code as lightsim-graph writes them (ExprGraph -> TVM
// JSON -> import, so func_names and node order are TVM's), and the fused op that holds a given original op.
#pragma once

#include "ir/fusion/fusion.h"
#include "ir/graphgen/expr_graph.h"

#include <string>
#include <vector>

namespace lightsim::test {

// Lowers, writes and imports `exprs` as the TVM graph-executor JSON lightsim-graph would write.
ir::Graph import_exprs(const ir::graphgen::ExprGraph& exprs);

// The func_names of the fused graph's compute ops, with the Relay op names only ("nn_dense_add").
std::vector<std::string> fused_bodies(const ir::fusion::FusionResult& r);

// How many compute ops of the fused graph have exactly this func name body.
std::size_t count_body(const ir::fusion::FusionResult& r, const std::string& body);

// Checks the partition: every op of `original` in exactly one group, no group with two anchors (TVM's
// out-elementwise-fusable ops; fused attention's two products and softmax count as its one anchor), the
// groups form an acyclic graph, and the fused graph is topologically ordered.
void check_partition(const ir::Graph& original, const ir::fusion::FusionResult& r);

} // namespace lightsim::test
