#include "sim/units/phu/phu_work.h"

#include "ir/cost/unit_work.h"
#include "ir/int_math.h"

#include <algorithm>
#include <boost/container/small_vector.hpp>
#include <cmath>
#include <numeric>

namespace lightsim::units {

int phu_weight_buffers_in_use(const ir::Unit& phu) {
  return phu.latency_hiding ? phu.as<PhuParams>().weight_buffers : 1;
}

namespace {

double per_element(double bytes, double elements) {
  return elements > 0 ? bytes / elements : 0;
}

// A kind of pass along n: `count` passes that each use `cols` of the array's columns and take `streams`
// streamed operands (batch elements; 1 unless private tiles pack several).
struct ColumnPasses {
  std::int64_t count = 0, cols = 0, streams = 1;
};
// At most a few kinds (two with broadcast tiles): kept inline, no allocation per mapping.
using ColumnPassList = boost::container::small_vector<ColumnPasses, 4>;

// The passes along n of `batch` GEMMs of n columns each. Broadcast tiles (or one tile, or one GEMM): each
// GEMM's full column blocks of `cols` and its partial one. Private tiles: the batch's column blocks of
// cols / tiles, in (element, block) order, `tiles` to a pass; the pattern repeats every lcm(blocks per
// element, tiles) blocks, so one period is counted and scaled.
ColumnPassList column_passes(const PhuParams& p, std::int64_t n, std::int64_t batch) {
  ColumnPassList kinds;
  auto add = [&](std::int64_t count, std::int64_t cols, std::int64_t streams) {
    if (count == 0) return;
    for (ColumnPasses& k : kinds)
      if (k.cols == cols && k.streams == streams) {
        k.count += count;
        return;
      }
    kinds.push_back({count, cols, streams});
  };
  if (p.tile_operand == TileOperand::Broadcast || p.tiles == 1 || batch == 1) {
    add(batch * (n / p.cols), p.cols, 1);
    add(batch * (n % p.cols ? 1 : 0), n % p.cols, 1);
    return kinds;
  }
  const std::int64_t tile_cols = p.cols / p.tiles, per_element = ceil_div(n, tile_cols), tiles = p.tiles;
  const std::int64_t period = std::lcm(per_element, tiles), blocks = batch * per_element;
  auto count_passes = [&](std::int64_t first, std::int64_t last, std::int64_t times) { // blocks [first, last)
    for (std::int64_t b = first; b < last; b += tiles) {
      std::int64_t cols = 0, streams = 0, element = -1;
      for (std::int64_t i = b; i < std::min(b + tiles, last); ++i) {
        const std::int64_t block = i % per_element;
        cols += block + 1 < per_element ? tile_cols : n - block * tile_cols;
        if (i / per_element != element) { // a new batch element: one more streamed operand
          ++streams;
          element = i / per_element;
        }
      }
      add(times, cols, streams);
    }
  };
  count_passes(0, std::min(period, blocks), blocks / period > 0 ? blocks / period : 1);
  if (blocks > period) count_passes(blocks / period * period, blocks, 1);
  return kinds;
}

void set_shape(PhuGemmWork& w, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
               int sign_passes) {
  w.macs =
      static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  w.optical_macs = w.macs * sign_passes;
  w.mapped_m = m;
  w.mapped_n = n;
  w.k = k;
  w.batch = batch;
}

// The reloads of a double-buffered array: only the first is exposed, and the last tile (or pass) streams
// alone, with nothing left to program behind it; then what of the reloads the streams hid.
void finish_reloads(PhuGemmWork& w, bool double_buffered, bool any, double reload_ns, double last_stream_ns) {
  if (double_buffered && any) w.busy_ns += reload_ns - (std::max(reload_ns, last_stream_ns) - last_stream_ns);
  w.hidden_reload_ns = w.reload_ns + w.stream_ns - w.busy_ns;
}

// Independent tiles (TileOperand::Independent): the GEMM's rows x (cols / tiles) blocks, batch x
// ceil(k / rows) x ceil(n / tile cols) of them in at most four shapes (full or partial along k and n), go
// `tiles` to a pass, longest stream first; a pass lasts its longest block's stream (optics, or the tile's
// own DACs and ADCs) times the sign passes, and programs its blocks at once (weight_reload_ns).
PhuGemmWork independent_gemm_work(const ir::Unit& unit, std::int64_t m, std::int64_t n, std::int64_t k,
                                  std::int64_t batch, int sign_passes) {
  PhuGemmWork w;
  const PhuParams& p = unit.as<PhuParams>();
  const std::int64_t tile_cols = p.cols / p.tiles, dacs = p.dac.count / p.tiles, adcs = p.adc.count / p.tiles;
  const double dac_gsps = converter_sample_rate_gsps(p, p.dac),
               adc_gsps = converter_sample_rate_gsps(p, p.adc);
  const bool dynamic = p.operand_encoding == OperandEncoding::Dynamic;
  const double reload_ns = dynamic ? 0.0 : p.weight_reload_ns;
  const std::int64_t cycles = ceil_div(m, p.wdm_channels);
  const double optics_ns = static_cast<double>(cycles) / unit.clock_ghz, s = sign_passes;
  struct Kind {
    std::int64_t count, k_size, n_size;
    double dac_ns, adc_ns, stream_ns;
  };
  boost::container::small_vector<Kind, 4> kinds;
  using Extent = std::pair<std::int64_t, std::int64_t>; // (blocks, size): full ones, then the partial one
  const std::int64_t rows = p.rows;
  const Extent k_extents[2] = {{k / rows, rows}, {k % rows ? 1 : 0, k % rows}};
  const Extent n_extents[2] = {{n / tile_cols, tile_cols}, {n % tile_cols ? 1 : 0, n % tile_cols}};
  for (const auto& [k_count, k_size] : k_extents)
    for (const auto& [n_count, n_size] : n_extents) {
      if (k_count * n_count == 0) continue;
      const std::int64_t dac_samples = m * k_size + (dynamic ? cycles * k_size * n_size : 0);
      const double dac_ns = static_cast<double>(ceil_div(dac_samples, dacs)) / dac_gsps;
      const double adc_ns = static_cast<double>(ceil_div(m * n_size, adcs)) / adc_gsps;
      kinds.push_back(
          {batch * k_count * n_count, k_size, n_size, dac_ns, adc_ns, std::max({optics_ns, dac_ns, adc_ns})});
      w.weight_tiles += kinds.back().count;
      const auto count = static_cast<double>(kinds.back().count);
      w.dac_samples += count * s * static_cast<double>(dac_samples);
      w.adc_samples += count * s * static_cast<double>(m * n_size);
      w.weight_cells += dynamic ? 0.0 : count * static_cast<double>(k_size * n_size);
    }
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const Kind& a, const Kind& b) { return a.stream_ns > b.stream_ns; });
  // The passes whose first block is of a kind last that kind's stream.
  const bool double_buffered = phu_weight_buffers_in_use(unit) >= 2;
  std::int64_t first = 0, passes = 0;
  double last_stream_ns = 0;
  for (const Kind& kind : kinds) {
    const std::int64_t led = ceil_div(first + kind.count, p.tiles) - ceil_div(first, p.tiles);
    first += kind.count;
    if (led == 0) continue;
    const auto n_passes = static_cast<double>(led);
    const double stream_ns = s * kind.stream_ns;
    passes += led;
    last_stream_ns = stream_ns;
    w.optics_ns += n_passes * s * optics_ns;
    w.dac_ns += n_passes * s * kind.dac_ns;
    w.adc_ns += n_passes * s * kind.adc_ns;
    w.stream_ns += n_passes * stream_ns;
    w.busy_ns += n_passes * (double_buffered ? std::max(reload_ns, stream_ns) : reload_ns + stream_ns);
  }
  w.reload_ns = static_cast<double>(passes) * reload_ns;
  finish_reloads(w, double_buffered, passes > 0, reload_ns, last_stream_ns);
  w.streamed_sends = sign_passes * batch * ceil_div(n, tile_cols);
  set_shape(w, m, n, k, batch, sign_passes);
  return w;
}

// The GEMM mapped as given: the k x n operand on the array, the m rows streamed, each tile's stream
// `sign_passes` times (PhuParams::input_sign_passes).
PhuGemmWork mapped_gemm_work(const ir::Unit& unit, std::int64_t m, std::int64_t n, std::int64_t k,
                             std::int64_t batch, int sign_passes) {
  const PhuParams& p = unit.as<PhuParams>();
  if (p.tile_operand == TileOperand::Independent && p.tiles > 1)
    return independent_gemm_work(unit, m, n, k, batch, sign_passes);
  PhuGemmWork w;
  const double optics_ns = static_cast<double>(ceil_div(m, p.wdm_channels)) / unit.clock_ghz;
  const double dac_gsps = converter_sample_rate_gsps(p, p.dac),
               adc_gsps = converter_sample_rate_gsps(p, p.adc);
  // Weight tiles come in a few shapes: full or partial along k (rows), and the kinds of pass along n.
  const std::int64_t k_count[2] = {k / p.rows, k % p.rows ? 1 : 0};
  const ColumnPassList columns = column_passes(p, n, batch);
  // Analog accumulation: of an n block's ceil(k / rows) passes, those that end a group of
  // accumulation_cycles consecutive ones (and the last, partial or not) sample the ADCs; the rest only
  // integrate. Pass kinds along k: full and sampled, full and integrating, partial (always the last).
  const std::int64_t sampled = ceil_div(k_count[0] + k_count[1], p.accumulation_cycles);
  const struct {
    std::int64_t size, count;
    bool samples;
  } k_kinds[3] = {{p.rows, sampled - k_count[1], true},
                  {p.rows, k_count[0] - (sampled - k_count[1]), false},
                  {k % p.rows, k_count[1], true}};
  // Dynamic encoding: the k x n operand is modulated every cycle (cycles = ceil(m / wdm) per pass), through
  // the DACs beside the inputs; nothing is programmed, so there is no reload to hide.
  const bool dynamic = p.operand_encoding == OperandEncoding::Dynamic;
  const double reload_ns = dynamic ? 0.0 : p.weight_reload_ns;
  const std::int64_t cycles = ceil_div(m, p.wdm_channels);
  const bool double_buffered = phu_weight_buffers_in_use(unit) >= 2;
  // The last tile: the last k block of the last pass along n (the partial column block, where there is one).
  const int last_i = k % p.rows ? 2 : 0;
  const std::size_t last_j = columns.empty() ? 0 : columns.size() - 1;
  double last_stream_ns = 0;
  const double s = sign_passes;
  for (int i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      const std::int64_t count = k_kinds[i].count * columns[j].count;
      if (count == 0) continue;
      const double tiles = static_cast<double>(count);
      const std::int64_t k_size = k_kinds[i].size, n_size = columns[j].cols;
      const std::int64_t adc_samples = k_kinds[i].samples ? m * n_size : 0;
      const std::int64_t cells = k_size * n_size;
      const std::int64_t dac_samples = m * k_size * columns[j].streams + (dynamic ? cycles * cells : 0);
      const double dac_ns = static_cast<double>(ceil_div(dac_samples, p.dac.count)) / dac_gsps;
      const double adc_ns = static_cast<double>(ceil_div(adc_samples, p.adc.count)) / adc_gsps;
      const double stream_ns = s * std::max({optics_ns, dac_ns, adc_ns});
      if (i == last_i && j == last_j) last_stream_ns = stream_ns;
      w.weight_tiles += count;
      w.reload_ns += tiles * reload_ns;
      w.optics_ns += tiles * s * optics_ns;
      w.dac_ns += tiles * s * dac_ns;
      w.adc_ns += tiles * s * adc_ns;
      w.stream_ns += tiles * stream_ns;
      w.busy_ns += tiles * (double_buffered ? std::max(reload_ns, stream_ns) : reload_ns + stream_ns);
      w.dac_samples += tiles * s * static_cast<double>(dac_samples);
      w.adc_samples += tiles * s * static_cast<double>(adc_samples);
      w.weight_cells += dynamic ? 0.0 : tiles * static_cast<double>(cells);
    }
  }
  for (const ColumnPasses& c : columns)
    w.streamed_sends += sign_passes * c.count * c.streams;
  finish_reloads(w, double_buffered, w.weight_tiles > 0, reload_ns, last_stream_ns);
  set_shape(w, m, n, k, batch, sign_passes);
  return w;
}

} // namespace

PhuGemmWork phu_gemm_work(const ir::Unit& unit, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch, bool streamed_nonnegative) {
  const int sign_passes = unit.as<PhuParams>().input_sign_passes;
  PhuGemmWork w = mapped_gemm_work(unit, m, n, k, batch, streamed_nonnegative ? 1 : sign_passes);
  // Dynamic operands: neither is held, so the mapping may exchange their roles (C^T = B^T A^T: the n
  // columns streamed, the m rows on the array) when that takes fewer cycles; the k x n operand streamed
  // then is taken as signed.
  if (unit.as<PhuParams>().operand_encoding == OperandEncoding::Dynamic && m != n) {
    PhuGemmWork exchanged = mapped_gemm_work(unit, n, m, k, batch, sign_passes);
    if (exchanged.busy_ns < w.busy_ns) w = exchanged;
  }
  return w;
}

PhuGemmWork phu_gemm_work(const ir::Unit& unit, const ir::OpFeatures& op) {
  if (!ir::has_gemm_view(op)) return {};
  return phu_gemm_work(unit, op.gemm_m, op.gemm_n, op.gemm_k, op.gemm_batch);
}

PhuBufferTraffic phu_buffer_traffic(const ir::Unit& unit, const ir::OpFeatures& op, const PhuGemmWork& w) {
  const PhuParams& p = unit.as<PhuParams>();
  const PhuBufferParams& b = p.buffers;
  PhuBufferTraffic t;
  if (b.local_buffer_bytes <= 0 || w.batch == 0) return t;
  const double e_in = per_element(op.bytes_in, op.elements_in),
               e_out = per_element(op.bytes_out, op.elements_out);
  const auto batch = static_cast<double>(w.batch), m = static_cast<double>(w.mapped_m),
             n = static_cast<double>(w.mapped_n), k = static_cast<double>(w.k);
  const auto sends = static_cast<double>(w.streamed_sends); // the streamed operand's m x k, per pass along n
  t.output_segments = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(p.cols * k * e_in / b.local_buffer_bytes)));
  const auto s = static_cast<double>(t.output_segments);
  const double outputs = batch * m * n * e_out;
  const double sent = (m * k * sends + batch * k * n) * e_in; // memory -> local buffer
  const double converted_in = (w.dac_samples + w.weight_cells) * e_in, converted_out = w.adc_samples * e_out;
  t.memory_extra_bytes = m * k * (sends - batch) * e_in + outputs * (2 * s - 2);
  t.local_buffer_bytes = converted_in + sent + outputs * (2 * s - 1);
  t.register_file_bytes = 2 * (converted_in + converted_out);
  t.partial_sum_network_bytes = converted_out;
  return t;
}

namespace {

void add_to(PhuGemmWork& sum, const PhuGemmWork& w) {
  sum.weight_tiles += w.weight_tiles;
  sum.streamed_sends += w.streamed_sends;
  sum.dac_samples += w.dac_samples;
  sum.adc_samples += w.adc_samples;
  sum.weight_cells += w.weight_cells;
  sum.reload_ns += w.reload_ns;
  sum.optics_ns += w.optics_ns;
  sum.dac_ns += w.dac_ns;
  sum.adc_ns += w.adc_ns;
  sum.busy_ns += w.busy_ns;
  sum.stream_ns += w.stream_ns;
  sum.hidden_reload_ns += w.hidden_reload_ns;
  sum.macs += w.macs;
  sum.optical_macs += w.optical_macs;
}

void add_to(PhuBufferTraffic& sum, const PhuBufferTraffic& t) {
  sum.memory_extra_bytes += t.memory_extra_bytes;
  sum.local_buffer_bytes += t.local_buffer_bytes;
  sum.register_file_bytes += t.register_file_bytes;
  sum.partial_sum_network_bytes += t.partial_sum_network_bytes;
  sum.output_segments = std::max(sum.output_segments, t.output_segments);
}

} // namespace

PhuOpWork phu_op_work(const ir::Unit& unit, const ir::OpFeatures& op) {
  PhuOpWork w;
  if (!ir::has_gemm_view(op)) return w;
  w.gemm = phu_gemm_work(unit, op.gemm_m, op.gemm_n, op.gemm_k, op.gemm_batch);
  w.traffic = phu_buffer_traffic(unit, op, w.gemm);
  if (op.attention_value_dim > 0) {
    // P V streams the softmax's probabilities, which are never negative.
    const PhuGemmWork pv =
        phu_gemm_work(unit, op.gemm_m, op.attention_value_dim, op.gemm_n, op.gemm_batch, true);
    add_to(w.traffic, phu_buffer_traffic(unit, op, pv));
    add_to(w.gemm, pv);
    w.traffic.memory_extra_bytes = 0; // the tiles' traffic is FlashAttention's (ir/cost/unit_work.h)
  }
  return w;
}

double phu_attention_on_chip_bytes(const ir::Unit& unit) {
  return unit.as<PhuParams>().buffers.local_buffer_bytes;
}

double phu_materialised_bytes(const ir::Unit& unit, const ir::OpFeatures& op) {
  if (unit.as<PhuParams>().buffers.local_buffer_bytes <= 0) return op.im2col_extra_bytes; // no re-sends
  return op.im2col_extra_bytes + phu_op_work(unit, op).traffic.memory_extra_bytes;
}

double phu_periphery_ops_per_ns(const PhuParams& phu) {
  return phu.adc.count * converter_sample_rate_gsps(phu, phu.adc);
}

double phu_laser_ns(const PhuParams& phu, const PhuGemmWork& work) {
  return phu.laser_gated ? work.stream_ns : work.busy_ns;
}

double phu_periphery_ns(const PhuParams& phu, double ops) {
  const double rate = phu_periphery_ops_per_ns(phu);
  return rate > 0 ? ops / rate : 0;
}

PhuConversionSteps phu_conversion_steps(const ir::Unit& unit, const PhuGemmWork& w) {
  const PhuParams& p = unit.as<PhuParams>();
  const double dac_steps = std::ldexp(1.0, converter_bits(p, p.dac));
  return {w.dac_samples * dac_steps, w.adc_samples * std::ldexp(1.0, converter_bits(p, p.adc)),
          w.weight_cells * dac_steps};
}

} // namespace lightsim::units
