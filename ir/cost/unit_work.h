// Unit work: how much work an op is for one unit, counted the way the SystemC modules in sim/ time it
// (SIMD instructions on a CPU, tensor-core tile waves on a GPU, weight tiles and converter samples on the
// photonic MAC array). These are the unit-aware features of the arithmetic model (ir::Feature): a linear
// fit on them can follow the detailed models exactly wherever their timing is linear in these counts.
//
// It is not a timing model: no bandwidths, latencies or contention here, only counts and cycles.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"

#include <cstdint>

namespace lightsim::ir {

// Element operations besides MACs (OpFeatures::elementwise_ops): the anchor's own (max(elements_read,
// elements_out) for an op without MACs, else 0) plus those of its fused tail.
double elementwise_ops(const OpFeatures& op);

// True when the op has a GEMM view (batch, m, n, k all positive).
bool has_gemm_view(const OpFeatures& op);

struct GpuGemmWork {
  std::int64_t tiles = 0;    // batch x ceil(m / tile_m) x ceil(n / tile_n) output tiles
  std::int64_t waves = 0;    // ceil(tiles / (sms x tensor_cores_per_sm)), the last one partly idle
  std::int64_t k_passes = 0; // ceil(k / tile_k) tile passes per output tile
};
GpuGemmWork gpu_gemm_work(const GpuParams& gpu, const OpFeatures& op); // zeros without a GEMM view
GpuGemmWork gpu_gemm_work(const GpuParams& gpu, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch);

struct PhuGemmWork {
  std::int64_t weight_tiles = 0;                               // batch x ceil(k / rows) x ceil(n / cols)
  double dac_samples = 0;                                      // batch x m x k x ceil(n / cols)
  double adc_samples = 0;                                      // batch x m x n x ceil(k / rows)
  double reload_ns = 0, optics_ns = 0, dac_ns = 0, adc_ns = 0; // each summed over tiles
  double busy_ns = 0; // sum over tiles of weight_reload_ns + max(optics, DAC, ADC) streaming time
  double macs = 0;
};
PhuGemmWork phu_gemm_work(const Unit& phu, const OpFeatures& op); // zeros without a GEMM view
// An m x k by k x n GEMM, `batch` times: weight tiles of rows x cols (partial ones at the edges), each
// programmed in weight_reload_ns, then streamed at the pace of the slowest of optics (ceil(m / wdm) cycles),
// DACs (m x tile rows samples) and ADCs (m x tile cols samples).
PhuGemmWork phu_gemm_work(const Unit& phu, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch);

// The PHU's electronic periphery: one digital ALU behind each ADC, at the ADC sample rate (the pace at
// which it already accumulates the partial sums of the K tiles). Element operations per ns, and the time
// it takes for `ops` of them.
double phu_periphery_ops_per_ns(const PhuParams& phu);
double phu_periphery_ns(const PhuParams& phu, double ops);

// Clock cycles of the compute side of an op on `unit`, memory traffic excluded:
// CPU: (macs + elementwise_ops) / (vector_width x (fma ? 1 : 0.5)) on one core;
// GPU: waves x k_passes x tile_cycles (both products for Attention) + elementwise_ops /
//      (elementwise_flops_per_cycle_per_sm x sms);
// PHU: max(busy_ns of a GEMM (weight reloads included), periphery time of the elementwise ops) x clock_ghz:
//      the periphery works on the result stream while the optics compute.
double compute_cycles(const Unit& unit, const OpFeatures& op);

// Fused attention's AV product: batch x (m x n) * (n x value_dim).
GpuGemmWork gpu_attention_value_work(const GpuParams& gpu, const OpFeatures& op);

// FlashAttention (Dao et al., NeurIPS 2022, Algorithm 1) on an on-chip memory of `on_chip_bytes`:
// blocks of Bc = ceil(M / 4d) keys and values and Br = min(Bc, d) queries, M = on-chip elements, d = head
// dim. Per head: K and V are read once; O, l and m are initialised in memory; for each of the
// Tc = ceil(n / Bc) key blocks, every query block reads Q_i, O_i, l_i, m_i and writes O_i, l_i, m_i.
// Bytes = batch x (e x (n (d + dv) + m dv + Tc m (d + 2 dv)) + 4 x (2 m + 4 Tc m)) + mask bytes, with e the
// element size and l, m kept in fp32 (4 bytes): Theta(n^2 d^2 / M) for m = n, not the n^2 of materialised
// scores. Zero for an op that is not Attention.
double attention_memory_bytes(const OpFeatures& op, double on_chip_bytes);
// The on-chip memory a unit tiles attention to: a GPU's shared memory per SM (one thread block per head
// block runs on one SM); 0 on units without one (they cannot run fused attention).
double attention_on_chip_bytes(const Unit& unit);
// What the unit's memory moves for an op: attention_memory_bytes for Attention, else bytes_read + bytes_out.
double operand_bytes(const Unit& unit, const OpFeatures& op);

} // namespace lightsim::ir
