#include "ir/graphgen/builder.h"

#include "ir/graphgen/builder_parts.h"

namespace lightsim::ir::graphgen {

ExprGraph build_model_graph(const GraphRequest& request) {
  const StepShape shape = resolve(request);
  ExprGraph g;
  if (request.model.family == ModelFamily::Gpt2)
    detail::build_gpt2(g, request, shape);
  else
    detail::build_llama(g, request, shape);
  return g;
}

} // namespace lightsim::ir::graphgen
