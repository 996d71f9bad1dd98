#include "sim/units/phu/phu_params.h"

#include <cmath>
#include <string>

namespace lightsim::units {

namespace {
constexpr double kBytesPerKiB = 1024.0;
} // namespace

int converter_bits(const PhuParams& phu, const ConverterParams& c) {
  return c.bits.value_or(phu.bits);
}

double converter_sample_rate_gsps(const PhuParams& phu, const ConverterParams& c) {
  return c.bit_clock_ghz / (converter_bits(phu, c) + 1);
}

double conversion_energy_pj(const PhuParams& phu, const ConverterParams& c) {
  return c.fom_fj_per_step * std::ldexp(1.0, converter_bits(phu, c)) * 1e-3;
}

const ir::FieldTable<ConverterParams>& converter_fields() {
  using F = ir::Field<ConverterParams>;
  static const ir::FieldTable<ConverterParams> table(
      "converter bank", {F::count(&ConverterParams::count, "count", "", "converters in the bank"),
                         F::rate(&ConverterParams::bit_clock_ghz, "bit_clock_ghz", "GHz",
                                 "bit clock: a conversion at b bits takes b + 1 of its cycles"),
                         F::non_negative(&ConverterParams::fom_fj_per_step, "fom_fj_per_step", "fJ",
                                         "Walden figure of merit: a conversion at b bits costs fom x 2^b"),
                         F::optional_integer(&ConverterParams::bits, "bits", 1, kMaxConverterBits, "bits",
                                             "the converters' own precision")
                             .optional("the PHU's bits")});
  return table;
}

const ir::FieldTable<PhuBufferParams>& phu_buffer_fields() {
  using F = ir::Field<PhuBufferParams>;
  static const ir::FieldTable<PhuBufferParams> table(
      "phu buffers",
      {F::scaled_rate(&PhuBufferParams::local_buffer_bytes, "local_buffer_KiB", kBytesPerKiB, "KiB",
                      "the local buffers between the memory and the converters, all tiles together: the "
                      "array operand's k slices of a column block that fit keep the outputs in the registers "
                      "(component local_buffer)"),
       F::non_negative(&PhuBufferParams::local_buffer_pj_per_byte, "local_buffer_pj_per_byte", "pJ/B",
                       "a byte written to or read from the local buffer"),
       F::non_negative(&PhuBufferParams::register_file_pj_per_byte, "register_file_pj_per_byte", "pJ/B",
                       "a byte written to or read from a converter's register: every DAC and ADC sample "
                       "is written there and read once (component register_file)")
           .optional(),
       F::non_negative(&PhuBufferParams::partial_sum_network_pj_per_byte, "partial_sum_network_pj_per_byte",
                       "pJ/B", "a byte of an ADC sample sent to the adders (component partial_sum_network)")
           .optional()});
  return table;
}

const ir::FieldTable<PhuParams>& phu_fields() {
  using F = ir::Field<PhuParams>;
  static const ir::FieldTable<PhuParams> table(
      "phu",
      {F::count(&PhuParams::rows, "rows", "",
                "MAC array rows: a rows x cols weight tile is programmed at a time"),
       F::count(&PhuParams::cols, "cols", "", "MAC array columns"),
       F::count(&PhuParams::tiles, "tiles", "",
                "tiles side by side along the columns (cols / tiles each; phu_params.h)")
           .optional(),
       F::count(
           &PhuParams::cores_per_tile, "cores_per_tile", "",
           "cores of a tile stacked along the rows (rows / cores_per_tile each), their outputs summed in "
           "analog")
           .optional(),
       F::choice(&PhuParams::tile_operand, "tile_operand", kTileOperands, "tile operand",
                 "how the tiles take the streamed operand: one stream broadcast to all (lock-step on one "
                 "GEMM's column blocks), a private stream each (a pass may hold column blocks of several "
                 "batch elements), or independent cores (a pass holds any tiles of the GEMM's blocks, each "
                 "tile with dac.count / tiles DACs and adc.count / tiles ADCs)")
           .optional(),
       F::count(&PhuParams::wdm_channels, "wdm_channels", "",
                "wavelengths: independent input vectors through the array per cycle"),
       F::integer(&PhuParams::input_sign_passes, "input_sign_passes", 1, 2, "passes",
                  "passes of a signed streamed operand: 2 where it is encoded as light intensity (an "
                  "incoherent design: positive and negative parts streamed apart, subtracted after the "
                  "ADCs; fused attention's probabilities, non-negative, take 1)")
           .optional(),
       F::count(
           &PhuParams::accumulation_cycles, "accumulation_cycles", "cycles",
           "analog temporal accumulation: an output integrates this many of its detection cycles (one "
           "per pass over a consecutive k block) before one TIA and ADC readout (ADC samples, their time "
           "and component adc)")
           .optional(),
       F::choice(&PhuParams::operand_encoding, "operand_encoding", kOperandEncodings, "operand encoding",
                 "the k x n operand: programmed into the cells once per tile (static), or modulated every "
                 "cycle through the DACs like the inputs (dynamic: no weight_reload_ns, no component "
                 "weight_programming, k_tile x n_tile more DAC samples per cycle)")
           .optional(),
       F::non_negative(&PhuParams::weight_reload_ns, "weight_reload_ns", "ns",
                       "settling time to program one weight tile (static operand encoding)"),
       F::integer(
           &PhuParams::weight_buffers, "weight_buffers", 1, 2, "tiles",
           "weight tiles the array holds at once: with 2 (and latency_hiding on), tile i+1 is programmed "
           "while tile i streams")
           .optional(),
       F::object(&PhuParams::buffers, "buffers", phu_buffer_fields(),
                 "the on-chip levels between the memory and the converters, and the mapping's traffic "
                 "through them (phu_work.h)")
           .optional("none: each operand crosses once between the memory and the converters"),
       F::object(&PhuParams::dac, "dac", converter_fields(), "the input DAC bank (modulator drive)"),
       F::object(&PhuParams::adc, "adc", converter_fields(), "the output ADC bank"),
       F::integer(&PhuParams::bits, "bits", 1, kMaxConverterBits, "bits",
                  "precision of the analog MACs; the converters' bits unless they set their own"),
       F::non_negative(
           &PhuParams::laser_power_w, "laser_power_w", "W",
           "wall-plug (electrical) power of the lasers while the array is busy (component laser)"),
       F::flag(
           &PhuParams::laser_gated, "laser_gated",
           "the lasers draw power only while tiles stream operands, not while weight tiles are programmed "
           "(weight_reload_ns); false: whenever the array is busy")
           .optional(),
       F::non_negative(
           &PhuParams::mac_energy_pj, "mac_energy_pj", "pJ",
           "energy of one optical MAC: modulation and photodetection share (component optical_mac)"),
       F::non_negative(&PhuParams::periphery_pj_per_op, "periphery_pj_per_op", "pJ",
                       "energy of one element operation in the electronic periphery's digital ALUs: a GEMM's "
                       "fused tail, the non-GEMM ops, fused attention's softmax (component periphery; 0: not "
                       "modelled)")
           .optional()},
      {[](PhuParams& p, ir::detail::ConfigObject& o) {
        if (p.cols % p.tiles != 0)
          o.fail("tiles", std::to_string(p.tiles) + " tiles do not divide the array's " +
                              std::to_string(p.cols) + " cols");
        if (p.tile_operand == TileOperand::Independent) {
          if (p.accumulation_cycles != 1)
            o.fail("accumulation_cycles",
                   std::to_string(p.accumulation_cycles) +
                       " cycles need an output's k blocks on one tile; independent tiles take any block "
                       "(use 1)");
          if (p.dac.count % p.tiles != 0 || p.adc.count % p.tiles != 0)
            o.fail(p.dac.count % p.tiles != 0 ? "dac" : "adc",
                   std::to_string(p.tiles) + " independent tiles need their own converters: dac.count " +
                       std::to_string(p.dac.count) + " and adc.count " + std::to_string(p.adc.count) +
                       " must be multiples of them");
        }
        if (p.rows % p.cores_per_tile != 0)
          o.fail("cores_per_tile", std::to_string(p.cores_per_tile) + " cores do not divide the array's " +
                                       std::to_string(p.rows) + " rows");
      }});
  return table;
}

} // namespace lightsim::units
