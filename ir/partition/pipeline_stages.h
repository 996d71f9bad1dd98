// Pipeline stages: the pass that splits a graph into M consecutive stages, as Megatron-LM and GPipe split a
// model by layers, for any graph (TVM exports and ONNX models as well as lightsim-graph's): the ops in
// topological order, cut M - 1 times between two ops where the fewest activation tensors cross (in a
// transformer the hidden state alone: between layers, or between a layer's attention and its MLP), each
// cut the such place nearest s/M of the graph's weight bytes, so that stages hold near-equal weights. An
// op's stage never decreases along an edge: activations cross each boundary once, forward. Weights and
// inputs take the stage of their consumers (none, -1, when those differ: any stage may hold them).
//
// It is not a placement: ir/cost/device_plan.h maps stages to devices, and the solver places each op
// on its stage's device or (stages that are no shards) a unit of another kind (the host).
#pragma once

#include "ir/graph.h"

namespace lightsim::ir {

// Sets every op's pipeline_stage to 0..stages-1. The graph must be finalized and topologically ordered.
// InputError (naming the graph) for stages below 1, a graph without weights, more stages than ops that
// read weights, or more cuts than places to cut (a transformer has 2 per layer and 2 more); `flag` names the
// option in that message.
void assign_pipeline_stages(Graph& graph, int stages, const std::string& flag = "--pp");

// 1 + the largest pipeline_stage of graph's ops; 0 when no op has a stage.
int pipeline_stage_count(const Graph& graph);

} // namespace lightsim::ir
