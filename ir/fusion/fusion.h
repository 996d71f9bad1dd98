// The fusion pass: rewrites a Graph so that each group of ops that a compiler would fuse into one kernel
// is one Op, before the graph is stacked and placed. Modes (the machine config's `compiler` section,
// ir/fusion/compiler_config.h, or `lightsim --fuse`): none (the graph as it came), tvm (TVM's FuseOps rules,
// ir/fusion/fuse_ops.h), flash (the same, plus fused attention, ir/fusion/attention.h) and vllm (flash, plus
// the merges of vLLM's kernel library, ir/fusion/vllm_kernels.h; its ops without an anchor are row kernels).
//
// A fused op is one kernel launch: its inputs are the tensors that enter the group, its outputs those that
// leave it (read by ops outside it or graph outputs); intermediate tensors are gone, so they never go to
// memory. Simple scalar constants that TVM inlines into a kernel stop being inputs. The op is named as TVM
// names fused functions: func_name `tvmgen_default_fused_<op>_<op>...` with the member ops' Relay names in
// the post-order in which TVM's lowering visits the function body (a function of reshapes only is
// `__nop`), `_<n>` for the n-th further distinct function of the same name, and node name = func_name made
// unique (`_1`, `_2` ...), inputs in the order of the function's parameters. Unlike TVM, names are never
// cut at 80 characters, so that re-importing the graph recovers every member. Its class (anchor) and tail
// come from ir::classify_func_name on that name, exactly as for a graph that arrives fused; its
// FusedShape records what the members read and compute (ir/graph.h). The graph is ordered as TVM's graph
// executor codegen orders a fused build (per-run inputs first, then a post-order walk from the outputs,
// constants named p0, p1 ... as the walk meets them).
//
// A graph that arrived fused (some op is a function of several ops: TVM already ran FuseOps) keeps its
// groups: the pass returns it unchanged.
//
// It is not a cost model: ir/cost/cost_model.h costs the fused ops.
#pragma once

#include "ir/fusion/compiler_config.h"
#include "ir/graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace lightsim::ir::fusion {

struct FusionOptions {
  FuseMode mode = FuseMode::Tvm;
  int max_depth = CompilerConfig{}.max_depth;                     // TVM's relay.FuseOps.max_depth
  int row_cta_threads = CompilerConfig{}.row_cta_threads;         // vllm mode
  int vector_access_bytes = CompilerConfig{}.vector_access_bytes; // vllm mode
  bool attention = true; // flash / vllm: form fused attention (off where no unit runs it)
  bool vectorize_row_kernels = CompilerConfig{}.vectorize_row_kernels; // vllm mode
};
// The options a compiler section asks for (attention on).
FusionOptions fusion_options(const CompilerConfig& compiler);

struct FusionResult {
  Graph graph;
  // Per op of `graph`: the ops of the input graph it stands for, in their order (inlined constants
  // included): member_ops[member_begin[op] .. member_begin[op + 1]). Every op of the input is in exactly
  // one list.
  std::vector<OpId> member_ops;
  std::vector<std::uint32_t> member_begin;
  std::span<const OpId> members(OpId op) const {
    const auto i = static_cast<std::size_t>(op);
    return std::span<const OpId>(member_ops).subspan(member_begin[i], member_begin[i + 1] - member_begin[i]);
  }
  std::size_t attention_ops = 0; // fused attention ops formed (flash)
  bool arrived_fused = false;    // the input was fused already and comes back unchanged
};

// The graph must be finalized. With mode None, or a graph that arrived fused, the result is the input.
// Given an rvalue, the pass takes the tensors and inputs it keeps from it (they move into the result; what
// is left is for the caller to destroy); given an lvalue, it works on a copy.
FusionResult fuse(Graph&& graph, const FusionOptions& options);
FusionResult fuse(const Graph& graph, const FusionOptions& options);

// True when some op of the graph is a fused function of several ops (or fused attention).
bool is_fused(const Graph& graph);

} // namespace lightsim::ir::fusion
