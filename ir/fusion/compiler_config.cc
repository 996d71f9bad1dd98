#include "ir/fusion/compiler_config.h"

#include <nlohmann/json.hpp>

namespace lightsim::ir::fusion {

const FieldTable<CompilerConfig>& compiler_fields() {
  using F = Field<CompilerConfig>;
  static const FieldTable<CompilerConfig> table(
      "compiler",
      {F::choice(
           &CompilerConfig::fuse, "fuse", kFuseModes, "fusion mode",
           "none (every op its own kernel), tvm (TVM's FuseOps rules: ir/fusion/fuse_ops.h), flash (tvm plus "
           "fused attention: ir/fusion/attention.h) or vllm (flash plus vLLM's fused kernels, each a row "
           "kernel: ir/fusion/vllm_kernels.h)")
           .optional(),
       F::flag(
           &CompilerConfig::fold_constants, "fold_constants",
           "compute ops that read only weights and constants ahead of time, their outputs becoming weights "
           "(TVM's FoldConstant: ir/fusion/fold_constants.h)")
           .optional(),
       F::integer(&CompilerConfig::max_depth, "max_depth", 1, 1 << 20, "ops",
                  "most ops in one fused group (TVM's relay.FuseOps.max_depth)")
           .optional(),
       F::integer(&CompilerConfig::row_cta_threads, "row_cta_threads", 1, 1024, "threads",
                  "vllm: most threads a row kernel gives one row (vLLM: min(row accesses, 1024))")
           .optional(),
       F::integer(&CompilerConfig::vector_access_bytes, "vector_access_bytes", 1, 64, "B",
                  "vllm: bytes one access of a vectorised kernel moves (fused_add_rms_norm: 8 fp16); vLLM's "
                  "other kernels of 2024 access one element at a time")
           .optional(),
       F::flag(
           &CompilerConfig::vectorize_row_kernels, "vectorize_row_kernels",
           "vllm: every row kernel accesses vector_access_bytes at a time (PyTorch's vectorised layer-norm "
           "kernels, F.rms_norm's among them: 128 threads a row, 4 elements an access); false: only the "
           "normalisations that took a residual add")
           .optional()});
  return table;
}

CompilerConfig read_compiler_config(const nlohmann::json& config, const std::string& source) {
  CompilerConfig c;
  if (!config.is_object() || !config.contains("compiler")) return c;
  detail::ConfigObject o(config.at("compiler"), source, "compiler");
  compiler_fields().read_all(o, c);
  return c;
}

void write_compiler_config(const CompilerConfig& compiler, nlohmann::json& config) {
  if (compiler == CompilerConfig{}) return;
  nlohmann::json section = nlohmann::json::object();
  compiler_fields().write(compiler, section);
  config["compiler"] = std::move(section);
}

} // namespace lightsim::ir::fusion
