#include "ir/cost/unit_work.h"

#include "ir/cost/gpu_kernel.h"

#include <algorithm>
#include <cmath>

namespace lightsim::ir {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return b > 0 ? (a + b - 1) / b : 0;
}

} // namespace

bool has_gemm_view(const OpFeatures& op) {
  return op.gemm_batch > 0 && op.gemm_m > 0 && op.gemm_n > 0 && op.gemm_k > 0;
}

double materialised_bytes(const Unit& unit, const OpFeatures& op) {
  return unit.kind == UnitKind::Phu ? op.im2col_extra_bytes : 0.0;
}

double elementwise_ops(const OpFeatures& op) {
  if (op.elementwise_ops > 0) return op.elementwise_ops;
  // Features filled by hand (not by Graph::finalize): the anchor's own rule plus the fused tail.
  return (op.macs > 0 || has_gemm_view(op) ? 0 : std::max(op.elements_read, op.elements_out)) + op.fused_ops;
}

PhuGemmWork phu_gemm_work(const Unit& unit, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch) {
  PhuGemmWork w;
  const PhuParams& p = unit.phu;
  const double optics_ns = static_cast<double>(ceil_div(m, p.wdm_channels)) / unit.clock_ghz;
  const double dac_gsps = converter_sample_rate_gsps(p, p.dac),
               adc_gsps = converter_sample_rate_gsps(p, p.adc);
  // Weight tiles come in at most four shapes: full or partial along k (rows) and along n (cols).
  const std::int64_t k_size[2] = {p.rows, k % p.rows}, k_count[2] = {k / p.rows, k % p.rows ? 1 : 0};
  const std::int64_t n_size[2] = {p.cols, n % p.cols}, n_count[2] = {n / p.cols, n % p.cols ? 1 : 0};
  const bool double_buffered = weight_buffers_in_use(unit) >= 2;
  const int last_i = k % p.rows ? 1 : 0, last_j = n % p.cols ? 1 : 0; // the shape of the last tile
  double last_stream_ns = 0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const std::int64_t count = batch * k_count[i] * n_count[j];
      if (count == 0) continue;
      const double tiles = static_cast<double>(count);
      const double dac_ns = static_cast<double>(ceil_div(m * k_size[i], p.dac.count)) / dac_gsps;
      const double adc_ns = static_cast<double>(ceil_div(m * n_size[j], p.adc.count)) / adc_gsps;
      const double stream_ns = std::max({optics_ns, dac_ns, adc_ns});
      if (i == last_i && j == last_j) last_stream_ns = stream_ns;
      w.weight_tiles += count;
      w.reload_ns += tiles * p.weight_reload_ns;
      w.optics_ns += tiles * optics_ns;
      w.dac_ns += tiles * dac_ns;
      w.adc_ns += tiles * adc_ns;
      w.stream_ns += tiles * stream_ns;
      w.busy_ns += tiles * (double_buffered ? std::max(p.weight_reload_ns, stream_ns)
                                            : p.weight_reload_ns + stream_ns);
      w.dac_samples += tiles * static_cast<double>(m * k_size[i]);
      w.adc_samples += tiles * static_cast<double>(m * n_size[j]);
      w.weight_cells += tiles * static_cast<double>(k_size[i] * n_size[j]);
    }
  }
  if (double_buffered && w.weight_tiles > 0) // the first reload is exposed; the last tile streams alone
    w.busy_ns += p.weight_reload_ns - (std::max(p.weight_reload_ns, last_stream_ns) - last_stream_ns);
  w.hidden_reload_ns = w.reload_ns + w.stream_ns - w.busy_ns;
  w.macs =
      static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return w;
}

PhuGemmWork phu_gemm_work(const Unit& unit, const OpFeatures& op) {
  if (!has_gemm_view(op)) return {};
  return phu_gemm_work(unit, op.gemm_m, op.gemm_n, op.gemm_k, op.gemm_batch);
}

double phu_periphery_ops_per_ns(const PhuParams& phu) {
  return phu.adc.count * converter_sample_rate_gsps(phu, phu.adc);
}

double phu_periphery_ns(const PhuParams& phu, double ops) {
  const double rate = phu_periphery_ops_per_ns(phu);
  return rate > 0 ? ops / rate : 0;
}

PhuConversionSteps phu_conversion_steps(const Unit& unit, const PhuGemmWork& w) {
  const PhuParams& p = unit.phu;
  const double dac_steps = std::ldexp(1.0, converter_bits(p, p.dac));
  return {w.dac_samples * dac_steps, w.adc_samples * std::ldexp(1.0, converter_bits(p, p.adc)),
          w.weight_cells * dac_steps};
}

int cpu_op_cores(const Unit& cpu, const OpFeatures& op) {
  const CpuParams& p = cpu.cpu;
  const int team = std::min(p.intra_op_threads, cpu.cores);
  if (team <= 1 || !has_gemm_view(op)) return 1;
  // The runtime splits the rows of m (Eigen: of the row-major result), each core taking at least
  // intra_op_min_rows rows and intra_op_min_macs MACs of one GEMM of the batch.
  const double per_gemm_macs =
      static_cast<double>(op.gemm_m) * static_cast<double>(op.gemm_n) * static_cast<double>(op.gemm_k);
  std::int64_t k = std::min<std::int64_t>(team, op.gemm_m / p.intra_op_min_rows);
  if (p.intra_op_min_macs > 0)
    k = std::min<std::int64_t>(k, static_cast<std::int64_t>(per_gemm_macs / p.intra_op_min_macs));
  return static_cast<int>(std::max<std::int64_t>(1, k));
}

double cpu_split_share(const Unit& cpu, const OpFeatures& op, int cores) {
  const int block = cpu.cpu.intra_op_row_block;
  if (cores <= 1) return 1.0;
  if (block <= 0 || op.gemm_m <= 0) return 1.0 / cores;
  // Every core but the last takes floor(m / cores / block) x block rows; the last takes the rest.
  const std::int64_t each = op.gemm_m / cores / block * block;
  return static_cast<double>(op.gemm_m - (cores - 1) * each) / static_cast<double>(op.gemm_m);
}

int ops_in_flight(const Unit& unit) {
  const int concurrent = unit.kind == UnitKind::Cpu ? unit.cpu.concurrent_ops : 0;
  return std::max(1, concurrent > 0 ? std::min(concurrent, unit.cores) : unit.cores);
}

CpuLevel cpu_level(const Unit& cpu, double working_set_bytes) {
  const CpuParams& p = cpu.cpu;
  for (std::size_t i = 0; i < p.caches.size(); ++i)
    if (working_set_bytes <= p.caches[i].capacity_bytes)
      return {i, p.caches[i].bandwidth_GBps, p.caches[i].shared_GBps};
  const double core = p.core_memory_GBps > 0 ? p.core_memory_GBps : p.memory_port_GBps;
  return {p.caches.size(), core, p.memory_port_GBps};
}

CpuWork cpu_work(const Unit& cpu, const OpFeatures& op, double operand_bytes) {
  CpuWork w;
  const CpuParams& p = cpu.cpu;
  w.gemm = has_gemm_view(op) || op.macs > 0;
  w.cores = cpu_op_cores(cpu, op);
  const double lanes = p.vector_width * (w.gemm ? (p.fma ? 1.0 : 0.5) : 1.0);
  // The anchor's own work; cpu_compute_ns adds the fused tail's (one core, per class).
  w.compute_cycles = w.gemm ? op.macs * cpu_split_share(cpu, op, w.cores) / lanes
                            : (elementwise_ops(op) - op.fused_ops) / lanes;
  w.bytes = std::max(0.0, operand_bytes);
  w.level = cpu_level(cpu, w.bytes);
  double rate = w.cores * w.level.core_GBps;
  if (w.level.shared_GBps > 0) rate = std::min(rate, w.level.shared_GBps);
  w.memory_ns = w.bytes > 0 ? w.bytes / rate : 0;
  return w;
}

double cpu_compute_ns(const Unit& cpu, const Op& op, const CpuWork& work) {
  const CpuParams& p = cpu.cpu;
  if (op.op_class == OpClass::Nop || op.op_class == OpClass::Input) return 0;
  const double per_ns = cpu.clock_ghz;
  double ns = work.gemm
                  ? work.compute_cycles / (per_ns * p.gemm_efficiency)
                  : work.compute_cycles * p.elementwise_ops[static_cast<std::size_t>(op.op_class)] / per_ns;
  // The fused elementwise tail works on the anchor's output, on one core.
  return ns + cpu_tail_cycles(cpu, op.features) / per_ns;
}

double cpu_tail_cycles(const Unit& cpu, const OpFeatures& op) {
  if (op.fused_tail.empty()) return 0;
  const CpuParams& p = cpu.cpu;
  const double per_class = op.fused_ops / static_cast<double>(op.fused_tail.size());
  double cycles = 0;
  for (OpClass c : op.fused_tail)
    cycles += per_class / p.vector_width * p.elementwise_ops[static_cast<std::size_t>(c)];
  return cycles;
}

double cpu_fixed_ns(const Unit& cpu, const CpuWork& work) {
  return cpu.cpu.dispatch_ns + (work.cores > 1 ? cpu.cpu.intra_op_sync_ns : 0.0);
}

double cpu_alone_ns(const Unit& cpu, const Op& op, double operand_bytes) {
  const bool view = op.op_class == OpClass::Nop;
  const CpuWork w = cpu_work(cpu, op.features, view ? 0.0 : operand_bytes);
  const double compute = cpu_compute_ns(cpu, op, w);
  return cpu_fixed_ns(cpu, w) + (w.gemm ? w.memory_ns + compute : std::max(w.memory_ns, compute));
}

double compute_cycles(const Unit& unit, const OpFeatures& op) {
  switch (unit.kind) {
  case UnitKind::Cpu:
    return cpu_work(unit, op, 0).compute_cycles;
  case UnitKind::Gpu: {
    const double cuda_per_cycle = unit.gpu.elementwise_flops_per_cycle_per_sm * unit.gpu.sms;
    const double cuda_cycles = cuda_per_cycle > 0 ? elementwise_ops(op) / cuda_per_cycle : 0;
    if (!has_gemm_view(op)) return cuda_cycles;
    if (op.attention_value_dim > 0) {
      const GpuAttentionShapes s = gpu_attention_shapes(unit, op);
      return gpu_gemm_kernel(unit, s.scores).cycles_after_launch(unit.clock_ghz) +
             gpu_gemm_kernel(unit, s.values).cycles_after_launch(unit.clock_ghz) + cuda_cycles;
    }
    return gpu_gemm_kernel(unit, gpu_gemm_shape(op)).cycles_after_launch(unit.clock_ghz) + cuda_cycles;
  }
  case UnitKind::Phu:
    return std::max(phu_gemm_work(unit, op).busy_ns, phu_periphery_ns(unit.phu, elementwise_ops(op))) *
           unit.clock_ghz;
  }
  return 0;
}

GpuAttentionShapes gpu_attention_shapes(const Unit& gpu, const OpFeatures& op) {
  GpuGemmShape scores = gpu_gemm_shape(op);
  scores.memory_bytes = operand_bytes(gpu, op);
  const GpuGemmShape values{op.gemm_m, op.attention_value_dim, op.gemm_n, op.gemm_batch, op.gemm_dtype, 0.0};
  return {scores, values};
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
  return op.bytes_read + op.bytes_out + materialised_bytes(unit, op);
}

} // namespace lightsim::ir
