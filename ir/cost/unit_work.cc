#include "ir/cost/unit_work.h"

#include <algorithm>

namespace lightsim::ir {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return b > 0 ? (a + b - 1) / b : 0;
}

} // namespace

bool has_gemm_view(const OpFeatures& op) {
  return op.gemm_batch > 0 && op.gemm_m > 0 && op.gemm_n > 0 && op.gemm_k > 0;
}

double elementwise_ops(const OpFeatures& op) {
  if (op.elementwise_ops > 0) return op.elementwise_ops;
  // Features filled by hand (not by Graph::finalize): the anchor's own rule plus the fused tail.
  return (op.macs > 0 || has_gemm_view(op) ? 0 : std::max(op.elements_read, op.elements_out)) + op.fused_ops;
}

GpuGemmWork gpu_gemm_work(const GpuParams& gpu, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch) {
  GpuGemmWork w;
  w.tiles = batch * ceil_div(m, gpu.tile_m) * ceil_div(n, gpu.tile_n);
  w.waves = ceil_div(w.tiles, static_cast<std::int64_t>(gpu.sms) * gpu.tensor_cores_per_sm);
  w.k_passes = ceil_div(k, gpu.tile_k);
  return w;
}

GpuGemmWork gpu_gemm_work(const GpuParams& gpu, const OpFeatures& op) {
  if (!has_gemm_view(op)) return {};
  return gpu_gemm_work(gpu, op.gemm_m, op.gemm_n, op.gemm_k, op.gemm_batch);
}

PhuGemmWork phu_gemm_work(const Unit& unit, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch) {
  PhuGemmWork w;
  const PhuParams& p = unit.phu;
  const double optics_ns = static_cast<double>(ceil_div(m, p.wdm_channels)) / unit.clock_ghz;
  // Weight tiles come in at most four shapes: full or partial along k (rows) and along n (cols).
  const std::int64_t k_size[2] = {p.rows, k % p.rows}, k_count[2] = {k / p.rows, k % p.rows ? 1 : 0};
  const std::int64_t n_size[2] = {p.cols, n % p.cols}, n_count[2] = {n / p.cols, n % p.cols ? 1 : 0};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const std::int64_t count = batch * k_count[i] * n_count[j];
      if (count == 0) continue;
      const double tiles = static_cast<double>(count);
      const double dac_ns =
          static_cast<double>(ceil_div(m * k_size[i], p.dac.count)) / p.dac.sample_rate_gsps;
      const double adc_ns =
          static_cast<double>(ceil_div(m * n_size[j], p.adc.count)) / p.adc.sample_rate_gsps;
      w.weight_tiles += count;
      w.reload_ns += tiles * p.weight_reload_ns;
      w.optics_ns += tiles * optics_ns;
      w.dac_ns += tiles * dac_ns;
      w.adc_ns += tiles * adc_ns;
      w.busy_ns += tiles * (p.weight_reload_ns + std::max({optics_ns, dac_ns, adc_ns}));
      w.dac_samples += tiles * static_cast<double>(m * k_size[i]);
      w.adc_samples += tiles * static_cast<double>(m * n_size[j]);
    }
  }
  w.macs =
      static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return w;
}

PhuGemmWork phu_gemm_work(const Unit& unit, const OpFeatures& op) {
  if (!has_gemm_view(op)) return {};
  return phu_gemm_work(unit, op.gemm_m, op.gemm_n, op.gemm_k, op.gemm_batch);
}

GpuGemmWork gpu_attention_value_work(const GpuParams& gpu, const OpFeatures& op) {
  if (op.attention_value_dim <= 0 || !has_gemm_view(op)) return {};
  return gpu_gemm_work(gpu, op.gemm_m, op.attention_value_dim, op.gemm_n, op.gemm_batch);
}

double phu_periphery_ops_per_ns(const PhuParams& phu) {
  return phu.adc.count * phu.adc.sample_rate_gsps;
}

double phu_periphery_ns(const PhuParams& phu, double ops) {
  const double rate = phu_periphery_ops_per_ns(phu);
  return rate > 0 ? ops / rate : 0;
}

double compute_cycles(const Unit& unit, const OpFeatures& op) {
  switch (unit.kind) {
  case UnitKind::Cpu: {
    const double per_cycle = unit.cpu.vector_width * (unit.cpu.fma ? 1.0 : 0.5);
    return (op.macs + elementwise_ops(op)) / per_cycle;
  }
  case UnitKind::Gpu: {
    const GpuGemmWork g = gpu_gemm_work(unit.gpu, op);
    const GpuGemmWork av = gpu_attention_value_work(unit.gpu, op);
    const double cuda_per_cycle = unit.gpu.elementwise_flops_per_cycle_per_sm * unit.gpu.sms;
    const double cuda_cycles = cuda_per_cycle > 0 ? elementwise_ops(op) / cuda_per_cycle : 0;
    return static_cast<double>(g.waves * g.k_passes + av.waves * av.k_passes) * unit.gpu.tile_cycles +
           cuda_cycles;
  }
  case UnitKind::Phu:
    return std::max(phu_gemm_work(unit, op).busy_ns, phu_periphery_ns(unit.phu, elementwise_ops(op))) *
           unit.clock_ghz;
  }
  return 0;
}

double attention_memory_bytes(const OpFeatures& op, double on_chip_bytes) {
  if (op.attention_value_dim <= 0 || op.attention_element_bytes <= 0 || !has_gemm_view(op)) return 0;
  constexpr double kStatBytes = 4; // l and m are kept in fp32
  const double e = op.attention_element_bytes;
  const std::int64_t d = op.gemm_k, dv = op.attention_value_dim;
  const auto on_chip_elements = static_cast<std::int64_t>(on_chip_bytes / e);
  const std::int64_t bc = std::max<std::int64_t>(1, ceil_div(on_chip_elements, 4 * d));
  const auto tc = static_cast<double>(ceil_div(op.gemm_n, bc));
  const auto m = static_cast<double>(op.gemm_m), n = static_cast<double>(op.gemm_n);
  const double per_head = e * (n * static_cast<double>(d + dv) + m * static_cast<double>(dv) +
                               tc * m * static_cast<double>(d + 2 * dv)) +
                          kStatBytes * (2 * m + 4 * tc * m);
  return static_cast<double>(op.gemm_batch) * per_head + op.attention_mask_bytes;
}

double attention_on_chip_bytes(const Unit& unit) {
  return unit.kind == UnitKind::Gpu ? unit.gpu.shared_memory_per_sm_KiB * 1024.0 : 0;
}

double operand_bytes(const Unit& unit, const OpFeatures& op) {
  if (op.attention_value_dim > 0) return attention_memory_bytes(op, attention_on_chip_bytes(unit));
  return op.bytes_read + op.bytes_out;
}

} // namespace lightsim::ir
