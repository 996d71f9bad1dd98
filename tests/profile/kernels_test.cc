// The profiler's kernels compute the right values: each op of small hand-built graphs is executed by
// GraphExecutor and compared with a naive reference computed here from the same input buffers.
#include "ir/error.h"
#include "sim/profile/graph_executor.h"
#include "tests/profile/graph_builder.h"

#include <cmath>
#include <gtest/gtest.h>
#include <numeric>

namespace lightsim::profile {
namespace {

using ir::DType;
using ir::OpClass;
using test::GraphBuilder;

const float* f32(const GraphExecutor& ex, ir::TensorId t) {
  return ex.tensor(t).as<float>();
}

void expect_near_all(const float* got, const std::vector<float>& want, float tol) {
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "element " << i;
}

TEST(Kernels, DenseMatchesNaiveGemm) {
  GraphBuilder b;
  const auto x = b.input({4, 64}), w = b.input({32, 64});
  const auto y = b.op(OpClass::Dense, {x, w}, {4, 32});
  const ir::Graph g = b.finish();
  const GraphExecutor ex(g, 7);
  ex.run_all();
  std::vector<float> want(4 * 32);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 32; ++j) {
      double s = 0;
      for (int k = 0; k < 64; ++k)
        s += double(f32(ex, x)[i * 64 + k]) * f32(ex, w)[j * 64 + k];
      want[std::size_t(i * 32 + j)] = float(s);
    }
  expect_near_all(f32(ex, y), want, 1e-4f);
}

TEST(Kernels, BatchMatmulTransposedAndPlainLayouts) {
  GraphBuilder b;
  const auto a = b.input({3, 5, 7}), bt = b.input({3, 6, 7}), bp = b.input({1, 7, 6});
  const auto yt = b.op(OpClass::BatchMatmul, {a, bt}, {3, 5, 6});
  const auto yp = b.op(OpClass::BatchMatmul, {a, bp}, {3, 5, 6}); // batch 1 broadcasts
  const ir::Graph g = b.finish();
  const GraphExecutor ex(g, 3);
  ex.run_all();
  std::vector<float> want_t(90), want_p(90);
  for (int n = 0; n < 3; ++n)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j) {
        double st = 0, sp = 0;
        for (int k = 0; k < 7; ++k) {
          const double av = f32(ex, a)[n * 35 + i * 7 + k];
          st += av * f32(ex, bt)[n * 42 + j * 7 + k];
          sp += av * f32(ex, bp)[k * 6 + j];
        }
        want_t[std::size_t(n * 30 + i * 6 + j)] = float(st);
        want_p[std::size_t(n * 30 + i * 6 + j)] = float(sp);
      }
  expect_near_all(f32(ex, yt), want_t, 1e-5f);
  expect_near_all(f32(ex, yp), want_p, 1e-5f);
}

TEST(Kernels, SoftmaxOverLastAxis) {
  GraphBuilder b;
  const auto x = b.input({2, 3, 17});
  const auto y = b.op(OpClass::Softmax, {x}, {2, 3, 17});
  const ir::Graph g = b.finish();
  const GraphExecutor ex(g, 11);
  ex.run_all();
  std::vector<float> want(2 * 3 * 17);
  for (int r = 0; r < 6; ++r) {
    double sum = 0;
    for (int c = 0; c < 17; ++c)
      sum += std::exp(double(f32(ex, x)[r * 17 + c]));
    for (int c = 0; c < 17; ++c)
      want[std::size_t(r * 17 + c)] = float(std::exp(double(f32(ex, x)[r * 17 + c])) / sum);
  }
  expect_near_all(f32(ex, y), want, 1e-5f);
}

TEST(Kernels, BroadcastingElementwise) {
  GraphBuilder b;
  const auto x = b.input({2, 3, 4}), bias = b.input({4}), col = b.input({2, 3, 1}), s = b.input({});
  const auto add = b.op(OpClass::Add, {x, bias}, {2, 3, 4});
  const auto mul = b.op(OpClass::Multiply, {x, col}, {2, 3, 4});
  const auto div = b.op(OpClass::Divide, {x, s}, {2, 3, 4});
  const auto th = b.op(OpClass::Tanh, {x}, {2, 3, 4});
  const auto rs = b.op(OpClass::Rsqrt, {mul}, {2, 3, 4}); // NaN where negative, like TVM
  const auto lt = b.op(OpClass::Less, {x, s}, {2, 3, 4}, DType::Bool);
  const auto wh = b.op(OpClass::Where, {lt, x, bias}, {2, 3, 4});
  const auto pw = b.op(OpClass::Power, {x, s}, {2, 3, 4});
  const ir::Graph g = b.finish();
  const GraphExecutor ex(g, 5);
  ex.run_all();
  const float* X = f32(ex, x);
  const float sv = f32(ex, s)[0];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        const int e = i * 12 + j * 4 + k;
        const float bv = f32(ex, bias)[k], cv = f32(ex, col)[i * 3 + j];
        EXPECT_FLOAT_EQ(f32(ex, add)[e], X[e] + bv);
        EXPECT_FLOAT_EQ(f32(ex, mul)[e], X[e] * cv);
        EXPECT_NEAR(f32(ex, div)[e], X[e] / sv, 1e-5 * std::abs(X[e] / sv));
        EXPECT_NEAR(f32(ex, th)[e], std::tanh(X[e]), 1e-6);
        if (X[e] * cv > 0) {
          EXPECT_NEAR(f32(ex, rs)[e], 1 / std::sqrt(X[e] * cv), 1e-4 / std::sqrt(X[e] * cv));
        }
        EXPECT_EQ(ex.tensor(lt).as<bool>()[e], X[e] < sv);
        EXPECT_FLOAT_EQ(f32(ex, wh)[e], X[e] < sv ? X[e] : bv);
        if (X[e] > 0) {
          EXPECT_NEAR(f32(ex, pw)[e], std::pow(X[e], sv), 1e-5);
        }
      }
}

TEST(Kernels, MeanKeepdimsAndMiddleAxis) {
  GraphBuilder b;
  const auto x = b.input({2, 5, 8});
  const auto last = b.op(OpClass::Mean, {x}, {2, 5, 1});
  const auto middle = b.op(OpClass::Mean, {x}, {2, 8}); // keepdims off, axis 1
  const ir::Graph g = b.finish();
  const GraphExecutor ex(g, 9);
  ex.run_all();
  const float* X = f32(ex, x);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 5; ++j) {
      double s = 0;
      for (int k = 0; k < 8; ++k)
        s += X[i * 40 + j * 8 + k];
      EXPECT_NEAR(f32(ex, last)[i * 5 + j], s / 8, 1e-6);
    }
    for (int k = 0; k < 8; ++k) {
      double s = 0;
      for (int j = 0; j < 5; ++j)
        s += X[i * 40 + j * 8 + k];
      EXPECT_NEAR(f32(ex, middle)[i * 8 + k], s / 5, 1e-6);
    }
  }
}

TEST(Kernels, LayoutOps) {
  GraphBuilder b;
  const auto x = b.input({2, 3, 4});
  const auto tr = b.op(OpClass::Transpose, {x}, {4, 2, 3}); // perm (2, 0, 1)
  const auto sl = b.op(OpClass::StridedSlice, {x}, {2, 2, 3});
  const auto parts = b.add(OpClass::Split, {x}, {{{2, 3, 1}}, {{2, 3, 3}}});
  const auto cat = b.op(OpClass::Concatenate, {parts[1], parts[0]}, {2, 3, 4});
  const auto table = b.input({10, 4}), idx = b.input({1, 3}, DType::Int64);
  const auto tk = b.op(OpClass::Take, {table, idx}, {1, 3, 4});
  const ir::Graph g = b.finish();
  const GraphExecutor ex(g, 13);
  ex.tensor(idx).as<std::int64_t>()[1] = 99; // clipped to row 9
  ex.run_all();
  const float* X = f32(ex, x);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(f32(ex, tr)[k * 6 + i * 3 + j], X[i * 12 + j * 4 + k]);
        if (j < 2 && k < 3) {
          EXPECT_EQ(f32(ex, sl)[i * 6 + j * 3 + k], X[i * 12 + j * 4 + k]);
        }
        const int rotated = (k + 1) % 4; // cat = [x[..,1:4], x[..,0:1]]
        EXPECT_EQ(f32(ex, cat)[i * 12 + j * 4 + k], X[i * 12 + j * 4 + rotated]);
      }
  for (int r = 0; r < 3; ++r) {
    const std::int64_t row = std::min<std::int64_t>(ex.tensor(idx).as<std::int64_t>()[r], 9);
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(f32(ex, tk)[r * 4 + c], f32(ex, table)[row * 4 + c]);
  }
}

TEST(Kernels, FusedTailRunsInPlace) {
  GraphBuilder b;
  const auto x = b.input({3, 8}), w = b.input({5, 8}), bias = b.input({5});
  const auto y = b.op(OpClass::Dense, {x, w, bias}, {3, 5});
  b.graph.ops.back().features.fused_tail = {OpClass::Add, OpClass::Relu};
  const ir::Graph g = b.finish();
  const GraphExecutor ex(g, 17);
  ex.run_all();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      double s = f32(ex, bias)[j];
      for (int k = 0; k < 8; ++k)
        s += double(f32(ex, x)[i * 8 + k]) * f32(ex, w)[j * 8 + k];
      EXPECT_NEAR(f32(ex, y)[i * 5 + j], std::max(0.0, s), 1e-5);
    }
}

TEST(Kernels, UnsupportedOpIsInputErrorNamingTheOp) {
  GraphBuilder b;
  const auto x = b.input({1, 3, 8, 8}), w = b.input({4, 3, 3, 3});
  b.op(OpClass::Conv2d, {x, w}, {1, 4, 6, 6});
  const ir::Graph g = b.finish();
  try {
    const GraphExecutor ex(g, 1);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("op 2 'conv2d_2'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not supported"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace lightsim::profile
