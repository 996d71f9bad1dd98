// Graph writer: an ir::Graph as it stands (the fusion pass's output, ir/fusion/fusion.h) written as TVM
// graph-executor JSON, through the same writer as lightsim-graph's own graphs (ir/graphgen/tvm_writer.h):
// one node per op in the graph's order, Input ops as "null" nodes (arg_nodes), compute ops as "tvm_op"
// with their func_name and a hash of their function, every output tensor an entry with its shape and
// dtype, storage ids planned as TVM's GraphPlanMemory does (a __nop aliases its input). Importing the
// file gives back the same ops, tensors and func_names.
//
// It is not a fusion pass or an importer.
#pragma once

#include "ir/graph.h"

#include <iosfwd>
#include <string>

namespace lightsim::ir::graphgen {

void write_graph(const Graph& graph, std::ostream& out);

} // namespace lightsim::ir::graphgen
