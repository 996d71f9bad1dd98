#include "sim/cli/fuse_option.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace lightsim {

void add_fuse_option(CLI::App& app, std::optional<ir::fusion::FuseMode>& mode) {
  std::vector<std::string> names;
  for (const auto& [value, name] : ir::fusion::kFuseModes.entries())
    names.emplace_back(name);
  // A string option checked against the names (FuseMode is a uint8_t: a map to it would print its values
  // as characters in the help and in the error).
  app.add_option_function<std::string>(
         "--fuse", [&mode](const std::string& name) { mode = ir::fusion::kFuseModes.parse(name); },
         "operator fusion before placement: none | tvm (TVM's FuseOps rules) | flash (tvm + fused "
         "attention) | vllm (flash + vLLM's fused kernels); default: the config's compiler.fuse (lightsim), "
         "none (lightsim-graph)")
      ->check(CLI::IsMember(names));
}

} // namespace lightsim
