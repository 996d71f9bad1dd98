// The fused kernels of vLLM's CUDA library (csrc/layernorm_kernels.cu, pos_encoding_kernels.cu and
// activation_kernels.cu as profiled in 2024), formed on top of TVM's groups (ir/fusion/fuse_ops.h) by the
// `vllm` fusion mode. Three merges, each of which cannot create a cycle between groups:
// - normalisation: a group that reduces rows (mean, sum) and has no anchor takes the groups that scale the
//   rows it reduced: groups without anchor or reduction that read only its outputs, its inputs and
//   constants (vLLM's rms_norm_kernel holds a row in one CTA, reduces it, then scales it; TVM cannot fuse
//   anything into a reduction's output, so it launches two kernels);
// - residual add: when such a normalisation reads one tensor that is not a constant, and that tensor is
//   the sum of a group made only of adds and reshapes of two or more computed tensors, the add joins the
//   normalisation, its sum leaving the kernel as a second output (fused_add_rms_norm_kernel, which loads
//   vectors: `vector_access_bytes` per access);
// - siblings: groups without anchor or reduction that read the same non-scalar constant, write as many
//   elements and do not depend on each other merge, in op order (rotary_embedding_kernel rotates Q and K,
//   which both read the cos / sin tables, in one launch).
// Every fused op of the mode that computes (has an elementwise, broadcast or reduction member; a group of
// reshapes, transposes and slices is a copy and streams as before) and has no anchor is then a row kernel
// (ir/graph.h RowKernel): one CTA per row, rows and row length from its reduction (the reduced axis) or else
// from its outputs' last axis, threads min(items per row, `row_cta_threads`), two passes when it reduces.
// ir/cost/gpu_kernel.h times it.
//
// It is not TVM: TVM's FuseOps forms none of these merges. It is not a cost model either.
#pragma once

#include "ir/fusion/fuse_ops.h"
#include "ir/graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace lightsim::ir::fusion {

// Merges groups of `grouping` as above. Returns, per op of the graph, 1 when its group loads vectors (a
// normalisation that took a residual add), else 0.
std::vector<std::uint8_t> merge_vllm_kernels(const Graph& graph, Grouping& grouping);

// The row kernel of a group of members `body` (compute ops) whose outputs leaving it are `outputs`; none
// (all zero) for a group with an anchor or one that only moves data.
RowKernel vllm_row_kernel(const Graph& graph, std::span<const OpId> body, std::span<const TensorId> outputs,
                          bool vectorized, int row_cta_threads, int vector_access_bytes);

} // namespace lightsim::ir::fusion
