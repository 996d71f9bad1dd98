#include "sim/profile/cpu_module_fit.h"

#include "ir/error.h"
#include "sim/retrain/nnls.h"
#include "sim/units/cpu/cpu_work.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lightsim::profile {
namespace {

// Unknowns, all >= 0: dispatch ns, sync ns, ns per GEMM cycle, then per level (caches, memory) ns per
// byte on one core and ns per byte shared, then per op class ns per element cycle.
struct Columns {
  Eigen::Index levels = 0;
  Eigen::Index dispatch() const { return 0; }
  Eigen::Index sync() const { return 1; }
  Eigen::Index gemm() const { return 2; }
  Eigen::Index core(std::size_t level) const { return 3 + static_cast<Eigen::Index>(level); }
  Eigen::Index shared(std::size_t level) const { return 3 + levels + static_cast<Eigen::Index>(level); }
  Eigen::Index element(ir::OpClass c) const { return 3 + 2 * levels + static_cast<Eigen::Index>(c); }
  Eigen::Index count() const { return 3 + 2 * levels + static_cast<Eigen::Index>(ir::kNumOpClasses); }
};

struct Row {
  const fit::Sample* sample;
  units::CpuWork work;
  double time_ns;
};

double inverse(double rate) {
  return rate > 0 ? 1.0 / rate : 0.0;
}

// The unknowns as the unit has them now.
Eigen::VectorXd initial(const ir::Unit& cpu, const Columns& col) {
  const units::CpuParams& p = cpu.as<units::CpuParams>();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(col.count());
  x(col.dispatch()) = p.dispatch_ns;
  x(col.sync()) = p.intra_op_sync_ns;
  x(col.gemm()) = 1.0 / (cpu.clock_ghz * p.gemm_efficiency);
  const std::vector<units::CpuLevel> levels = units::cpu_levels(cpu);
  for (std::size_t l = 0; l < static_cast<std::size_t>(col.levels); ++l) {
    const units::CpuLevel& level = levels[l];
    x(col.core(l)) = inverse(level.core_GBps);
    x(col.shared(l)) = inverse(level.shared_GBps);
  }
  for (std::size_t c = 0; c < ir::kNumOpClasses; ++c)
    x(col.element(static_cast<ir::OpClass>(c))) = p.elementwise_ops[c] / cpu.clock_ghz;
  return x;
}

// Row i of the design matrix under the bounds the current unknowns give; `bound` records the choices
// (bit 0: a non-GEMM op on its compute side, bit 1: its bytes on the level's shared side).
void fill_row(const Row& r, const Columns& col, const Eigen::VectorXd& x, bool first,
              Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> a, int& bound) {
  const units::CpuWork& w = r.work;
  const std::size_t l = w.level.index;
  a.setZero();
  a(col.dispatch()) = 1;
  if (w.cores > 1) a(col.sync()) = 1;
  bound = 0;
  // Memory: bytes / min(k x core, shared): per core the op's bytes / k, or all its bytes shared.
  Eigen::Index mem_col = col.core(l);
  double mem_coef = w.bytes / w.cores;
  if (x(col.shared(l)) > 0 && w.bytes * x(col.shared(l)) > mem_coef * x(col.core(l))) {
    mem_col = col.shared(l);
    mem_coef = w.bytes;
    bound |= 2;
  }
  const Eigen::Index comp_col = w.gemm ? col.gemm() : col.element(r.sample->op_class);
  const double comp_coef = w.compute_cycles;
  if (w.gemm) {
    a(mem_col) += mem_coef;
    a(comp_col) += comp_coef;
  } else if (comp_coef > 0 && (first || comp_coef * x(comp_col) > mem_coef * x(mem_col))) {
    a(comp_col) = comp_coef;
    bound |= 1;
  } else {
    a(mem_col) = mem_coef;
  }
}

} // namespace

CpuModuleFit fit_cpu_module(const ir::Unit& cpu, std::span<const fit::Sample> samples) {
  if (samples.size() < 3) throw InputError("calibration", "the CPU module needs at least 3 measured ops");
  CpuModuleFit out;
  out.samples = samples.size();
  Columns col;
  col.levels = static_cast<Eigen::Index>(cpu.as<units::CpuParams>().caches.size()) + 1;
  out.level_ops.assign(static_cast<std::size_t>(col.levels), 0);
  std::vector<Row> rows;
  for (const fit::Sample& s : samples) {
    const bool view = s.op_class == ir::OpClass::Nop;
    rows.push_back({&s, units::cpu_work(cpu, s.shape, view ? 0.0 : s.shape.bytes_read + s.shape.bytes_out),
                    s.time_s * 1e9});
    if (view) rows.back().work.compute_cycles = 0;
    ++out.level_ops[rows.back().work.level.index];
  }
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i)
    b(i) = rows[static_cast<std::size_t>(i)].time_ns;
  Eigen::VectorXd x = initial(cpu, col);
  Eigen::MatrixXd a(n, col.count());
  std::vector<int> bounds(rows.size()), previous;
  for (out.rounds = 1; out.rounds <= 100; ++out.rounds) {
    for (Eigen::Index i = 0; i < n; ++i)
      fill_row(rows[static_cast<std::size_t>(i)], col, x, out.rounds == 1, a.row(i),
               bounds[static_cast<std::size_t>(i)]);
    if (bounds == previous) break;
    previous = bounds;
    const fit::NnlsResult r = fit::nnls(a, b);
    // A column no op uses keeps its value (the data say nothing about it).
    for (Eigen::Index j = 0; j < col.count(); ++j)
      if (a.col(j).squaredNorm() > 0) x(j) = r.x(j);
  }
  out.rounds = std::min(out.rounds, 100);

  // Back to rates. A rate the fit left at zero (every op on the other side) keeps the unit's value.
  const auto used = [&](Eigen::Index j) { return a.col(j).squaredNorm() > 0 && x(j) > 0; };
  units::CpuParams& p = out.cpu;
  p = cpu.as<units::CpuParams>();
  p.dispatch_ns = x(col.dispatch());
  if (a.col(col.sync()).squaredNorm() > 0)
    p.intra_op_sync_ns = x(col.sync());
  else
    out.kept.push_back("intra_op_sync_ns");
  if (used(col.gemm()))
    p.gemm_efficiency = 1.0 / (x(col.gemm()) * cpu.clock_ghz);
  else
    out.kept.push_back("gemm_efficiency");
  for (std::size_t l = 0; l < static_cast<std::size_t>(col.levels); ++l) {
    const bool memory = l == p.caches.size();
    const std::string name = memory ? "memory" : p.caches[l].name;
    if (used(col.core(l))) {
      (memory ? p.core_memory_GBps : p.caches[l].bandwidth_GBps) = 1.0 / x(col.core(l));
    } else {
      out.kept.push_back(name + " per-core bandwidth");
    }
    double& shared = memory ? p.memory_port_GBps : p.caches[l].shared_GBps;
    if (used(col.shared(l))) {
      shared = 1.0 / x(col.shared(l));
    } else if (shared > 0) {
      // Unseen: no slower than one core (which the measurements saw), so nothing measured changes.
      shared = std::max(shared, memory ? p.core_memory_GBps : p.caches[l].bandwidth_GBps);
      out.kept.push_back(name + " shared bandwidth");
    }
  }
  for (std::size_t c = 0; c < ir::kNumOpClasses; ++c) {
    const Eigen::Index j = col.element(static_cast<ir::OpClass>(c));
    if (used(j)) p.elementwise_ops[c] = x(j) * cpu.clock_ghz;
  }

  ir::Unit fitted = cpu;
  fitted.as<units::CpuParams>() = p;
  double sq = 0, predicted = 0, observed = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const fit::Sample& s = *rows[i].sample;
    ir::Op op;
    op.op_class = s.op_class;
    op.features = s.shape;
    const double pred = units::cpu_alone_ns(fitted, op, s.shape.bytes_read + s.shape.bytes_out);
    const double y = rows[i].time_ns;
    if (y > 0) sq += (pred - y) * (pred - y) / (y * y);
    predicted += pred;
    observed += y;
    out.compute_bound += (bounds[i] & 1) ? 1 : 0;
    out.split += rows[i].work.cores > 1 ? 1 : 0;
    out.shared_bound += (bounds[i] & 2) ? 1 : 0;
  }
  out.relative_rms = std::sqrt(sq / static_cast<double>(rows.size()));
  out.total_error = observed > 0 ? (predicted - observed) / observed : 0;
  return out;
}

} // namespace lightsim::profile
