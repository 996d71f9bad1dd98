// TvmWriter: writes a lowered TvmGraph as TVM graph-executor JSON (nodes, arg_nodes, heads, attrs.dltype /
// device_index / storage_id / shape, node_row_ptr). The text is streamed: each node is built as a small
// nlohmann::json and dumped on its own, the per-entry attribute lists element by element, so nothing the
// size of the file is held in memory.
//
// write_tvm_graph_file writes to a temporary file next to `path` and renames it into place, so a failure
// never leaves a half-written or stale-looking output; it throws InputError when the file cannot be written.
#pragma once

#include "ir/graphgen/tvm_lower.h"

#include <iosfwd>
#include <string>

namespace lightsim::ir::graphgen {

void write_tvm_graph(const TvmGraph& graph, std::ostream& out);
void write_tvm_graph_file(const TvmGraph& graph, const std::string& path);

} // namespace lightsim::ir::graphgen
