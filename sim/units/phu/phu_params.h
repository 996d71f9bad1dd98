// The photonic MAC array's parameters (config keys of a unit with `kind: phu`): the array and its
// wavelengths, weight programming, the DAC and ADC banks and their precision, laser and MAC energy; their
// field table, which declares each key once (ir/hardware/fields.h); and the converters' pace and energy at
// their bits (configs/README.md, "Converter precision").
//
// It is not the PHU's timing: phu_work.h counts tiles and samples, photonic_mac_array.h times them.
#pragma once

#include "ir/hardware/fields.h"
#include "ir/names.h"

#include <array>
#include <cstdint>
#include <optional>

namespace lightsim::units {

// A bank of DACs or ADCs. Precision sets both their pace and their energy: a conversion at b bits takes
// b + 1 cycles of bit_clock_ghz (a SAR ADC samples in one cycle and decides one bit per cycle; a DAC
// settles to half an LSB in (b + 1) ln 2 time constants) and costs fom_fj_per_step x 2^b (Walden figure
// of merit: energy per conversion step).
struct ConverterParams {
  int count = 1;
  double bit_clock_ghz = 1;   // bit cycles per ns
  double fom_fj_per_step = 0; // Walden figure of merit, fJ per conversion step
  std::optional<int> bits;    // unset: the PHU's bits
  friend bool operator==(const ConverterParams&, const ConverterParams&) = default;
};

// How the array takes its second operand (the k x n one). Static: programmed into the array's cells once
// per tile (weight_reload_ns of settling, one DAC conversion per cell: component weight_programming), then
// held while the m input vectors stream. Dynamic: modulated at the input rate like the first operand,
// every cycle, through the same DAC bank (as dynamically operated photonic tensor cores do, e.g.
// Lightening-Transformer's DPTC): no programming time or energy, a second operand that may be an
// activation (attention's Q K^T and S V) at the cost of k_tile x n_tile more DAC samples per cycle.
enum class OperandEncoding : std::uint8_t { Static, Dynamic };
inline constexpr ir::NameTable kOperandEncodings{
    std::array{std::pair{OperandEncoding::Static, std::string_view("static")},
               std::pair{OperandEncoding::Dynamic, std::string_view("dynamic")}}};

// The on-chip levels between the PHU's memory (the unit's `memory`: its global buffer) and its converters
// (config `buffers`; absent: each operand goes between the memory and the converters once, at the memory's
// energy alone). With them a GEMM's data moves as the array's mapping makes it (phu_work.h,
// phu_buffer_traffic): the streamed operand is sent from the memory once per column block of the array
// (broadcast to every column of it), the array operand once, both through the local buffer into the
// registers beside the DACs; each ADC sample goes through a register over the network to the adders; the
// outputs stay in the registers across the reduction while the array operand's k slices of a column block
// fit in the local buffer, else they go to the memory and back between the segments that do.
struct PhuBufferParams {
  double local_buffer_bytes = 0;              // config local_buffer_KiB; 0: no buffer levels
  double local_buffer_pj_per_byte = 0;        // a byte written to or read from the local buffer
  double register_file_pj_per_byte = 0;       // a byte written to or read from a converter's register
  double partial_sum_network_pj_per_byte = 0; // a byte of an ADC sample sent to the adders
  friend bool operator==(const PhuBufferParams&, const PhuBufferParams&) = default;
};

// How the tiles of an array (PhuParams::tiles) take the streamed operand. Broadcast: one stream, split
// optically to every tile, so the tiles work in lock-step on consecutive column blocks of one GEMM: exactly
// one array of `cols` columns (Lightening-Transformer's DPTC tiles share operand 2 this way). Private: each
// tile its own stream through its own DACs, so a pass of a batched GEMM (attention's heads) may hold column
// blocks of up to `tiles` batch elements: small GEMMs pad per tile, not per array. Independent: each tile
// is a core of its own (its own modulators, weight block, DACs and ADCs: dac.count / tiles and adc.count /
// tiles of them), so a pass holds any `tiles` of the GEMM's rows x (cols / tiles) blocks, along k as well
// as n (a microring weight-bank accelerator's cores; partial sums added digitally, so no analog
// accumulation across tiles).
enum class TileOperand : std::uint8_t { Broadcast, Private, Independent };
inline constexpr ir::NameTable kTileOperands{
    std::array{std::pair{TileOperand::Broadcast, std::string_view("broadcast")},
               std::pair{TileOperand::Private, std::string_view("private")},
               std::pair{TileOperand::Independent, std::string_view("independent")}}};

struct PhuParams {
  int rows = 1, cols = 1; // MAC array: a rows x cols weight tile is programmed at a time
  // The array as its design builds it: `tiles` tiles side by side along the columns (cols / tiles each),
  // each of `cores_per_tile` cores stacked along the rows (rows / cores_per_tile each) whose photocurrents
  // sum in analog. A k block spans a tile's cores, so along k they act as one array of `rows` (the fold is
  // exact: ceil(ceil(k / c) / C) = ceil(k / (c C))); along n the tiles take the streamed operand as
  // tile_operand says.
  int tiles = 1, cores_per_tile = 1;
  TileOperand tile_operand = TileOperand::Broadcast;
  int wdm_channels = 1; // wavelengths: independent input vectors through the array per cycle
  // Passes of the streamed operand per tile: 2 where it is encoded as light intensity, which cannot be
  // negative (an incoherent design: a microring weight bank), so a signed input streams as its positive
  // and negative parts and the two results are subtracted after the ADCs: twice the cycles, DAC and ADC
  // samples and optical MACs. 1 where the encoding carries the sign (a coherent design's phase) or the
  // operand is known non-negative (fused attention's softmax probabilities, streamed in P V).
  int input_sign_passes = 1;
  // Analog temporal accumulation: each output's photodetector integrates this many of its cycles (one per
  // pass over a consecutive k block, i.e. weight tile) before one ADC (and TIA) sample; 1: every pass.
  int accumulation_cycles = 1;
  OperandEncoding operand_encoding = OperandEncoding::Static;
  double weight_reload_ns = 0; // phase / ring settling time to program one weight tile (static encoding)
  ConverterParams dac, adc;
  int bits = 8;
  double laser_power_w = 0; // wall-plug (electrical) power of the lasers while the array is busy
  // The lasers draw power only while tiles stream (gated off while weight tiles are programmed, as a
  // design that counts laser energy per computing cycle assumes); false: whenever the array is busy.
  bool laser_gated = false;
  double mac_energy_pj = 0; // per optical MAC: modulation and photodetection share
  // Per element operation of the electronic periphery's digital ALUs (a GEMM's fused tail, the non-GEMM ops,
  // fused attention's softmax: sim::elementwise_ops); 0: their energy is not modelled apart from the bytes.
  double periphery_pj_per_op = 0;
  // Weight tiles the array holds at once (config `weight_buffers`, 1 or 2): with 2, tile i+1 is programmed
  // while tile i streams (phu_work.h). Used only with latency hiding on (ir::Unit::latency_hiding).
  int weight_buffers = 1;
  PhuBufferParams buffers;
  friend bool operator==(const PhuParams&, const PhuParams&) = default;
};

// Converter precision: 1..16 bits (beyond 16 no converter reaches the effective bits at these rates).
inline constexpr int kMaxConverterBits = 16;

// The bits a converter of `phu` works at: its own, else the PHU's.
int converter_bits(const PhuParams& phu, const ConverterParams& c);
// Samples per ns at those bits: bit_clock_ghz / (bits + 1).
double converter_sample_rate_gsps(const PhuParams& phu, const ConverterParams& c);
// Energy of one conversion at those bits, pJ: fom_fj_per_step x 2^bits / 1000.
double conversion_energy_pj(const PhuParams& phu, const ConverterParams& c);

const ir::FieldTable<ConverterParams>& converter_fields();
const ir::FieldTable<PhuBufferParams>& phu_buffer_fields();
const ir::FieldTable<PhuParams>& phu_fields();

} // namespace lightsim::units
