// NNLS: least squares with sign constraints, min ||A x - b|| subject to x_j >= 0 for the constrained
// columns (the others are free). Lawson and Hanson's active-set method, each step an unconstrained
// least-squares solve on the passive columns with Eigen's column-pivoting Householder QR (which copes
// with rank-deficient column sets). Columns are scaled to unit norm internally. Deterministic.
//
// It is not a general QP solver: only bounds at zero, no other constraints, no regularisation.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace lightsim::fit {

struct NnlsResult {
  Eigen::VectorXd x;
  int iterations = 0;
  bool converged = true; // false when the iteration cap was reached (x is then feasible, maybe not optimal)
};

// nonnegative[j]: column j is constrained to x_j >= 0 (empty: every column is).
NnlsResult nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                const std::vector<bool>& nonnegative = {});

} // namespace lightsim::fit
