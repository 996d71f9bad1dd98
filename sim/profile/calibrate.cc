#include "sim/profile/calibrate.h"

#include "ir/cost/cost_model.h"
#include "ir/error.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_params.h"
#include "sim/units/gpu/gpu_kind.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace lightsim::profile {

double target_time(const Measurement& m, FitTarget target) {
  switch (target) {
  case FitTarget::InGraph:
    return m.in_graph_median_s;
  case FitTarget::InGraphMin:
    return m.in_graph_min_s;
  case FitTarget::Isolated:
    break;
  }
  return m.median_s;
}

std::vector<std::vector<Measurement>> merge_repeated_profiles(const std::vector<MeasurementFile>& files) {
  std::vector<std::vector<Measurement>> merged;
  std::map<std::string, std::size_t> first_of_graph;
  const auto same_ops = [](const std::vector<Measurement>& a, const std::vector<Measurement>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Measurement& x, const Measurement& y) {
      return x.op_id == y.op_id && x.op_class == y.op_class && x.name == y.name &&
             x.input_shapes == y.input_shapes;
    });
  };
  for (const MeasurementFile& f : files) {
    const auto [it, fresh] = first_of_graph.try_emplace(f.graph, merged.size());
    if (fresh || !same_ops(merged[it->second], f.ops)) {
      if (fresh)
        merged.push_back(f.ops);
      else
        throw InputError(f.graph, "profiles of this graph disagree on its ops; re-profile it");
      continue;
    }
    for (std::size_t i = 0; i < f.ops.size(); ++i) {
      Measurement& m = merged[it->second][i];
      const Measurement& r = f.ops[i];
      m.median_s = std::min(m.median_s, r.median_s);
      m.min_s = std::min(m.min_s, r.min_s);
      m.p90_s = std::min(m.p90_s, r.p90_s);
      m.in_graph_median_s = std::min(m.in_graph_median_s, r.in_graph_median_s);
      m.in_graph_min_s = std::min(m.in_graph_min_s, r.in_graph_min_s);
    }
  }
  return merged;
}

std::vector<fit::Sample> measurement_samples(const ir::Hardware& hw, int unit,
                                             const std::vector<std::vector<Measurement>>& files,
                                             FitTarget target) {
  std::vector<fit::Sample> samples;
  for (std::size_t source = 0; source < files.size(); ++source) {
    for (const Measurement& m : files[source]) {
      if (!m.features.fused_tail.empty() || m.op_class == ir::OpClass::Input) continue;
      ir::Op op;
      op.name = m.name;
      op.op_class = m.op_class;
      op.features = m.features;
      // Energy is not measured: the model's own, by component (a refit keeps it).
      samples.push_back(fit::make_sample(hw, op, m.op_id, unit, target_time(m, target),
                                         ir::op_energy(hw, unit, op), static_cast<std::uint32_t>(source)));
    }
  }
  return samples;
}

ir::Unit measured_cpu_unit(const ir::Unit& base, const MachineInfo& machine) {
  ir::Unit u = base;
  units::CpuParams& p = u.as<units::CpuParams>();
  u.cores = std::max(1, machine.threads);
  p.concurrent_ops = 1;
  p.intra_op_threads = machine.intra_op_min_rows > 0 ? u.cores : 1;
  if (machine.intra_op_min_rows > 0) p.intra_op_min_rows = machine.intra_op_min_rows;
  p.intra_op_min_macs = machine.intra_op_min_macs;
  if (machine.intra_op_row_block > 0) p.intra_op_row_block = machine.intra_op_row_block;
  if (machine.cpu_mhz > 0) u.clock_ghz = machine.cpu_mhz * 1e-3;
  if (machine.simd_fp32_lanes > 0) {
    p.vector_width = machine.simd_fp32_lanes;
    p.fma = machine.fma;
  }
  if (machine.l2_cache_bytes > 0 && machine.l3_cache_bytes > machine.l2_cache_bytes) {
    const auto level = [&](const char* name, std::int64_t bytes, bool shared) {
      units::CacheLevel c{name, static_cast<double>(bytes), p.memory_port_GBps,
                          shared ? p.memory_port_GBps : 0};
      for (const units::CacheLevel& b : base.as<units::CpuParams>().caches)
        if (b.name == name) {
          c.bandwidth_GBps = b.bandwidth_GBps;
          c.shared_GBps = shared ? (b.shared_GBps > 0 ? b.shared_GBps : b.bandwidth_GBps) : 0;
        }
      return c;
    };
    p.caches = {level("l2", machine.l2_cache_bytes, false), level("l3", machine.l3_cache_bytes, true)};
  }
  return u;
}

fit::FitResult calibrate_cpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, const MachineInfo& machine,
                             FitTarget target, const fit::FitOptions& options, CpuModuleFit* module) {
  if (unit < 0 || static_cast<std::size_t>(unit) >= base.units.size() ||
      base.units[static_cast<std::size_t>(unit)].kind != &units::cpu_kind())
    throw InputError(base.source, "calibration needs a CPU unit");
  ir::Hardware hw = base;
  ir::Unit& cpu = hw.units[static_cast<std::size_t>(unit)];
  cpu = measured_cpu_unit(cpu, machine);
  const CpuModuleFit m = fit_cpu_module(cpu, measurement_samples(hw, unit, files, target));
  cpu.as<units::CpuParams>() = m.cpu;
  if (module) *module = m;
  // The per-class model on features of the fitted unit (its memory cycles depend on the fitted rates).
  return fit::fit_models(hw, measurement_samples(hw, unit, files, target), options);
}

fit::FitResult calibrate_gpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, FitTarget target,
                             const fit::FitOptions& options) {
  if (unit < 0 || static_cast<std::size_t>(unit) >= base.units.size() ||
      base.units[static_cast<std::size_t>(unit)].kind != &units::gpu_kind())
    throw InputError(base.source, "GPU calibration needs a GPU unit");
  return fit::fit_models(base, measurement_samples(base, unit, files, target), options);
}

} // namespace lightsim::profile
