#include "ir/graphgen/builder.h"

#include "ir/graphgen/builder_parts.h"

namespace lightsim::ir::graphgen {

ExprGraph build_model_graph(const GraphRequest& request) {
  const StepShape shape = resolve(request);
  ExprGraph g;
  switch (request.model.family) {
  case ModelFamily::Gpt2:
    detail::build_gpt2(g, request, shape);
    break;
  case ModelFamily::Llama:
    detail::build_llama(g, request, shape);
    break;
  case ModelFamily::Resnet:
    detail::build_resnet(g, request, shape);
    break;
  case ModelFamily::MobilenetV2:
    detail::build_mobilenet_v2(g, request, shape);
    break;
  case ModelFamily::Bert:
    detail::build_bert(g, request, shape);
    break;
  case ModelFamily::Vit:
    detail::build_vit(g, request, shape);
    break;
  }
  return g;
}

} // namespace lightsim::ir::graphgen
