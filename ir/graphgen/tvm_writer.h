// TvmWriter: writes a lowered TvmGraph as TVM graph-executor JSON (nodes, arg_nodes, heads, attrs.dltype /
// device_index / storage_id / shape, node_row_ptr). The text is streamed: each node is built as a small
// nlohmann::json and dumped on its own, the per-entry attribute lists element by element, so nothing the
// size of the file is held in memory.
//
// It does not open files: lightsim-graph (sim/cli) writes through sim/io's atomic output, so a failure never
// leaves a half-written file.
#pragma once

#include "ir/graphgen/tvm_lower.h"

#include <iosfwd>
#include <string>

namespace lightsim::ir::graphgen {

void write_tvm_graph(const TvmGraph& graph, std::ostream& out);

} // namespace lightsim::ir::graphgen
