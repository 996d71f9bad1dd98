#include "sim/photonic_mac_array.h"

#include "sim/memory.h"
#include "sim/sim_time.h"

#include <algorithm>
#include <cmath>

namespace lightsim::sim {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
} // namespace

PhotonicMacArray::PhotonicMacArray(sc_core::sc_module_name name, const ir::Unit& params)
    : UnitModule(name, params) {}

PhuGemmTiming PhotonicMacArray::gemm(std::int64_t m, std::int64_t n, std::int64_t k,
                                     std::int64_t batch) const {
  const ir::PhuParams& p = params_.phu;
  PhuGemmTiming t;
  const double optics_ns = static_cast<double>(ceil_div(m, p.wdm_channels)) / params_.clock_ghz;
  // Weight tiles come in at most four shapes: full or partial along K (rows) and along N (cols).
  const std::int64_t k_sizes[2] = {p.rows, k % p.rows}, k_counts[2] = {k / p.rows, k % p.rows ? 1 : 0};
  const std::int64_t n_sizes[2] = {p.cols, n % p.cols}, n_counts[2] = {n / p.cols, n % p.cols ? 1 : 0};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const std::int64_t count = batch * k_counts[i] * n_counts[j];
      if (count == 0) continue;
      const double tiles = static_cast<double>(count);
      const double dac = static_cast<double>(ceil_div(m * k_sizes[i], p.dac.count)) / p.dac.sample_rate_gsps;
      const double adc = static_cast<double>(ceil_div(m * n_sizes[j], p.adc.count)) / p.adc.sample_rate_gsps;
      t.weight_tiles += count;
      t.reload_ns += tiles * p.weight_reload_ns;
      t.optics_ns += tiles * optics_ns;
      t.dac_ns += tiles * dac;
      t.adc_ns += tiles * adc;
      t.total_ns += tiles * (p.weight_reload_ns + std::max({optics_ns, dac, adc}));
      t.dac_samples += tiles * static_cast<double>(m * k_sizes[i]);
      t.adc_samples += tiles * static_cast<double>(m * n_sizes[j]);
    }
  }
  t.macs =
      static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return t;
}

double PhotonicMacArray::gemm_energy_j(const PhuGemmTiming& t) const {
  const ir::PhuParams& p = params_.phu;
  return p.laser_power_w * t.total_ns * 1e-9 +
         (t.dac_samples * p.dac.energy_pj + t.adc_samples * p.adc.energy_pj + t.macs * p.mac_energy_pj) *
             1e-12;
}

double PhotonicMacArray::op_ns(const OpWork& work, const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return 0;
  const double memory_ns = access_ns(home, work.home_bytes);
  if (!has_gemm(op)) return memory_ns + spill_ns(work);
  const ir::OpFeatures& f = op.features;
  return std::max(gemm(f.gemm_m, f.gemm_n, f.gemm_k, f.gemm_batch).total_ns, memory_ns) + spill_ns(work);
}

double PhotonicMacArray::op_energy_j(const OpWork& work, const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  double energy = operand_energy_j(work, home);
  if (has_gemm(op) && op.op_class != ir::OpClass::Nop) {
    const ir::OpFeatures& f = op.features;
    energy += gemm_energy_j(gemm(f.gemm_m, f.gemm_n, f.gemm_k, f.gemm_batch));
  }
  return energy;
}

void PhotonicMacArray::start(const OpWork& work) {
  const ir::Memory& home = memory->params();
  finish_at(now_ps() + ns_to_ps(op_ns(work, home)), work, op_energy_j(work, home));
}

} // namespace lightsim::sim
