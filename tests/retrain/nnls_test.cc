// NNLS (sim/retrain/nnls.h): a hand-solvable problem, an interior optimum equal to Eigen's unconstrained
// solution, free columns, and a degenerate (rank-deficient) problem.
#include "sim/retrain/nnls.h"

#include <Eigen/QR>
#include <gtest/gtest.h>
#include <random>

namespace lightsim::fit {
namespace {

TEST(Nnls, HandSolvedBoundActive) {
  // min (x1 - 2)^2 + (x2 + 1)^2 + (x1 + x2 - 1)^2, x >= 0. Unconstrained: x2 < 0. With x2 = 0 the
  // optimum is x1 = 1.5, and the gradient there keeps x2 at its bound (A^T r = -1.5 < 0).
  Eigen::MatrixXd a(3, 2);
  a << 1, 0, 0, 1, 1, 1;
  Eigen::VectorXd b(3);
  b << 2, -1, 1;
  const NnlsResult r = nnls(a, b);
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.x(0), 1.5, 1e-12);
  EXPECT_EQ(r.x(1), 0.0);
  const Eigen::VectorXd free = a.colPivHouseholderQr().solve(b);
  EXPECT_LT(free(1), 0.0); // the constraint really binds
}

TEST(Nnls, HandSolvedAllZero) {
  Eigen::MatrixXd a(2, 2);
  a << 1, 0, 0, 1;
  Eigen::VectorXd b(2);
  b << -3, -4;
  const NnlsResult r = nnls(a, b);
  EXPECT_EQ(r.x(0), 0.0);
  EXPECT_EQ(r.x(1), 0.0);
}

TEST(Nnls, InteriorOptimumEqualsUnconstrained) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::MatrixXd a(40, 4);
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      a(i, j) = u(gen) * std::pow(10.0, static_cast<double>(j));
  Eigen::VectorXd truth(4);
  truth << 3, 0.5, 0.02, 0.004;
  Eigen::VectorXd b = a * truth;
  for (Eigen::Index i = 0; i < b.rows(); ++i)
    b(i) += 0.01 * (u(gen) - 0.5);
  const Eigen::VectorXd free = a.colPivHouseholderQr().solve(b);
  ASSERT_TRUE((free.array() > 0).all());
  const NnlsResult r = nnls(a, b);
  EXPECT_TRUE(r.converged);
  for (Eigen::Index j = 0; j < 4; ++j)
    EXPECT_NEAR(r.x(j), free(j), 1e-9 * std::abs(free(j))) << j;
}

TEST(Nnls, FreeColumnMayGoNegative) {
  // y = 2 x - 5: with the intercept column free the fit is exact; constrained, the intercept is 0.
  Eigen::MatrixXd a(4, 2);
  a << 1, 1, 2, 1, 3, 1, 4, 1;
  Eigen::VectorXd b(4);
  b << -3, -1, 1, 3;
  const NnlsResult free = nnls(a, b, {true, false});
  EXPECT_NEAR(free.x(0), 2.0, 1e-12);
  EXPECT_NEAR(free.x(1), -5.0, 1e-12);
  const NnlsResult bound = nnls(a, b);
  EXPECT_EQ(bound.x(1), 0.0);
  EXPECT_GE(bound.x(0), 0.0);
}

TEST(Nnls, RankDeficientColumnsStillFeasibleAndExact) {
  // Two identical columns: any split of the weight fits; the answer must be non-negative and exact.
  Eigen::MatrixXd a(3, 3);
  a << 1, 1, 1, 2, 2, 1, 3, 3, 1;
  Eigen::VectorXd b(3);
  b << 3, 5, 7; // 2 x + 1
  const NnlsResult r = nnls(a, b);
  EXPECT_TRUE((r.x.array() >= 0).all());
  EXPECT_NEAR((a * r.x - b).norm(), 0.0, 1e-12);
}

} // namespace
} // namespace lightsim::fit
