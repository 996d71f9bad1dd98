#include "ir/fusion/fusion.h"

#include "ir/fusion/attention.h"
#include "ir/fusion/fuse_ops.h"
#include "ir/fusion/fused_graph_builder.h"
#include "ir/fusion/vllm_kernels.h"

#include <algorithm>

namespace lightsim::ir::fusion {
namespace {

FusionResult unchanged(Graph&& graph, bool arrived_fused) {
  FusionResult result;
  const std::size_t n = graph.ops.size();
  result.graph = std::move(graph);
  result.arrived_fused = arrived_fused;
  for (std::size_t i = 0; i < n; ++i) {
    result.member_begin.push_back(static_cast<std::uint32_t>(i));
    result.member_ops.push_back(static_cast<OpId>(i));
  }
  result.member_begin.push_back(static_cast<std::uint32_t>(n));
  return result;
}

} // namespace

bool is_fused(const Graph& graph) {
  return std::any_of(graph.ops.begin(), graph.ops.end(), [](const Op& op) {
    return !op.features.fused_tail.empty() || op.fused.has_value() || op.op_class == OpClass::Attention;
  });
}

FusionOptions fusion_options(const CompilerConfig& compiler) {
  return {compiler.fuse,
          compiler.max_depth,
          compiler.row_cta_threads,
          compiler.vector_access_bytes,
          true,
          compiler.vectorize_row_kernels};
}

FusionResult fuse(const Graph& graph, const FusionOptions& options) {
  return fuse(Graph(graph), options);
}

FusionResult fuse(Graph&& graph, const FusionOptions& options) {
  if (options.mode == FuseMode::None) return unchanged(std::move(graph), false);
  if (is_fused(graph)) return unchanged(std::move(graph), true);
  std::vector<std::vector<OpId>> attention;
  if ((options.mode == FuseMode::Flash || options.mode == FuseMode::Vllm) && options.attention)
    attention = find_attention(graph);
  Grouping grouping = tvm_fuse_ops(graph, options.max_depth, attention);
  std::vector<std::uint8_t> vectorized;
  if (options.mode == FuseMode::Vllm) vectorized = merge_vllm_kernels(graph, grouping);
  return build_fused_graph(graph, grouping, options, std::move(vectorized));
}

} // namespace lightsim::ir::fusion
