#include "sim/retrain/nnls.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

namespace lightsim::fit {
namespace {

// Unconstrained least squares on the columns in `passive` (others zero).
Eigen::VectorXd solve_passive(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                              const std::vector<bool>& passive) {
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
  Eigen::VectorXd s = Eigen::VectorXd::Zero(a.cols());
  if (cols.empty()) return s;
  Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t i = 0; i < cols.size(); ++i)
    sub.col(static_cast<Eigen::Index>(i)) = a.col(cols[i]);
  const Eigen::VectorXd z = sub.colPivHouseholderQr().solve(b);
  for (std::size_t i = 0; i < cols.size(); ++i)
    s(cols[i]) = z(static_cast<Eigen::Index>(i));
  return s;
}

} // namespace

NnlsResult nnls(const Eigen::MatrixXd& a_in, const Eigen::VectorXd& b, const std::vector<bool>& nonnegative) {
  const Eigen::Index n = a_in.cols();
  const auto constrained = [&](Eigen::Index j) {
    return nonnegative.empty() || nonnegative[static_cast<std::size_t>(j)];
  };
  // Scale columns to unit norm so that the tolerances mean the same for every column.
  Eigen::VectorXd scale = Eigen::VectorXd::Ones(n);
  Eigen::MatrixXd a = a_in;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double norm = a.col(j).norm();
    if (norm > 0) {
      scale(j) = norm;
      a.col(j) /= norm;
    }
  }
  const double tol = 1e-12 * std::max(1.0, b.norm()) * static_cast<double>(std::max<Eigen::Index>(n, 1));

  NnlsResult result;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(static_cast<std::size_t>(n), false);
  for (Eigen::Index j = 0; j < n; ++j)
    passive[static_cast<std::size_t>(j)] = !constrained(j);
  if (std::find(passive.begin(), passive.end(), true) != passive.end()) x = solve_passive(a, b, passive);

  const int max_iterations = 3 * static_cast<int>(n) + 10;
  for (;;) {
    const Eigen::VectorXd w = a.transpose() * (b - a * x);
    Eigen::Index t = -1;
    double best = tol;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (passive[static_cast<std::size_t>(j)]) continue;
      if (w(j) > best) {
        best = w(j);
        t = j;
      }
    }
    if (t < 0) break;
    if (++result.iterations > max_iterations) {
      result.converged = false;
      break;
    }
    passive[static_cast<std::size_t>(t)] = true;
    for (;;) {
      const Eigen::VectorXd s = solve_passive(a, b, passive);
      double alpha = std::numeric_limits<double>::infinity();
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<std::size_t>(j)] && constrained(j) && s(j) <= 0) {
          const double step = x(j) - s(j);
          alpha = std::min(alpha, step > 0 ? x(j) / step : 0.0);
        }
      if (!std::isfinite(alpha)) {
        x = s;
        break;
      }
      x += alpha * (s - x);
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[static_cast<std::size_t>(j)] && constrained(j) && x(j) <= tol) {
          passive[static_cast<std::size_t>(j)] = false;
          x(j) = 0;
        }
      }
      // The column just added had a positive gradient; if it left again, the outer loop decides.
    }
  }
  result.x = x.cwiseQuotient(scale);
  return result;
}

} // namespace lightsim::fit
