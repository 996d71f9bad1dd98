#include "sim/units/cpu/cpu_work.h"

#include "ir/cost/unit_work.h"

#include <algorithm>
#include <limits>

namespace lightsim::units {

int cpu_op_cores(const ir::Unit& cpu, const ir::OpFeatures& op) {
  const CpuParams& p = cpu.as<CpuParams>();
  const int team = std::min(p.intra_op_threads, cpu.cores);
  if (team <= 1 || !ir::has_gemm_view(op)) return 1;
  // The runtime splits the rows of m (Eigen: of the row-major result), each core taking at least
  // intra_op_min_rows rows and intra_op_min_macs MACs of one GEMM of the batch.
  const double per_gemm_macs =
      static_cast<double>(op.gemm_m) * static_cast<double>(op.gemm_n) * static_cast<double>(op.gemm_k);
  std::int64_t k = std::min<std::int64_t>(team, op.gemm_m / p.intra_op_min_rows);
  if (p.intra_op_min_macs > 0)
    k = std::min<std::int64_t>(k, static_cast<std::int64_t>(per_gemm_macs / p.intra_op_min_macs));
  return static_cast<int>(std::max<std::int64_t>(1, k));
}

double cpu_split_share(const ir::Unit& cpu, const ir::OpFeatures& op, int cores) {
  const int block = cpu.as<CpuParams>().intra_op_row_block;
  if (cores <= 1) return 1.0;
  if (block <= 0 || op.gemm_m <= 0) return 1.0 / cores;
  // Every core but the last takes floor(m / cores / block) x block rows; the last takes the rest.
  const std::int64_t each = op.gemm_m / cores / block * block;
  return static_cast<double>(op.gemm_m - (cores - 1) * each) / static_cast<double>(op.gemm_m);
}

int cpu_ops_in_flight(const ir::Unit& cpu) {
  const int concurrent = cpu.as<CpuParams>().concurrent_ops;
  return std::max(1, concurrent > 0 ? std::min(concurrent, cpu.cores) : cpu.cores);
}

CpuLevel cpu_level(const ir::Unit& cpu, double working_set_bytes) {
  const CpuParams& p = cpu.as<CpuParams>();
  for (std::size_t i = 0; i < p.caches.size(); ++i)
    if (working_set_bytes <= p.caches[i].capacity_bytes)
      return {i, p.caches[i].bandwidth_GBps, p.caches[i].shared_GBps};
  const double core = p.core_memory_GBps > 0 ? p.core_memory_GBps : p.memory_port_GBps;
  return {p.caches.size(), core, p.memory_port_GBps};
}

std::vector<CpuLevel> cpu_levels(const ir::Unit& cpu) {
  const CpuParams& p = cpu.as<CpuParams>();
  std::vector<CpuLevel> levels;
  for (std::size_t i = 0; i < p.caches.size(); ++i)
    levels.push_back({i, p.caches[i].bandwidth_GBps, p.caches[i].shared_GBps});
  levels.push_back(cpu_level(cpu, std::numeric_limits<double>::infinity()));
  return levels;
}

CpuWork cpu_work(const ir::Unit& cpu, const ir::OpFeatures& op, double operand_bytes) {
  CpuWork w;
  const CpuParams& p = cpu.as<CpuParams>();
  w.gemm = ir::has_gemm_view(op) || op.macs > 0;
  w.cores = cpu_op_cores(cpu, op);
  const double lanes = p.vector_width * (w.gemm ? (p.fma ? 1.0 : 0.5) : 1.0);
  // The anchor's own work; cpu_compute_ns adds the fused tail's (one core, per class).
  w.compute_cycles = w.gemm ? op.macs * cpu_split_share(cpu, op, w.cores) / lanes
                            : (ir::elementwise_ops(op) - op.fused_ops) / lanes;
  w.bytes = std::max(0.0, operand_bytes);
  w.level = cpu_level(cpu, w.bytes);
  double rate = w.cores * w.level.core_GBps;
  if (w.level.shared_GBps > 0) rate = std::min(rate, w.level.shared_GBps);
  w.memory_ns = w.bytes > 0 ? w.bytes / rate : 0;
  return w;
}

double cpu_compute_ns(const ir::Unit& cpu, const ir::Op& op, const CpuWork& work) {
  const CpuParams& p = cpu.as<CpuParams>();
  if (op.op_class == ir::OpClass::Nop || op.op_class == ir::OpClass::Input) return 0;
  const double per_ns = cpu.clock_ghz;
  double ns = work.gemm
                  ? work.compute_cycles / (per_ns * p.gemm_efficiency)
                  : work.compute_cycles * p.elementwise_ops[static_cast<std::size_t>(op.op_class)] / per_ns;
  // The fused elementwise tail works on the anchor's output, on one core.
  return ns + cpu_tail_cycles(cpu, op.features) / per_ns;
}

double cpu_tail_cycles(const ir::Unit& cpu, const ir::OpFeatures& op) {
  if (op.fused_tail.empty()) return 0;
  const CpuParams& p = cpu.as<CpuParams>();
  const double per_class = op.fused_ops / static_cast<double>(op.fused_tail.size());
  double cycles = 0;
  for (ir::OpClass c : op.fused_tail)
    cycles += per_class / p.vector_width * p.elementwise_ops[static_cast<std::size_t>(c)];
  return cycles;
}

double cpu_fixed_ns(const ir::Unit& cpu, const CpuWork& work) {
  const CpuParams& p = cpu.as<CpuParams>();
  return p.dispatch_ns + (work.cores > 1 ? p.intra_op_sync_ns : 0.0);
}

double cpu_alone_ns(const ir::Unit& cpu, const ir::Op& op, double operand_bytes) {
  const bool view = op.op_class == ir::OpClass::Nop;
  const CpuWork w = cpu_work(cpu, op.features, view ? 0.0 : operand_bytes);
  const double compute = cpu_compute_ns(cpu, op, w);
  return cpu_fixed_ns(cpu, w) + (w.gemm ? w.memory_ns + compute : std::max(w.memory_ns, compute));
}

} // namespace lightsim::units
