#include "sim/profile/calibrate.h"

#include "ir/cost/cost_model.h"
#include "ir/error.h"
#include "sim/retrain/nnls.h"

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
      if (!m.fused_tail.empty() || m.op_class == ir::OpClass::Input) continue;
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

CpuModuleFit fit_cpu_module(const ir::Unit& cpu, std::span<const fit::Sample> samples) {
  constexpr auto kCycles = static_cast<std::size_t>(ir::Feature::ComputeCycles);
  constexpr auto kBytes = static_cast<std::size_t>(ir::Feature::OperandBytes);
  CpuModuleFit out;
  out.samples = samples.size();
  if (samples.size() < 3) throw InputError("calibration", "the CPU module needs at least 3 measured ops");
  const auto n = static_cast<Eigen::Index>(samples.size());
  // Columns: ns per compute cycle, ns per operand byte, dispatch ns; a row uses the side of its bound.
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i)
    b(i) = samples[static_cast<std::size_t>(i)].time_s * 1e9;
  Eigen::VectorXd x(3);
  x << 1.0 / (cpu.clock_ghz * cpu.cpu.compute_efficiency), 1.0 / cpu.cpu.memory_port_GBps,
      cpu.cpu.dispatch_ns;
  std::vector<bool> compute_side(samples.size()), previous;
  for (out.rounds = 1; out.rounds <= 100; ++out.rounds) {
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, 3);
    for (Eigen::Index i = 0; i < n; ++i) {
      const fit::Sample& s = samples[static_cast<std::size_t>(i)];
      const bool compute = s.features[kCycles] * x(0) >= s.features[kBytes] * x(1);
      compute_side[static_cast<std::size_t>(i)] = compute;
      a(i, compute ? 0 : 1) = compute ? s.features[kCycles] : s.features[kBytes];
      a(i, 2) = 1;
    }
    if (compute_side == previous) break;
    previous = compute_side;
    const fit::NnlsResult r = fit::nnls(a, b);
    // A side with no op assigned keeps its previous rate (the data say nothing about it).
    for (Eigen::Index j = 0; j < 2; ++j)
      if (a.col(j).squaredNorm() > 0) x(j) = r.x(j);
    x(2) = r.x(2);
  }
  out.rounds = std::min(out.rounds, 100);
  // A rate the measurements leave at zero (every op on the other side, or too few ops) keeps the base
  // config's value.
  if (!(x(0) > 0)) x(0) = 1.0 / (cpu.clock_ghz * cpu.cpu.compute_efficiency);
  if (!(x(1) > 0)) x(1) = 1.0 / cpu.cpu.memory_port_GBps;
  out.compute_efficiency = 1.0 / (x(0) * cpu.clock_ghz);
  out.memory_port_GBps = 1.0 / x(1);
  out.dispatch_ns = x(2);
  double sq = 0, predicted = 0, observed = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const fit::Sample& s = samples[i];
    const double p = x(2) + std::max(s.features[kCycles] * x(0), s.features[kBytes] * x(1));
    const double y = s.time_s * 1e9;
    if (y > 0) sq += (p - y) * (p - y) / (y * y);
    predicted += p;
    observed += y;
    out.compute_bound += compute_side[i] ? 1 : 0;
  }
  out.relative_rms = std::sqrt(sq / static_cast<double>(samples.size()));
  out.total_error = observed > 0 ? (predicted - observed) / observed : 0;
  return out;
}

fit::FitResult calibrate_cpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, FitTarget target,
                             const fit::FitOptions& options, CpuModuleFit* module) {
  if (unit < 0 || static_cast<std::size_t>(unit) >= base.units.size() ||
      base.units[static_cast<std::size_t>(unit)].kind != ir::UnitKind::Cpu)
    throw InputError(base.source, "calibration needs a CPU unit");
  ir::Hardware hw = base;
  hw.units[static_cast<std::size_t>(unit)].cores = 1; // the measurements ran one op at a time
  const std::vector<fit::Sample> samples = measurement_samples(hw, unit, files, target);
  fit::FitResult result = fit::fit_models(hw, samples, options);
  const CpuModuleFit m = fit_cpu_module(hw.units[static_cast<std::size_t>(unit)], samples);
  ir::CpuParams& cpu = result.hardware.units[static_cast<std::size_t>(unit)].cpu;
  cpu.dispatch_ns = m.dispatch_ns;
  cpu.memory_port_GBps = m.memory_port_GBps;
  cpu.compute_efficiency = m.compute_efficiency;
  if (module) *module = m;
  return result;
}

fit::FitResult calibrate_gpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, FitTarget target,
                             const fit::FitOptions& options) {
  if (unit < 0 || static_cast<std::size_t>(unit) >= base.units.size() ||
      base.units[static_cast<std::size_t>(unit)].kind != ir::UnitKind::Gpu)
    throw InputError(base.source, "GPU calibration needs a GPU unit");
  return fit::fit_models(base, measurement_samples(base, unit, files, target), options);
}

} // namespace lightsim::profile
