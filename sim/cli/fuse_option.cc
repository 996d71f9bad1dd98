#include "sim/cli/fuse_option.h"

#include "sim/cli/name_option.h"

namespace lightsim {

void add_fuse_option(CLI::App& app, std::optional<ir::fusion::FuseMode>& mode) {
  add_name_option(app, "--fuse", mode, ir::fusion::kFuseModes,
                  "operator fusion before placement: none | tvm (TVM's FuseOps rules) | flash (tvm + fused "
                  "attention) | vllm (flash + vLLM's fused kernels); default: the config's compiler.fuse "
                  "(lightsim), none (lightsim-graph)");
}

} // namespace lightsim
