// `--fuse none|tvm|flash|vllm`, the same option in every tool that fuses (lightsim, lightsim-graph): its
// choices are the fusion modes' one name table (ir/fusion/compiler_config.h), and the choice goes straight
// to the fusion pass's options.
//
// It is not the compiler section of a config: that is read by ir/fusion/compiler_config.h.
#pragma once

#include "ir/fusion/compiler_config.h"

#include <optional>

namespace CLI {
class App;
}

namespace lightsim {

// Adds --fuse to `app`; a given value is stored in `mode` (left empty when the option is absent).
void add_fuse_option(CLI::App& app, std::optional<ir::fusion::FuseMode>& mode);

} // namespace lightsim
