// The trace's /op_inputs table (traces/README.md): every input of every op of the graph that was scheduled
// (the fused graph when the run fused), as (op, argument position, tensor, producer op). With it a trace
// says its own data edges, so an analysis needs no graph file and no rerun of the fusion. An internal part
// of the trace writer: include it only from its .cc files.
//
// It is not the graph: names, classes and sizes are in /ops; tensors' shapes are not stored.
#pragma once

#include "sim/trace/h5_table.h"
#include "sim/trace/trace_writer.h"

namespace lightsim::sim {

void write_op_inputs(const H5::Group& root, const ir::Graph& graph, const h5::IoStatus* io);

} // namespace lightsim::sim
