// PHU work: how much work an op is for the photonic MAC array, counted the way its module
// (photonic_mac_array.h) times it, so that the arithmetic model's PHU features (phu_kind.cc) count exactly
// what the module counts: weight tiles, converter samples and conversion steps, the periphery's element
// operations, and what the array materialises (im2col patches).
//
// It is not the module: photonic_mac_array.h times and charges ops in the replay.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "sim/units/phu/phu_params.h"

#include <cstdint>

namespace lightsim::units {

// The weight tiles the array holds at once as it runs: its weight_buffers with latency hiding on, else 1.
int phu_weight_buffers_in_use(const ir::Unit& phu);

// Bytes the array's memory moves for an op beyond its operands read and written once: for a convolution the
// patch (im2col) matrix's bytes beyond the data tensor (it streams every patch through its DACs, so its
// periphery gathers the patches from its memory: OpFeatures::im2col_extra_bytes); with buffer levels
// (PhuParams::buffers) the GEMM's re-sends and output round trips too (phu_buffer_traffic).
double phu_materialised_bytes(const ir::Unit& phu, const ir::OpFeatures& op);

struct PhuGemmWork {
  std::int64_t weight_tiles = 0;   // batch x ceil(k / rows) x ceil(n / cols): passes of the array
  std::int64_t streamed_sends = 0; // the streamed m x k operand's deliveries: batch x ceil(n / cols)
  double dac_samples = 0;          // m x k x streamed_sends (+ batch x ceil(m / wdm) x k x n dynamic)
  double adc_samples = 0;          // batch x m x n x ceil(ceil(k / rows) / accumulation_cycles)
  double weight_cells = 0;         // batch x k x n: cells programmed (0 with dynamic operands)
  double reload_ns = 0, optics_ns = 0, dac_ns = 0, adc_ns = 0; // each summed over tiles
  double busy_ns = 0;          // the GEMM's time on the array: tile reloads and streams, as below
  double stream_ns = 0;        // summed over tiles: max(optics, DAC, ADC) of each
  double hidden_reload_ns = 0; // reload_ns + stream_ns - busy_ns: programming overlapped with streaming
  double macs = 0;
  double optical_macs = 0; // macs x the streamed operand's sign passes (PhuParams::input_sign_passes)
  // The GEMM as mapped (its operands' roles exchanged or not): m streamed rows, n array columns.
  std::int64_t mapped_m = 0, mapped_n = 0, k = 0, batch = 0;
};
PhuGemmWork phu_gemm_work(const ir::Unit& phu, const ir::OpFeatures& op); // zeros without a GEMM view
// An m x k by k x n GEMM, `batch` times: weight tiles of rows x cols (partial ones at the edges), each
// programmed in weight_reload_ns (r) and streamed (s_i) at the pace of the slowest of optics
// (ceil(m / wdm) cycles), DACs (m x tile rows samples) and ADCs (m x tile cols samples), the converters at
// the sample rate their bits allow (converter_sample_rate_gsps). With analog accumulation (A =
// accumulation_cycles) the k blocks of an n block integrate A passes at a time: only a pass that ends such a
// group (the A-th, 2A-th, ... and the last) reads its outputs through the ADCs (m x tile cols samples);
// the others stream at the pace of optics and DACs alone. With dynamic operand encoding nothing is
// programmed (r = 0, no weight cells): each of a pass's ceil(m / wdm) cycles modulates the tile's
// k_tile x n_tile operand through the DACs beside the m x k_tile inputs, so the DACs' samples per pass are
// m x k_tile + ceil(m / wdm) x k_tile x n_tile.
// busy_ns, with phu_weight_buffers_in_use(phu) tiles held at once:
//   1 buffer:  sum_i (r + s_i)                                   (program, then stream, tile by tile)
//   2 buffers: r + sum_i max(r, s_i) - (max(r, s_T) - s_T)      (program tile i+1 while tile i streams)
// The 2-buffer form is one exposed reload plus T steps of max(reload, stream), except that the last tile
// T (the last k block of the last n block: partial where k or n is) has nothing left to program behind
// it, so its step is its stream alone. With s_i >= r it is r + sum_i s_i.
// With dynamic operands the mapping may also exchange the operands' roles (C^T = B^T A^T: n streamed, the
// m x k operand on the array), taken when it is faster.
// Tiles (PhuParams::tiles): broadcast tiles are the array above. Private tiles take the batch's column
// blocks of cols / tiles in (element, block) order, `tiles` to a pass: a pass over blocks of s batch
// elements streams s operands (m x k_tile DAC samples each) and uses the columns its blocks hold, so the
// counts above read with passes along n = ceil(batch x ceil(n / (cols / tiles)) / tiles) instead of
// batch x ceil(n / cols) (the same where batch is 1 or the blocks of an element fill whole passes).
// Independent tiles take the GEMM's rows x (cols / tiles) blocks (batch x ceil(k / rows) x ceil(n / (cols /
// tiles)) of them), `tiles` to a pass, longest stream first: a pass lasts its longest block's stream
// (optics, or the tile's dac.count / tiles DACs and adc.count / tiles ADCs) and programs its blocks at once.
// Sign passes (PhuParams::input_sign_passes, 1 when `streamed_nonnegative`): every stream above runs that
// many times (its time, DAC and ADC samples, streamed sends and optical MACs; weights are programmed once).
PhuGemmWork phu_gemm_work(const ir::Unit& phu, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch, bool streamed_nonnegative = false);

// A GEMM's traffic through the PHU's buffer levels (PhuParams::buffers; all zero without them), in bytes,
// from its mapping (m rows streamed, n columns on the array of `cols`, reduction k; e_in and e_out the
// operand and output element sizes, from the op's bytes per element):
//   memory_extra_bytes: what its memory moves beyond reading each operand and writing each output once:
//       the streamed operand sent again for every further pass along n, m x k x (streamed_sends - batch)
//       x e_in, and the outputs' round trips, batch x m x n x (2 s - 2) x e_out, where s =
//       ceil(cols x k x e_in / local_buffer_bytes) is the segments the reduction runs in (1 when a column
//       block's k slices of the array operand fit the local buffer: the outputs stay in the registers);
//   local_buffer_bytes: every DAC sample and programmed weight cell read from it (e_in each), every element
//       the memory sends written into it (the operands as above), the outputs written out and read back
//       (batch x m x n x (2 s - 1) x e_out);
//   register_file_bytes: every DAC sample and weight cell (e_in) and every ADC sample (e_out) written into a
//       register and read once: 2 x that;
//   partial_sum_network_bytes: every ADC sample to the adders (e_out).
// As Lightening-Transformer's simulator counts its RF, NoC, GB1 and GB2 traffic (Zhu et al., HPCA 2024;
// configs/published/README.md).
struct PhuBufferTraffic {
  double memory_extra_bytes = 0, local_buffer_bytes = 0, register_file_bytes = 0,
         partial_sum_network_bytes = 0;
  std::int64_t output_segments = 1;
};
PhuBufferTraffic phu_buffer_traffic(const ir::Unit& phu, const ir::OpFeatures& op, const PhuGemmWork& work);

// What an op is for the array: the products it runs there and their buffer traffic. A GEMM view is one
// product (phu_gemm_work, phu_buffer_traffic). Fused attention (OpClass::Attention: [b, m, n] scores of
// Q [b, m, k] K^T, then [b, m, n] x [b, n, dv]) is Q K^T and then P V on the array, summed, its softmax in
// the periphery, tiled to the local buffer as FlashAttention tiles to on-chip memory: its memory traffic is
// ir::attention_memory_bytes' (the unit's memory moves nothing beyond it: memory_extra_bytes 0), the
// products' traffic through the registers, network and local buffer as for any GEMM. Zeros for other ops.
struct PhuOpWork {
  PhuGemmWork gemm; // counts and times summed over the products (mapped_* are the first's)
  PhuBufferTraffic traffic;
};
PhuOpWork phu_op_work(const ir::Unit& phu, const ir::OpFeatures& op);
// The on-chip memory fused attention is tiled to: the local buffer (PhuParams::buffers); 0: none.
double phu_attention_on_chip_bytes(const ir::Unit& phu);

// The PHU's electronic periphery: one digital ALU behind each ADC, at the ADC sample rate (the pace at
// which it already accumulates the partial sums of the K tiles). Element operations per ns, and the time
// it takes for `ops` of them.
double phu_periphery_ops_per_ns(const PhuParams& phu);
double phu_periphery_ns(const PhuParams& phu, double ops);
// The time a GEMM's lasers draw power: its busy time, or with laser_gated its tiles' streams alone.
double phu_laser_ns(const PhuParams& phu, const PhuGemmWork& work);

// Walden conversion steps of a GEMM (a conversion at b bits is 2^b steps): input DAC samples, ADC samples
// and weight cells (programmed through DACs), each x 2^(that converter's bits).
struct PhuConversionSteps {
  double dac = 0, adc = 0, weight = 0;
};
PhuConversionSteps phu_conversion_steps(const ir::Unit& phu, const PhuGemmWork& work);

} // namespace lightsim::units
