// The compiler section of a machine config (`"compiler": {"fuse": "tvm", ...}`): which fusion the graph
// goes through before it is placed (ir/fusion/fusion.h), with the one table of the fusion modes' names
// (config values, `--fuse` choices, messages) and the section's field table (ir/hardware/fields.h).
//
// It is not the hardware: ir/hardware's loader leaves this section to read_compiler_config.
#pragma once

#include "ir/hardware/fields.h"
#include "ir/names.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace lightsim::ir::fusion {

enum class FuseMode : std::uint8_t {
  None,  // every op its own kernel, as the graph came
  Tvm,   // TVM's FuseOps rules
  Flash, // TVM's rules, and QK^T -> scale/mask -> softmax -> AV as one fused attention op
  Vllm,  // flash, and the fused kernels of vLLM's library on top (ir/fusion/vllm_kernels.h)
};
inline constexpr NameTable kFuseModes{std::array{std::pair{FuseMode::None, std::string_view("none")},
                                                 std::pair{FuseMode::Tvm, std::string_view("tvm")},
                                                 std::pair{FuseMode::Flash, std::string_view("flash")},
                                                 std::pair{FuseMode::Vllm, std::string_view("vllm")}}};

struct CompilerConfig {
  FuseMode fuse = FuseMode::None;
  // Computations on weights done ahead of time (ir/fusion/fold_constants.h), before fusion.
  bool fold_constants = false;
  int max_depth = 256; // most ops in one fused group (TVM's relay.FuseOps.max_depth, default kMaxFusedOps)
  // vllm mode's row kernels (ir/fusion/vllm_kernels.h): the most threads a kernel gives one row's CTA
  // (vLLM: min(row items, 1024)), and the bytes one access of a vectorised kernel moves (fused_add_rms_norm:
  // 8 fp16 = 16 bytes; vLLM's other kernels of 2024 load one element per access).
  int row_cta_threads = 1024;
  int vector_access_bytes = 16;
  // Every row kernel loads vector_access_bytes per access (PyTorch's vectorised layer-norm kernels, its
  // F.rms_norm among them); false: only those that took a residual add, as vLLM's kernels of 2024.
  bool vectorize_row_kernels = false;
  friend bool operator==(const CompilerConfig&, const CompilerConfig&) = default;
};

const FieldTable<CompilerConfig>& compiler_fields();

// The `compiler` section of a machine config's JSON (defaults when it has none); InputError naming
// `source` and the field when it is bad.
CompilerConfig read_compiler_config(const nlohmann::json& config, const std::string& source);
// Adds the section to a config's JSON (nothing when every field is at its default).
void write_compiler_config(const CompilerConfig& compiler, nlohmann::json& config);

} // namespace lightsim::ir::fusion
