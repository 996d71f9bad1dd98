#include "sim/profile/calibrate.h"

#include "ir/cost_model.h"
#include "ir/error.h"

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

std::vector<fit::Sample> measurement_samples(const ir::Hardware& hw, int unit,
                                             const std::vector<std::vector<Measurement>>& files,
                                             FitTarget target) {
  std::vector<fit::Sample> samples;
  for (std::size_t source = 0; source < files.size(); ++source) {
    for (const Measurement& m : files[source]) {
      if (!m.fused_tail.empty() || m.op_class == ir::OpClass::Input) continue;
      ir::Op op;
      op.name = m.name;
      op.op_class = m.op_class;
      op.features = m.features;
      const double energy_j = ir::can_run(hw, unit, op) ? ir::op_cost(hw, unit, op).energy_j : 0.0;
      samples.push_back(fit::make_sample(hw, op, m.op_id, unit, target_time(m, target), energy_j,
                                         static_cast<std::uint32_t>(source)));
    }
  }
  return samples;
}

fit::FitResult calibrate_cpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, FitTarget target,
                             const fit::FitOptions& options) {
  if (unit < 0 || static_cast<std::size_t>(unit) >= base.units.size() ||
      base.units[static_cast<std::size_t>(unit)].kind != ir::UnitKind::Cpu)
    throw InputError(base.source, "calibration needs a CPU unit");
  return calibrate_unit(base, unit, files, target, options);
}

fit::FitResult calibrate_unit(const ir::Hardware& base, int unit,
                              const std::vector<std::vector<Measurement>>& files, FitTarget target,
                              const fit::FitOptions& options) {
  if (unit < 0 || static_cast<std::size_t>(unit) >= base.units.size() ||
      (base.units[static_cast<std::size_t>(unit)].kind != ir::UnitKind::Cpu &&
       base.units[static_cast<std::size_t>(unit)].kind != ir::UnitKind::Gpu))
    throw InputError(base.source, "calibration needs a CPU or GPU unit");
  ir::Hardware hw = base;
  if (hw.units[static_cast<std::size_t>(unit)].kind == ir::UnitKind::Cpu)
    hw.units[static_cast<std::size_t>(unit)].cores = 1; // the measurements ran one op at a time
  const std::vector<fit::Sample> samples = measurement_samples(hw, unit, files, target);
  return fit::fit_models(hw, samples, options);
}

} // namespace lightsim::profile
