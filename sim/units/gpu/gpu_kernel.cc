#include "sim/units/gpu/gpu_kernel.h"

#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "ir/error.h"
#include "ir/int_math.h"
#include "sim/units/gpu/gpu_attention.h"

#include <algorithm>
#include <cmath>

namespace lightsim::units {

using ir::DType;
namespace {

std::optional<GemmPrecision> precision_of(DType t) {
  switch (t) {
  case DType::Float64:
    return GemmPrecision::Float64;
  case DType::Float32:
    return GemmPrecision::Float32;
  case DType::Float16:
    return GemmPrecision::Float16;
  case DType::BFloat16:
    return GemmPrecision::BFloat16;
  case DType::Int8:
  case DType::UInt8:
    return GemmPrecision::Int8;
  default:
    return std::nullopt;
  }
}

double rate(const std::array<double, kNumGemmPrecisions>& rates, GemmPrecision p) {
  return rates[static_cast<std::size_t>(p)];
}

// Cycles to stream a GEMM's operands (memory_bytes) on the whole GPU, the L2's share at its rate.
double stream_cycles(const ir::Unit& unit, const GpuGemmShape& s) {
  const GpuParams& gpu = unit.as<GpuParams>();
  const double l2 = s.l2_bytes >= 0 ? s.l2_bytes : gpu_l2_bytes(gpu, s.memory_bytes, s.weight_bytes);
  return ((s.memory_bytes - l2) / (gpu.memory_bandwidth_GBps * gpu.memory_efficiency) +
          (l2 > 0 ? l2 / gpu.l2.bandwidth_GBps : 0)) *
         unit.clock_ghz;
}

} // namespace

GpuGemmShape gpu_gemm_shape(const ir::OpFeatures& op) {
  return {op.gemm_m,     op.gemm_n, op.gemm_k, op.gemm_batch, op.gemm_dtype, op.bytes_read + op.bytes_out,
          op.param_bytes};
}

std::optional<GpuGemmEngine> gpu_gemm_engine(const GpuParams& gpu, DType dtype) {
  const std::optional<GemmPrecision> p = precision_of(dtype);
  if (!p) return std::nullopt;
  const int bytes = static_cast<int>(ir::dtype_storage_bytes(dtype));
  if (*p == GemmPrecision::Float32 && gpu.fp32_gemm_as_tf32 &&
      rate(gpu.tensor_core_macs_per_cycle_per_sm, GemmPrecision::Tf32) > 0)
    return GpuGemmEngine{GemmPrecision::Tf32, true,
                         rate(gpu.tensor_core_macs_per_cycle_per_sm, GemmPrecision::Tf32), bytes};
  if (const double r = rate(gpu.tensor_core_macs_per_cycle_per_sm, *p); r > 0)
    return GpuGemmEngine{*p, true, r, bytes};
  if (const double r = rate(gpu.cuda_core_macs_per_cycle_per_sm, *p); r > 0)
    return GpuGemmEngine{*p, false, r, bytes};
  return std::nullopt;
}

double GpuGemmKernel::cycles_after_launch(double clock_ghz) const {
  return main_loop_cycles + (wave_overhead_ns + reduction_ns) * clock_ghz;
}

std::int64_t gpu_max_split_k(const GpuParams& gpu, std::int64_t tiles, std::int64_t k_steps) {
  if (tiles >= gpu.sms) return 1;
  return std::max<std::int64_t>(1, std::min(k_steps, gpu.sms / tiles));
}

int gpu_row_passes(const GpuParams& gpu, const ir::OpFeatures& op) {
  if (gpu.one_pass_row_elements <= 0 || op.row_passes_off_chip <= 1 ||
      op.row_elements <= gpu.one_pass_row_elements)
    return 1;
  return op.row_passes_off_chip;
}

double gpu_reread_bytes(const GpuParams& gpu, const ir::OpFeatures& op) {
  return (gpu_row_passes(gpu, op) - 1) * op.bytes_read;
}

double gpu_l2_bytes(const GpuParams& gpu, double bytes, double weight_bytes) {
  if (gpu.l2.capacity_MiB <= 0) return 0;
  const double activations = std::max(0.0, bytes - weight_bytes);
  const double reach = (gpu.l2.reach_MiB >= 0 ? gpu.l2.reach_MiB : gpu.l2.capacity_MiB) * 1024 * 1024;
  return activations <= reach ? activations : std::max(0.0, 2 * reach - activations);
}

double gpu_stream_efficiency(const GpuParams& gpu, ir::OpClass anchor) {
  using enum ir::OpClass;
  switch (anchor) {
  case Softmax:
  case LogSoftmax:
  case LayerNorm:
  case Lrn:
  case Mean:
  case Sum:
  case Max:
  case Variance:
  case Cumsum:
    return gpu.memory_efficiency;
  default:
    return gpu.stream_memory_efficiency >= 0 ? gpu.stream_memory_efficiency : gpu.memory_efficiency;
  }
}

double gpu_memory_round_trip_ns(const GpuParams& gpu, double bytes, double l2_bytes) {
  if (gpu.l2.latency_ns < 0 || bytes <= 0 || l2_bytes >= bytes) return 0;
  return gpu.memory_latency_ns - gpu.l2.latency_ns;
}

double gpu_transfer_ns(const GpuParams& gpu, double efficiency, double bytes, double l2_bytes) {
  return (bytes - l2_bytes) / (gpu.memory_bandwidth_GBps * efficiency) +
         (l2_bytes > 0 ? l2_bytes / gpu.l2.bandwidth_GBps : 0);
}

double gpu_stream_ns(const GpuParams& gpu, double efficiency, double bytes, double l2_bytes) {
  if (bytes <= 0) return 0;
  const double l2_round_trip_ns = gpu.l2.latency_ns >= 0 ? gpu.l2.latency_ns : gpu.memory_latency_ns;
  return l2_round_trip_ns + gpu_memory_round_trip_ns(gpu, bytes, l2_bytes) +
         gpu_transfer_ns(gpu, efficiency, bytes, l2_bytes);
}

GpuRowKernel gpu_row_kernel(const ir::Unit& unit, const ir::RowKernel& k, double memory_bytes) {
  const GpuParams& gpu = unit.as<GpuParams>();
  GpuRowKernel r;
  const std::int64_t per_sm = std::max<std::int64_t>(
      1, std::min<std::int64_t>(gpu.max_ctas_per_sm, gpu.max_threads_per_sm / k.threads_per_cta));
  r.ctas_per_wave = gpu.sms * per_sm;
  r.waves = ceil_div(k.rows, r.ctas_per_wave);
  r.steps = k.passes * ceil_div(k.items_per_row, k.threads_per_cta);
  const double latency_ns = gpu.row_step_latency_ns >= 0 ? gpu.row_step_latency_ns : gpu.memory_latency_ns;
  const double efficiency =
      gpu.row_memory_efficiency >= 0 ? gpu.row_memory_efficiency : gpu.memory_efficiency;
  const double l2_bytes = gpu_l2_bytes(gpu, memory_bytes, 0);
  const double stream_ns = gpu_transfer_ns(gpu, efficiency, memory_bytes, l2_bytes);
  const double chain_ns = static_cast<double>(r.steps) * latency_ns; // one wave's access steps
  if (gpu.row_wave_overlap) {
    r.main_ns = chain_ns + std::max(static_cast<double>(r.waves - 1) * chain_ns, stream_ns);
  } else { // each wave: its chain, then its rows' share of the stream
    const double row_ns = stream_ns / static_cast<double>(k.rows);
    auto wave_ns = [&](std::int64_t ctas) { return chain_ns + static_cast<double>(ctas) * row_ns; };
    const std::int64_t full = k.rows / r.ctas_per_wave, last = k.rows % r.ctas_per_wave;
    r.main_ns = static_cast<double>(full) * wave_ns(r.ctas_per_wave) + (last > 0 ? wave_ns(last) : 0);
  }
  r.kernel_ns = gpu.launch_latency_ns + r.main_ns;
  return r;
}

double gpu_wave_overhead_ns(const GpuParams& gpu, std::int64_t waves) {
  return static_cast<double>(gpu.persistent_epilogues ? std::min<std::int64_t>(waves, 1) : waves) * 2 *
         gpu.memory_latency_ns;
}

GpuGemmKernel gpu_gemm_candidate(const ir::Unit& unit, const GpuGemmShape& s, std::size_t tile,
                                 std::int64_t split_k) {
  const GpuParams& gpu = unit.as<GpuParams>();
  const GpuCtaTile& t = gpu.cta_tiles.at(tile);
  const GpuGemmEngine e = *gpu_gemm_engine(gpu, s.dtype);
  GpuGemmKernel kr;
  kr.tile = tile;
  kr.split_k = split_k;
  kr.tiles = s.batch * ceil_div(s.m, t.m) * ceil_div(s.n, t.n);
  kr.ctas = kr.tiles * split_k;
  kr.waves = ceil_div(kr.ctas, gpu.sms);
  const std::int64_t k_elements = t.k_bytes / e.operand_bytes;
  kr.k_steps = ceil_div(ceil_div(s.k, k_elements), split_k);

  // One step of one CTA on its SM: MMA issue vs shared memory (operands written once, read per warp).
  const double mma_cycles =
      static_cast<double>(t.m) * t.n * static_cast<double>(k_elements) / e.macs_per_cycle_per_sm;
  const double warps = static_cast<double>(t.m / t.warp_m) * (t.n / t.warp_n);
  const double smem_bytes = static_cast<double>(t.m + t.n) * t.k_bytes +
                            warps * static_cast<double>(t.warp_m + t.warp_n) * t.k_bytes;
  kr.step_cycles =
      std::max(mma_cycles, smem_bytes / gpu.shared_memory_bytes_per_cycle_per_sm) / gpu.main_loop_efficiency;

  // A wave of `a` CTAs: each step also waits for its share of the memory stream (and of the L2's).
  const double bytes_per_cycle = gpu.memory_bandwidth_GBps * gpu.memory_efficiency / unit.clock_ghz;
  const double cycles_per_step =
      stream_cycles(unit, s) / static_cast<double>(kr.ctas) / static_cast<double>(kr.k_steps);
  auto wave_cycles = [&](std::int64_t a) {
    const double memory_cycles = static_cast<double>(a) * cycles_per_step;
    return static_cast<double>(kr.k_steps) * std::max(kr.step_cycles, memory_cycles);
  };
  const std::int64_t full = kr.ctas / gpu.sms, last = kr.ctas % gpu.sms;
  kr.main_loop_cycles = static_cast<double>(full) * wave_cycles(gpu.sms) + (last > 0 ? wave_cycles(last) : 0);
  kr.wave_overhead_ns = gpu_wave_overhead_ns(gpu, kr.waves);
  if (split_k > 1) {
    const double accumulator_bytes = e.precision == GemmPrecision::Float64 ? 8 : 4;
    const double partial_bytes = static_cast<double>(split_k) * static_cast<double>(s.batch) *
                                 static_cast<double>(s.m) * static_cast<double>(s.n) * accumulator_bytes;
    kr.reduction_ns = gpu.launch_latency_ns + 2 * partial_bytes / (bytes_per_cycle * unit.clock_ghz);
  }
  kr.kernel_ns = gpu.launch_latency_ns + gpu.gemm_prologue_ns + kr.main_loop_cycles / unit.clock_ghz +
                 kr.wave_overhead_ns + kr.reduction_ns;
  return kr;
}

GpuGemmKernel gpu_stream_k_candidate(const ir::Unit& unit, const GpuGemmShape& s, std::size_t tile) {
  const GpuParams& gpu = unit.as<GpuParams>();
  const GpuCtaTile& t = gpu.cta_tiles.at(tile);
  const GpuGemmEngine e = *gpu_gemm_engine(gpu, s.dtype);
  GpuGemmKernel kr = gpu_gemm_candidate(unit, s, tile, 1); // the step's cost and the classic geometry
  kr.stream_k = true;
  const std::int64_t tile_steps = kr.k_steps, total_steps = kr.tiles * tile_steps;
  const std::int64_t active = std::min<std::int64_t>(gpu.sms, total_steps);
  kr.ctas = active;
  kr.k_steps = ceil_div(total_steps, active);
  kr.waves = ceil_div(kr.tiles, gpu.sms);
  const double bytes_per_cycle = gpu.memory_bandwidth_GBps * gpu.memory_efficiency / unit.clock_ghz;
  const double memory_cycles =
      static_cast<double>(active) * stream_cycles(unit, s) / static_cast<double>(total_steps);
  kr.main_loop_cycles = static_cast<double>(kr.k_steps) * std::max(kr.step_cycles, memory_cycles);
  kr.wave_overhead_ns = gpu_wave_overhead_ns(gpu, kr.waves);
  kr.reduction_ns = 0;
  if (kr.tiles % gpu.sms != 0) { // the last wave's tiles are split: one partial per SM, written and read
    const double accumulator_bytes = e.precision == GemmPrecision::Float64 ? 8 : 4;
    const double partial_bytes = 2 * static_cast<double>(active) * t.m * t.n * accumulator_bytes;
    const bool in_l2 = gpu.l2.capacity_MiB > 0 && partial_bytes / 2 <= gpu.l2.capacity_MiB * 1024 * 1024;
    kr.reduction_ns = 2 * gpu.memory_latency_ns +
                      partial_bytes / (in_l2 ? gpu.l2.bandwidth_GBps : bytes_per_cycle * unit.clock_ghz);
  }
  kr.kernel_ns = gpu.launch_latency_ns + gpu.gemm_prologue_ns + kr.main_loop_cycles / unit.clock_ghz +
                 kr.wave_overhead_ns + kr.reduction_ns;
  return kr;
}

GpuGemmKernel gpu_gemm_kernel(const ir::Unit& unit, const GpuGemmShape& s) {
  const std::optional<GpuGemmEngine> e = gpu_gemm_engine(unit.as<GpuParams>(), s.dtype);
  if (!e)
    throw InputError("unit '" + unit.name + "'", "no GEMM rate for " + std::string(ir::dtype_name(s.dtype)));
  GpuGemmKernel best;
  best.kernel_ns = -1;
  for (std::size_t tile = 0; tile < unit.as<GpuParams>().cta_tiles.size(); ++tile) {
    const GpuCtaTile& t = unit.as<GpuParams>().cta_tiles[tile];
    const std::int64_t tiles = s.batch * ceil_div(s.m, t.m) * ceil_div(s.n, t.n);
    const std::int64_t k_steps = ceil_div(s.k, t.k_bytes / e->operand_bytes);
    for (std::int64_t split = 1; split <= gpu_max_split_k(unit.as<GpuParams>(), tiles, k_steps); ++split) {
      const GpuGemmKernel c = gpu_gemm_candidate(unit, s, tile, split);
      if (best.kernel_ns < 0 || c.kernel_ns < best.kernel_ns) best = c;
    }
    if (unit.as<GpuParams>().stream_k) {
      const GpuGemmKernel c = gpu_stream_k_candidate(unit, s, tile);
      if (c.kernel_ns < best.kernel_ns) best = c;
    }
  }
  return best;
}

void check_gpu_gemm_rates(const ir::Hardware& hw, int u, const ir::Graph& graph) {
  const ir::Unit& unit = hw.units[static_cast<std::size_t>(u)];
  for (const ir::Op& op : graph.ops) {
    if (!ir::is_gemm_like(op.op_class) || !ir::can_run(hw, u, op)) continue;
    if (gpu_gemm_engine(unit.as<GpuParams>(), op.features.gemm_dtype)) continue;
    const std::string dtype(ir::dtype_name(op.features.gemm_dtype));
    throw InputError(hw.source + ": units[" + std::to_string(u) + "] '" + unit.name +
                         "': tensor_core_macs_per_cycle_per_sm / cuda_core_macs_per_cycle_per_sm",
                     "no rate for " + dtype + ", which " + std::string(ir::op_class_name(op.op_class)) +
                         " '" + op.name + "' of " + (graph.source.empty() ? "the graph" : graph.source) +
                         " computes in");
  }
}

double gpu_attention_fraction(const GpuParams& gpu, const ir::OpFeatures& op) {
  if (!gpu.flash_attention_2 || !op.attention_causal || op.gemm_m <= 0 || op.gemm_n < op.gemm_m) return 1;
  const auto m = static_cast<double>(op.gemm_m), n = static_cast<double>(op.gemm_n);
  return (m * (n - m) + m * (m + 1) / 2) / (m * n);
}

GpuAttentionShapes gpu_attention_shapes(const ir::Unit& unit, const ir::OpFeatures& op) {
  const GpuParams& gpu = unit.as<GpuParams>();
  GpuGemmShape scores = gpu_gemm_shape(op);
  scores.memory_bytes = ir::operand_bytes(unit, op);
  GpuGemmShape values{op.gemm_m, op.attention_value_dim, op.gemm_n, op.gemm_batch, op.gemm_dtype, 0.0};
  if (!gpu.flash_attention_2) return {scores, values};
  const double fraction = gpu_attention_fraction(gpu, op);
  const auto keys = static_cast<std::int64_t>(std::ceil(static_cast<double>(op.gemm_n) * fraction));
  scores.n = keys;
  values.k = keys;
  const double e = op.attention_element_bytes;
  const std::int64_t d = op.gemm_k, dv = op.attention_value_dim;
  const auto batch = static_cast<double>(op.gemm_batch), m = static_cast<double>(op.gemm_m);
  const double kv_per_head = static_cast<double>(op.gemm_n) * static_cast<double>(d + dv) * e;
  const double once = batch * (m * static_cast<double>(d + dv) * e + kv_per_head) + op.attention_mask_bytes;
  const auto on_chip_elements = static_cast<std::int64_t>(gpu.shared_memory_per_sm_KiB * 1024 / e);
  const std::int64_t br = std::max<std::int64_t>(1, ceil_div(on_chip_elements, 4 * d));
  const std::int64_t query_blocks = ceil_div(op.gemm_m, br);
  const double rereads = static_cast<double>(query_blocks - 1) * batch * kv_per_head * fraction;
  const double in_flight = std::min(batch, static_cast<double>(ceil_div(gpu.sms, query_blocks)));
  const bool in_l2 = gpu.l2.capacity_MiB > 0 && in_flight * kv_per_head <= gpu.l2.capacity_MiB * 1024 * 1024;
  scores.memory_bytes = once + rereads;
  scores.weight_bytes = 0;
  scores.l2_bytes = in_l2 ? rereads : 0;
  return {scores, values};
}

double gpu_row_reduction_cycles(const GpuParams& gpu, const ir::OpFeatures& op) {
  if (op.row_elements <= 0 || op.row_kernel.rows > 0) return 0;
  return op.elements_read * gpu.row_reduction_cycles_per_element / gpu.sms;
}

double gpu_compute_cycles(const ir::Unit& unit, const ir::OpFeatures& op) {
  const GpuParams& gpu = unit.as<GpuParams>();
  const double cuda_per_cycle = gpu.elementwise_flops_per_cycle_per_sm * gpu.sms;
  const double cuda_cycles =
      cuda_per_cycle > 0 ? ir::elementwise_ops(op) * gpu_attention_fraction(gpu, op) / cuda_per_cycle : 0;
  if (!ir::has_gemm_view(op)) return std::max(cuda_cycles, gpu_row_reduction_cycles(gpu, op));
  if (op.attention_value_dim > 0 && gpu.flash_attention.block_m > 0)
    return (gpu_flash_attention_kernel(unit, op).kernel_ns - gpu.launch_latency_ns - gpu.gemm_prologue_ns) *
           unit.clock_ghz;
  if (op.attention_value_dim > 0) {
    const GpuAttentionShapes s = gpu_attention_shapes(unit, op);
    return gpu_gemm_kernel(unit, s.scores).cycles_after_launch(unit.clock_ghz) +
           gpu_gemm_kernel(unit, s.values).cycles_after_launch(unit.clock_ghz) + cuda_cycles;
  }
  return gpu_gemm_kernel(unit, gpu_gemm_shape(op)).cycles_after_launch(unit.clock_ghz) + cuda_cycles;
}

} // namespace lightsim::units
