#include "sim/profile/calibrate.h"

#include "ir/error.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <optional>

namespace lightsim::profile {
namespace {

using ir::Feature;

std::vector<Feature> candidate_features(ir::OpClass c) {
  if (ir::is_gemm_like(c)) return {Feature::Macs, Feature::BytesIn};
  return {Feature::BytesIn, Feature::BytesOut};
}

double feature_of(const ir::OpFeatures& f, Feature which) {
  switch (which) {
  case Feature::Macs:
    return f.macs;
  case Feature::ElementsIn:
    return f.elements_in;
  case Feature::ElementsOut:
    return f.elements_out;
  case Feature::BytesIn:
    return f.bytes_in;
  case Feature::BytesOut:
    return f.bytes_out;
  default:
    return f.max_dim;
  }
}

// Least squares of y on the columns of X (the last column is the intercept's), columns scaled to unit
// maximum so that macs (1e9) and the intercept (1) are solved alike. Rank-deficient systems (features
// that move together across the samples) get the minimum-norm solution.
Eigen::VectorXd solve(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  Eigen::VectorXd scale = X.cwiseAbs().colwise().maxCoeff().transpose();
  for (Eigen::Index j = 0; j < scale.size(); ++j)
    if (scale(j) == 0) scale(j) = 1;
  const Eigen::MatrixXd Xs = X * scale.cwiseInverse().asDiagonal();
  const Eigen::VectorXd b = Xs.completeOrthogonalDecomposition().solve(y);
  return b.cwiseQuotient(scale);
}

double target_time(const Measurement& m, FitTarget target) {
  switch (target) {
  case FitTarget::InGraph:
    return m.in_graph_median_s;
  case FitTarget::InGraphMin:
    return m.in_graph_min_s;
  default:
    return m.median_s;
  }
}

ClassFit fit_class(ir::OpClass c, const ir::ModelPiece& condition, const std::vector<const Measurement*>& ms,
                   FitTarget target) {
  std::vector<Feature> kept = candidate_features(c);
  bool intercept = true;
  const auto n = static_cast<Eigen::Index>(ms.size());
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i)
    y(i) = target_time(*ms[static_cast<std::size_t>(i)], target);
  Eigen::VectorXd coef;
  while (true) {
    const auto cols = static_cast<Eigen::Index>(kept.size()) + (intercept ? 1 : 0);
    if (cols == 0) {
      coef.resize(0);
      break;
    }
    Eigen::MatrixXd X(n, cols);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < kept.size(); ++j)
        X(i, static_cast<Eigen::Index>(j)) = feature_of(ms[static_cast<std::size_t>(i)]->features, kept[j]);
      if (intercept) X(i, cols - 1) = 1.0;
    }
    coef = solve(X, y);
    Eigen::Index worst = -1;
    for (Eigen::Index j = 0; j < cols; ++j)
      if (coef(j) < 0 && (worst < 0 || coef(j) < coef(worst))) worst = j;
    if (worst < 0) break;
    if (intercept && worst == cols - 1)
      intercept = false;
    else
      kept.erase(kept.begin() + worst);
  }
  ClassFit fit{c, condition, kept, {}};
  fit.piece.time_s = {};
  for (std::size_t j = 0; j < kept.size(); ++j)
    fit.piece.time_s.coef[static_cast<std::size_t>(kept[j])] = coef(static_cast<Eigen::Index>(j));
  if (intercept) fit.piece.time_s.intercept = coef(coef.size() - 1);
  // Provenance: samples, R^2 on the samples, the feature ranges they cover.
  fit.info.samples = ms.size();
  fit.info.feature_min.fill(INFINITY);
  fit.info.feature_max.fill(-INFINITY);
  const double mean = y.mean();
  double ss_res = 0, ss_tot = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const ir::OpFeatures& f = ms[static_cast<std::size_t>(i)]->features;
    double pred = fit.piece.time_s.intercept;
    for (std::size_t k = 0; k < ir::kNumFeatures; ++k) {
      const double v = feature_of(f, static_cast<Feature>(k));
      pred += fit.piece.time_s.coef[k] * v;
      fit.info.feature_min[k] = std::min(fit.info.feature_min[k], v);
      fit.info.feature_max[k] = std::max(fit.info.feature_max[k], v);
    }
    ss_res += (y(i) - pred) * (y(i) - pred);
    ss_tot += (y(i) - mean) * (y(i) - mean);
  }
  fit.info.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  return fit;
}

} // namespace

bool applies(const ir::ModelPiece& p, const ir::OpFeatures& f) {
  if (!p.when) return true;
  const double v = feature_of(f, *p.when);
  return p.when_min <= v && v < p.when_max;
}

std::vector<ClassFit> fit_op_classes(const std::vector<Measurement>& measurements, FitTarget target,
                                     const ir::ArithmeticModel* base) {
  std::vector<ClassFit> fits;
  for (std::size_t c = 0; c < ir::kNumOpClasses; ++c) {
    std::vector<ir::ModelPiece> pieces(1); // one unconditioned piece unless the base has more
    if (base && !base->classes[c].pieces.empty()) pieces = base->classes[c].pieces;
    std::vector<std::vector<const Measurement*>> by_piece(pieces.size());
    for (const Measurement& m : measurements) {
      if (!m.fused_tail.empty() || static_cast<std::size_t>(m.op_class) != c ||
          m.op_class == ir::OpClass::Input)
        continue;
      for (std::size_t p = 0; p < pieces.size(); ++p)
        if (applies(pieces[p], m.features)) {
          by_piece[p].push_back(&m);
          break;
        }
    }
    for (std::size_t p = 0; p < pieces.size(); ++p)
      if (!by_piece[p].empty())
        fits.push_back(fit_class(static_cast<ir::OpClass>(c), pieces[p], by_piece[p], target));
  }
  return fits;
}

ir::Hardware calibrated_hardware(const ir::Hardware& base, int unit, const std::vector<ClassFit>& fits,
                                 const std::string& name, const std::string& description) {
  if (unit < 0 || static_cast<std::size_t>(unit) >= base.units.size() ||
      base.units[static_cast<std::size_t>(unit)].kind != ir::UnitKind::Cpu)
    throw InputError(base.source, "calibration needs a CPU unit");
  ir::Hardware hw = base;
  hw.name = name;
  hw.description = description;
  ir::Unit& u = hw.units[static_cast<std::size_t>(unit)];
  u.cores = 1;
  ir::ArithmeticModel& model = hw.models[static_cast<std::size_t>(u.model)];
  // Per class: the fitted pieces in the base's order; pieces without samples are dropped, but the last piece
  // is always unconditioned (the base's own, or the last fitted one widened).
  for (std::size_t c = 0; c < ir::kNumOpClasses; ++c) {
    ir::OpClassModel& entry = model.classes[c];
    std::vector<ir::ModelPiece> pieces;
    std::optional<ir::FitInfo> info;
    for (const ClassFit& fit : fits) {
      if (static_cast<std::size_t>(fit.op_class) != c) continue;
      pieces.push_back(fit.piece);
      if (!info || fit.info.samples > info->samples) info = fit.info; // the config keeps one record per class
    }
    if (pieces.empty()) continue;
    if (pieces.back().when) { // keep an unconditioned last piece: the base's, or the widest fitted one
      ir::ModelPiece rest = pieces.back();
      for (const ir::ModelPiece& p : entry.pieces)
        if (!p.when) rest = p;
      rest.when.reset();
      rest.when_min = -INFINITY;
      rest.when_max = INFINITY;
      pieces.push_back(rest);
    }
    entry.pieces = std::move(pieces);
    entry.fit = info;
  }
  return hw;
}

} // namespace lightsim::profile
