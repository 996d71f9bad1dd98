// The per-family builders behind build_model_graph (ir/graphgen/builder.h). Internal to ir/graphgen.
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
