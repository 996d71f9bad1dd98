// Unit work: what every kind of unit shares in counting an op's work: its element operations, its GEMM
// view, and the bytes its unit's memory moves for it (operands, FlashAttention's traffic for fused
// attention, and whatever the unit's kind materialises beyond its operands). The kinds count the rest
// of their work themselves (sim/units/<kind>/: a CPU's SIMD cycles, a GPU's kernels, a PHU's tiles).
//
// It is not a timing model: the kinds' work counts and SystemC modules time ops.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"

namespace lightsim::ir {

// Element operations besides MACs (OpFeatures::elementwise_ops): the anchor's own (max(elements_read,
// elements_out) for an op without MACs, else 0) plus those of its fused tail.
double elementwise_ops(const OpFeatures& op);

// True when the op has a GEMM view (batch, m, n, k all positive).
bool has_gemm_view(const OpFeatures& op);

// FlashAttention (Dao et al., NeurIPS 2022, Algorithm 1) on an on-chip memory of `on_chip_bytes`:
// blocks of Bc = ceil(M / 4d) keys and values and Br = min(Bc, d) queries, M = on-chip elements, d = head
// dim. Per head: K and V are read once; O, l and m are initialised in memory; for each of the
// Tc = ceil(n / Bc) key blocks, every query block reads Q_i, O_i, l_i, m_i and writes O_i, l_i, m_i.
// Bytes = batch x (e x (n (d + dv) + m dv + Tc m (d + 2 dv)) + 4 x (2 m + 4 Tc m)) + mask bytes, with e the
// element size and l, m kept in fp32 (4 bytes): Theta(n^2 d^2 / M) for m = n, not the n^2 of materialised
// scores. Zero for an op that is not Attention.
double attention_memory_bytes(const OpFeatures& op, double on_chip_bytes);
// What the unit's memory moves for an op: attention_memory_bytes for Attention (tiled to the kind's
// attention_on_chip_bytes), else bytes_read + bytes_out + what the kind materialises
// (UnitKind::materialised_bytes: a PHU's im2col patches).
double operand_bytes(const Unit& unit, const OpFeatures& op);

} // namespace lightsim::ir
