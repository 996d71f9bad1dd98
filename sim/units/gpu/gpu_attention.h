// Fused attention as FlashAttention-2's forward kernel runs it on a GPU (GpuParams::flash_attention):
// the kernel the GPU module and the arithmetic model time a fused attention op by when the config has one.
//
// The grid: one CTA per (batch element, block of block_m queries, key split), queries fastest, as the
// block scheduler hands them out: CTA c to SM c mod sms. A CTA steps through the key blocks (block_n
// keys) its queries see: with a causal mask query i of m sees n - m + i + 1 of n keys, so a query block
// stops at the block of its last query's last key. One block costs the MMAs of both products on
// block_m x block_n pairs (block_m x block_n x (k + value_dim) MACs at the tensor cores' rate over
// main_loop_efficiency) and then the softmax's exponentials (block_m x block_n at exp_per_cycle_per_sm):
// FlashAttention-2's warps do one after the other (the softmax's other operations, maximum, scale and
// sum, issue beside the exponentials and are not counted; nor is a fused tail's). An SM holds ctas_per_sm
// CTAs: their fixed times (cta_latency_ns: the loads before the first block, the writes after the last)
// overlap that many ways, their blocks share the tensor cores. The kernel takes its busiest SM's time, or the
// memory stream of its traffic (gpu_attention_shapes) when that is longer. Split keys (FlashAttention-2's
// split heuristic, as PyTorch's copy runs it): count the CTAs of the split kernel's query blocks
// (split_block_m) and its key blocks (split_block_n); when the CTAs fill less than 0.8 of the SMs, split each
// query block's keys over s CTAs: the least s whose last wave fills at least 0.85 of the best fill any s up
// to min(128, sms, key blocks) reaches, counting only s that change the blocks per split. With s > 1 the
// split kernel runs (its blocks; every split a CTA), and a second kernel combines the s partial results (fp32
// O and log-sum-exp, written and read back): decode (one query, a long context) is the case. Like every
// tensor-core kernel it takes launch_latency_ns + gemm_prologue_ns besides; setup_kernels small kernels (a
// memset) precede it when there is more than one query.
//
// It is not the traffic model (gpu_attention_shapes, gpu_kernel.h) nor the SystemC module.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"

#include <cstdint>

namespace lightsim::units {

struct GpuFlashKernel {
  std::int64_t query_blocks = 0; // per batch element: ceil(m / the kernel's block_m)
  std::int64_t splits = 1;       // CTAs each query block's keys are split over
  std::int64_t ctas = 0;         // batch x query_blocks x splits
  std::int64_t key_blocks = 0;   // blocks the busiest SM steps through
  double block_cycles = 0;       // one key block of one CTA: MMAs + exponentials
  double busiest_sm_ns = 0;      // fixed times (overlapped ctas_per_sm ways) + blocks of the busiest SM
  double stream_ns = 0;          // the op's FlashAttention-2 traffic at the memory's (and L2's) rate
  double combine_ns = 0;         // split keys: launch + the partial results written and read back
  double setup_ns = 0;           // setup_kernels x launch_latency_ns
  double kernel_ns = 0;          // setup + launch + gemm_prologue_ns + max(busiest SM, stream) + combine
};

// FlashAttention-2's choice of key splits for `ctas` query-block CTAs on `slots` SMs with `key_blocks` key
// blocks (see above); 1 when they fill the SMs or there is one key block.
std::int64_t gpu_flash_attention_splits(std::int64_t ctas, std::int64_t slots, std::int64_t key_blocks);

// Requires a fused attention op (attention_value_dim > 0, a GEMM view) and flash_attention.block_m > 0.
GpuFlashKernel gpu_flash_attention_kernel(const ir::Unit& gpu, const ir::OpFeatures& op);

} // namespace lightsim::units
