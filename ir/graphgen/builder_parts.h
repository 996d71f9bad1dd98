// The per-family builders behind build_model_graph (ir/graphgen/builder.h). Internal to ir/graphgen.
//
// It is not the entry point: callers use build_model_graph, which checks the request (resolve() in
// model_spec.cc) and picks the family; these functions trust the request and shape they are given.
#pragma once

#include "ir/graphgen/builder_ops.h"
#include "ir/graphgen/model_spec.h"

namespace lightsim::ir::graphgen::detail {

void build_gpt2(ExprGraph& g, const GraphRequest& request, const StepShape& shape);
void build_llama(ExprGraph& g, const GraphRequest& request, const StepShape& shape);
void build_resnet(ExprGraph& g, const GraphRequest& request, const StepShape& shape);
void build_mobilenet_v2(ExprGraph& g, const GraphRequest& request, const StepShape& shape);
void build_bert(ExprGraph& g, const GraphRequest& request, const StepShape& shape);
void build_vit(ExprGraph& g, const GraphRequest& request, const StepShape& shape);

} // namespace lightsim::ir::graphgen::detail
