// GPU kernels as the GPU module (gpu_module.h) and the arithmetic model's GPU features time them: which
// GEMM kernel runs a shape and how long it takes, and how long a kernel takes to stream bytes.
//
// A GEMM C[m x n] = A[m x k] B[k x n] (`batch` times) in a precision the operands' dtype picks (tensor
// cores when the GPU has them for it, else CUDA cores; fp32 as TF32 when the config says so). A kernel
// is a CTA tile from the config and a split-K factor. Its CTAs (batch x ceil(m/tm) x ceil(n/tn) x
// split_k; a partial last tile computes its padding) run in waves of one CTA per SM (co-resident CTAs
// would share the SM's cores, so an SM's share of the work is what counts), the last wave partial. A CTA
// steps through its k range k_bytes at a time; each step costs the slower of its MMA issue (tile MACs /
// MACs per cycle per SM) and its shared-memory traffic (the step's operands written once, read by every
// warp for its warp tile), over main_loop_efficiency, or of the wave's share of the memory stream,
// whichever is longer: memory traffic overlaps compute step by step. Operand tiles are shared by the
// CTAs that need them through the L2, so the memory stream is the op's operands and result once each,
// spread evenly over the CTAs, at memory_efficiency x the memory's bandwidth. Each wave adds a prologue
// and an epilogue (one memory latency each; with persistent_epilogues, Hopper's warp-specialised kernels,
// only the kernel's first and last: producer warps load a tile while consumers write the one before),
// each kernel launch_latency_ns + gemm_prologue_ns. Where the
// GPU has an L2 (`l2`), the activations among the operands stream at the L2's bandwidth when they fit in
// its reach (gpu_l2_bytes), the weights at the memory's rate. Split-K (only when the tiles
// do not fill the SMs) adds a second kernel that reduces the fp32 partial sums, which go through memory.
// With `stream_k` (Hopper's libraries) each tile also has a persistent stream-K candidate: one CTA per SM;
// the tiles of the full waves run data-parallel, and the main-loop steps of the last, partial wave's tiles
// are spread evenly over every SM, so each SM runs ceil(tiles x k steps / sms) steps (no wave
// quantisation). An SM that ends a tile's K range part-way writes its fp32 partial tile, which the tile's
// owner reads back (one partial per SM at most); the partials go through the L2 when they fit in
// the L2 (at its bandwidth), else through memory, after one more prologue and epilogue.
// The selection takes the candidate of least time, as a GEMM library's heuristic or a shape-specialising
// compiler would; ties keep the earlier tile, the smaller split and the classic kernel.
//
// It is not a SystemC module and holds no cache: callers that time many ops cache per shape.
#pragma once

#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "sim/units/gpu/gpu_params.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace lightsim::units {

using ir::DType;

struct GpuGemmShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  DType dtype = DType::Float32; // the operands'
  double memory_bytes = 0;      // operands read + result written, each once
  double weight_bytes = 0;      // of memory_bytes, bound weights (the rest may stream through the L2)
  double l2_bytes = -1;         // of memory_bytes, those through the L2; < 0: gpu_l2_bytes decides
};
// From an op's GEMM view; memory_bytes = bytes read + bytes written.
GpuGemmShape gpu_gemm_shape(const ir::OpFeatures& op);

struct GpuGemmEngine {
  GemmPrecision precision = GemmPrecision::Float32;
  bool tensor_cores = false;
  double macs_per_cycle_per_sm = 0;
  int operand_bytes = 4;
};
// The engine and rate a GEMM with operands of `dtype` runs at; nullopt when the GPU has no rate for it.
std::optional<GpuGemmEngine> gpu_gemm_engine(const GpuParams& gpu, DType dtype);

struct GpuGemmKernel {
  std::size_t tile = 0;        // index in GpuParams::cta_tiles
  bool stream_k = false;       // a persistent stream-K kernel (split_k 1; waves: tiles per SM, rounded up)
  std::int64_t split_k = 1;    // CTAs per output tile, each on k / split_k
  std::int64_t tiles = 0;      // batch x ceil(m / tile m) x ceil(n / tile n)
  std::int64_t ctas = 0;       // tiles x split_k
  std::int64_t waves = 0;      // ceil(ctas / sms)
  std::int64_t k_steps = 0;    // main-loop steps of one CTA (stream-K: of one SM, over all its tiles)
  double step_cycles = 0;      // one step of one CTA: max(MMA issue, shared memory) / main_loop_efficiency
  double main_loop_cycles = 0; // over the waves: k_steps x max(step_cycles, the wave's memory share)
  double wave_overhead_ns = 0; // gpu_wave_overhead_ns: waves (or 1) x 2 x memory latency
  double reduction_ns = 0;     // split-K: launch + the partial sums written and read back
  double kernel_ns = 0; // launch + gemm_prologue_ns + main_loop_cycles / clock + wave overheads + reduction
  // The kernel's duration beyond its launch latency and prologue, in unit cycles (the arithmetic model's
  // feature).
  double cycles_after_launch(double clock_ghz) const;
  // Main-loop steps one SM runs: waves x k_steps, or k_steps of a stream-K kernel.
  std::int64_t steps_per_sm() const { return stream_k ? k_steps : waves * k_steps; }
};

// The prologues and epilogues of a GEMM kernel's waves: one memory latency each per wave, or with
// persistent_epilogues once for the kernel (a wave's epilogue overlaps the next wave's loads).
double gpu_wave_overhead_ns(const GpuParams& gpu, std::int64_t waves);
// Split-K factors tried for `tiles` output tiles: 1, or 1..min(k steps, sms / tiles) when they do not fill.
std::int64_t gpu_max_split_k(const GpuParams& gpu, std::int64_t tiles, std::int64_t k_steps);
// One candidate kernel; requires an engine for shape.dtype and tile < cta_tiles.size().
GpuGemmKernel gpu_gemm_candidate(const ir::Unit& gpu, const GpuGemmShape& shape, std::size_t tile,
                                 std::int64_t split_k);
// The stream-K candidate of a tile (GpuParams::stream_k); requires what gpu_gemm_candidate does.
GpuGemmKernel gpu_stream_k_candidate(const ir::Unit& gpu, const GpuGemmShape& shape, std::size_t tile);
// The candidate of least kernel_ns over every tile and split-K factor (and stream-K when the GPU has it).
// Throws InputError naming the unit when it has no rate for the dtype (ir::check_gpu_gemm_rates reports that
// earlier, with the op).
GpuGemmKernel gpu_gemm_kernel(const ir::Unit& gpu, const GpuGemmShape& shape);

// A row kernel (ir/graph.h RowKernel: vLLM's normalisation, rotary-embedding and activation kernels, one
// CTA per row). An SM holds min(max_ctas_per_sm, max_threads_per_sm / threads_per_cta) of its CTAs, so the
// rows run in waves of sms x that many, the last wave partial. A CTA's threads step through each pass's
// items threads_per_cta at a time; a step is one round of dependent accesses, its round trip
// row_step_latency_ns, so a wave's chain is steps x that. The kernel's stream: `memory_bytes` (inputs read
// once, outputs written once), those the L2 holds (gpu_l2_bytes) at its bandwidth, the rest at
// row_memory_efficiency x the memory's peak. Waves one after another: each its chain plus its rows' share
// of the stream (a step's accesses queue at the memory together). Waves that overlap (row_wave_overlap):
// chain + max((waves - 1) x chain, stream), the later waves' latency behind the stream. A wave of few rows
// is latency-bound, many waves bandwidth-bound, and a kernel that loads one element per access takes more
// steps than one that loads vectors: what sets the measured rate of such kernels
// (configs/measured/a100-fidelity.md, h100-fidelity.md).
struct GpuRowKernel {
  std::int64_t ctas_per_wave = 0; // sms x CTAs per SM
  std::int64_t waves = 0;
  std::int64_t steps = 0; // per CTA: passes x ceil(items_per_row / threads_per_cta)
  double main_ns = 0;     // over the waves, launch not included
  double kernel_ns = 0;   // launch_latency_ns + main_ns
};
// Requires a row kernel (rows, items, threads and passes all positive).
GpuRowKernel gpu_row_kernel(const ir::Unit& gpu, const ir::RowKernel& kernel, double memory_bytes);

// Passes a softmax or normalisation kernel makes over its rows (ir::OpFeatures::row_elements): 1 when a
// row fits one CTA (one_pass_row_elements 0 or not exceeded), else the op's row_passes_off_chip; 1 for
// every other op.
int gpu_row_passes(const GpuParams& gpu, const ir::OpFeatures& op);
// Bytes a multi-pass kernel reads again after its first pass: (passes - 1) x the op's bytes read.
double gpu_reread_bytes(const GpuParams& gpu, const ir::OpFeatures& op);

// Of a kernel's `bytes` streamed, those that go through the L2: the activations A (all but `weight_bytes`:
// what a kernel reads was just written by the kernels before it, and what it writes stays there for the
// next) when A fits in the L2's reach R, else the 2R - A of them that a least-recently-used cache still
// holds (each byte beyond R evicts one that would have been reused), none from 2R on; 0 without an L2.
double gpu_l2_bytes(const GpuParams& gpu, double bytes, double weight_bytes);
// The share of the memory's peak a non-GEMM kernel anchored on `anchor` streams at: memory_efficiency for
// kernels that reduce along rows (softmax, norms, reductions, scans: each row waits for its reduction
// before it is written), stream_memory_efficiency for those that read each element once and write it.
double gpu_stream_efficiency(const GpuParams& gpu, ir::OpClass anchor);
// How much longer than the L2's the round trip of a kernel that streams `bytes`, `l2_bytes` of them through
// the L2, is: the memory's latency less the L2's when some byte comes from memory; 0 when the L2 serves
// them all or has no latency of its own (then every round trip is the memory's).
double gpu_memory_round_trip_ns(const GpuParams& gpu, double bytes, double l2_bytes);
// The bandwidth part of moving `bytes`, `l2_bytes` of them through the L2, no latency:
// (bytes - l2_bytes) / (bandwidth x `efficiency`) + l2_bytes / the L2's bandwidth.
double gpu_transfer_ns(const GpuParams& gpu, double efficiency, double bytes, double l2_bytes);
// Time for a streaming kernel to move `bytes`, `l2_bytes` of them through the L2: one round trip (the L2's
// latency when it serves every byte, else the memory's) + gpu_transfer_ns; 0 for no bytes.
double gpu_stream_ns(const GpuParams& gpu, double efficiency, double bytes, double l2_bytes = 0);

// Throws InputError "<config>: units[i] '<gpu>': <field>: no rate for <dtype>, which <op> '<name>' ..."
// for the first GEMM-like op of `graph` whose dtype GPU `unit` of `hw`, able to run it, has no rate for.
void check_gpu_gemm_rates(const ir::Hardware& hw, int unit, const ir::Graph& graph);

// Fused attention on a GPU, one kernel on the tensor cores: QK^T (batch x (m x k) * (k x n)) streams the
// op's FlashAttention traffic with its main loop; AV (batch x (m x n) * (n x value_dim)) works on the
// probabilities and V blocks already on chip (no memory stream of its own). The traffic is
// FlashAttention-1's (operand_bytes), or with flash_attention_2: Q, K, V, O (and a mask read from memory)
// once from memory, and K and V again for each further query block of br rows (br as the FlashAttention-1
// model sizes its blocks, from the SM's shared memory), those re-reads through the L2 when the K and V of
// the heads in flight (min(batch, ceil(sms / query blocks))) fit in it, else memory. A causal mask
// (attention_causal) keeps the visible fraction of the keys (gpu_attention_fraction) in both products, the
// re-reads and the element operations.
struct GpuAttentionShapes {
  GpuGemmShape scores, values;
};
GpuAttentionShapes gpu_attention_shapes(const ir::Unit& gpu, const ir::OpFeatures& op);
// The share of the (query, key) pairs a flash_attention_2 kernel computes: with a causal mask, query i of m
// sees n - m + i + 1 of n keys, so (m (n - m) + m (m + 1) / 2) / (m n); 1 without one or without
// flash_attention_2.
double gpu_attention_fraction(const GpuParams& gpu, const ir::OpFeatures& op);
// Cycles a softmax or normalisation kernel (row_elements > 0, not a vLLM row kernel) spends on its
// instructions over all SMs: elements read x row_reduction_cycles_per_element / sms; 0 for other ops.
double gpu_row_reduction_cycles(const GpuParams& gpu, const ir::OpFeatures& op);
// Clock cycles of the compute side of an op on a GPU, memory traffic excluded: for a GEMM, its kernel's
// duration beyond the launch latency (GpuGemmKernel::cycles_after_launch: main loop with memory overlapped
// per step, wave prologues and epilogues, split-K reduction); fused attention on a GPU with
// flash_attention: its FlashAttention-2 kernel beyond its launch and prologue (gpu_attention.h: the
// exponentials included), nothing added; else both products as GEMM kernels; plus the element operations (the
// fused tail's included) on the CUDA cores, or a softmax's or normalisation's instructions
// (gpu_row_reduction_cycles) when those take longer.
double gpu_compute_cycles(const ir::Unit& gpu, const ir::OpFeatures& op);

} // namespace lightsim::units
