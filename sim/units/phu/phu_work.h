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

// Bytes the array's memory moves for a convolution beyond its operands because it materialises the patch
// (im2col) matrix: it streams every patch through its DACs (dac_samples below count M x K per weight
// tile), so its periphery gathers the patches from its memory: the patch matrix's bytes beyond the data
// tensor (OpFeatures::im2col_extra_bytes).
double phu_materialised_bytes(const ir::OpFeatures& op);

struct PhuGemmWork {
  std::int64_t weight_tiles = 0; // batch x ceil(k / rows) x ceil(n / cols): passes of the array
  double dac_samples = 0;        // batch x m x k x ceil(n / cols) (+ batch x ceil(m / wdm) x k x n dynamic)
  double adc_samples = 0;        // batch x m x n x ceil(ceil(k / rows) / accumulation_cycles)
  double weight_cells = 0;       // batch x k x n: cells programmed (0 with dynamic operands)
  double reload_ns = 0, optics_ns = 0, dac_ns = 0, adc_ns = 0; // each summed over tiles
  double busy_ns = 0;          // the GEMM's time on the array: tile reloads and streams, as below
  double stream_ns = 0;        // summed over tiles: max(optics, DAC, ADC) of each
  double hidden_reload_ns = 0; // reload_ns + stream_ns - busy_ns: programming overlapped with streaming
  double macs = 0;
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
PhuGemmWork phu_gemm_work(const ir::Unit& phu, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch);

// The PHU's electronic periphery: one digital ALU behind each ADC, at the ADC sample rate (the pace at
// which it already accumulates the partial sums of the K tiles). Element operations per ns, and the time
// it takes for `ops` of them.
double phu_periphery_ops_per_ns(const PhuParams& phu);
double phu_periphery_ns(const PhuParams& phu, double ops);

// Walden conversion steps of a GEMM (a conversion at b bits is 2^b steps): input DAC samples, ADC samples
// and weight cells (programmed through DACs), each x 2^(that converter's bits).
struct PhuConversionSteps {
  double dac = 0, adc = 0, weight = 0;
};
PhuConversionSteps phu_conversion_steps(const ir::Unit& phu, const PhuGemmWork& work);

} // namespace lightsim::units
