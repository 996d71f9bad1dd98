// Fused attention (--fuse flash): finds the pattern QK^T batch_matmul -> (reshapes, scale, mask) ->
// softmax -> (reshapes) -> AV batch_matmul, whose scores and probabilities TVM's rules would write to memory
// between four kernels, and makes it one group, which the fused graph turns into one OpClass::Attention op
// (inputs Q, K, the scale and mask operands, V; output O). The unit runs it as FlashAttention does (Dao
// et al., "FlashAttention", NeurIPS 2022): tiled to its on-chip memory, the N x N scores never leave the
// chip (its memory traffic and time: ir/cost/unit_work.h, sim/hw/gpu.h).
//
// The pattern, op by op from the AV product upwards: AV's first operand comes through reshapes (Nop) and
// identity copies (a broadcast_to to its input's own shape) from a softmax; the softmax's input comes
// through those and elementwise / broadcast ops (divide or multiply by a scale, add or where with a mask)
// from the QK^T product. Every op between the two products has exactly one consumer and is no graph
// output; each elementwise op takes the chain through one operand (the one the product is found through)
// and reads the others (a scale, a mask: graph inputs, constants or computed before) as the fused op's; the
// products agree on batch and rows (QK^T is [b, m, n], AV [b, m, n] x [n, dv]). Upwards from Q, K and V
// the group also takes what a FlashAttention kernel does as it loads them: layout ops (reshapes, transposes,
// identity copies: it reads its operands through strides) and a multiply or divide by a scalar constant (the
// softmax scale the exports split over Q and K), each with one consumer and no graph output; the fused op
// reads the tensors before them. Anything else stays as TVM would fuse it, and the group takes none of the
// ops that compute its operands (ir/fusion/fuse_ops.h).
//
// It is not a cost model: it only finds the groups.
#pragma once

#include "ir/graph.h"

#include <vector>

namespace lightsim::ir::fusion {

// One op list per attention found, in op order, the AV product last. No op is in two lists.
std::vector<std::vector<OpId>> find_attention(const Graph& graph);

} // namespace lightsim::ir::fusion
