// The profiler's GPU path. On a machine with a CUDA device (and a build with CUDA): every op of small
// graphs runs on the GPU, GEMM and softmax outputs match naive references computed here, every other op
// matches the CPU kernels, and a profile of a tiny graph records the GPU and checksums of real outputs.
// Without a device, or in a build without CUDA, the same tests assert that the GPU path says which of the
// two it is (never a silent skip). The GPU attributes of measurement files round-trip everywhere.
#include "sim/profile/gpu.h"
#include "sim/profile/graph_executor.h"
#include "tests/profile/graph_builder.h"
#include "tests/test_support.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

#ifndef LIGHTSIM_TEST_HAVE_CUDA
#error "tests/profile/CMakeLists.txt defines LIGHTSIM_TEST_HAVE_CUDA (0 or 1)"
#endif

namespace lightsim::profile {
namespace {

using ir::DType;
using ir::OpClass;
using test::GraphBuilder;

bool device_present() {
  return gpu_unavailable_reason().empty();
}

// Without a usable GPU: the reason names the cause this build can have, and the GPU path refuses.
void expect_refused(const ir::Graph& g) {
  const std::string why = gpu_unavailable_reason();
  ASSERT_FALSE(why.empty());
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  if (LIGHTSIM_TEST_HAVE_CUDA)
    EXPECT_NE(why.find("no CUDA device"), std::string::npos) << why;
  else
    EXPECT_NE(why.find("no CUDA support"), std::string::npos) << why;
  EXPECT_THROW(GpuExecutor(g, 1), GpuUnavailable);
  EXPECT_THROW(profile_graph_gpu(g, {}), GpuUnavailable);
  EXPECT_THROW(describe_gpu_machine(), GpuUnavailable);
}

std::vector<float> floats(const std::vector<std::byte>& bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

const float* host_f32(const GraphExecutor& ex, ir::TensorId t) {
  return ex.tensor(t).as<float>();
}

TEST(GpuProfiler, BuildMatchesItsCompileDefinition) {
  EXPECT_EQ(gpu_support_built(), LIGHTSIM_TEST_HAVE_CUDA != 0);
}

TEST(GpuProfiler, GemmAndSoftmaxMatchNaiveReferences) {
  GraphBuilder b;
  const auto x = b.input({8, 32}), w = b.input({16, 32});
  const auto a = b.input({3, 5, 7}), bt = b.input({3, 6, 7}), bp = b.input({1, 7, 6});
  const auto d = b.op(OpClass::Dense, {x, w}, {8, 16});
  const auto yt = b.op(OpClass::BatchMatmul, {a, bt}, {3, 5, 6});
  const auto yp = b.op(OpClass::BatchMatmul, {a, bp}, {3, 5, 6}); // plain layout, batch 1 broadcasts
  const auto s = b.op(OpClass::Softmax, {d}, {8, 16});
  const ir::Graph g = b.finish();
  if (!device_present()) return expect_refused(g);

  GpuExecutor gpu(g, 11);
  gpu.run_all();
  const GraphExecutor in(g, 11); // the same seed: the same inputs, bit for bit
  std::vector<float> dense(8 * 16), soft(8 * 16), want_t(90), want_p(90);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j) {
      double acc = 0;
      for (int k = 0; k < 32; ++k)
        acc += double(host_f32(in, x)[i * 32 + k]) * host_f32(in, w)[j * 32 + k];
      dense[std::size_t(i * 16 + j)] = float(acc);
    }
  for (int i = 0; i < 8; ++i) {
    double mx = -1e30, sum = 0;
    for (int j = 0; j < 16; ++j)
      mx = std::max(mx, double(dense[std::size_t(i * 16 + j)]));
    for (int j = 0; j < 16; ++j)
      sum += std::exp(double(dense[std::size_t(i * 16 + j)]) - mx);
    for (int j = 0; j < 16; ++j)
      soft[std::size_t(i * 16 + j)] = float(std::exp(double(dense[std::size_t(i * 16 + j)]) - mx) / sum);
  }
  for (int n = 0; n < 3; ++n)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j) {
        double st = 0, sp = 0;
        for (int k = 0; k < 7; ++k) {
          const double av = host_f32(in, a)[n * 35 + i * 7 + k];
          st += av * host_f32(in, bt)[n * 42 + j * 7 + k];
          sp += av * host_f32(in, bp)[k * 6 + j];
        }
        want_t[std::size_t(n * 30 + i * 6 + j)] = float(st);
        want_p[std::size_t(n * 30 + i * 6 + j)] = float(sp);
      }
  const auto expect_near_all = [](const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    double sum_got = 0, sum_want = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "element " << i;
      sum_got += got[i];
      sum_want += want[i];
    }
    EXPECT_NEAR(sum_got, sum_want, 1e-3 * (1 + std::abs(sum_want)));
  };
  expect_near_all(floats(gpu.download(d)), dense);
  expect_near_all(floats(gpu.download(yt)), want_t);
  expect_near_all(floats(gpu.download(yp)), want_p);
  expect_near_all(floats(gpu.download(s)), soft);
}

TEST(GpuProfiler, EveryOtherOpMatchesTheCpuKernels) {
  GraphBuilder b;
  const auto x = b.input({2, 3, 4}), bias = b.input({4}), y = b.input({2, 3, 4});
  const auto table = b.input({10, 4}), idx = b.input({2, 3}, DType::Int64);
  const auto add = b.op(OpClass::Add, {x, bias}, {2, 3, 4});
  const auto mean = b.op(OpClass::Mean, {add}, {2, 3, 1});
  const auto sum = b.op(OpClass::Sum, {x}, {3}); // axes 0 and 2: two passes, through scratch
  const auto tr = b.op(OpClass::Transpose, {add}, {2, 4, 3});
  const auto cat = b.op(OpClass::Concatenate, {x, y}, {2, 3, 8});
  const auto parts = b.add(OpClass::Split, {cat}, {{{2, 3, 3}}, {{2, 3, 5}}});
  const auto sl = b.op(OpClass::StridedSlice, {x}, {2, 2, 4});
  const auto tk = b.op(OpClass::Take, {table, idx}, {2, 3, 4});
  const auto less = b.op(OpClass::Less, {x, y}, {2, 3, 4}, DType::Bool);
  const auto wh = b.op(OpClass::Where, {less, x, y}, {2, 3, 4});
  const auto cast = b.op(OpClass::Cast, {x}, {2, 3, 4}, DType::Float64);
  std::vector<ir::TensorId> checked{add, mean, sum, tr, cat, parts[0], parts[1], sl, tk, less, wh, cast};
  for (OpClass c : {OpClass::Exp, OpClass::Tanh, OpClass::Erf, OpClass::Sigmoid, OpClass::Negative})
    checked.push_back(b.op(c, {x}, {2, 3, 4}));
  const auto relu = b.op(OpClass::Relu, {x}, {2, 3, 4});
  checked.push_back(relu);
  checked.push_back(b.op(OpClass::Sqrt, {relu}, {2, 3, 4})); // of non-negative values: finite
  const ir::Graph g = b.finish();
  if (!device_present()) return expect_refused(g);

  GpuExecutor gpu(g, 5);
  gpu.run_all();
  const GraphExecutor cpu(g, 5);
  cpu.run_all();
  for (ir::TensorId t : checked) {
    const ir::Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
    const std::vector<std::byte> got = gpu.download(t);
    const std::byte* want = cpu.tensor(t).data;
    if (tensor.dtype == DType::Float32) {
      const std::vector<float> v = floats(got);
      for (std::size_t i = 0; i < v.size(); ++i)
        ASSERT_NEAR(v[i], reinterpret_cast<const float*>(want)[i], 1e-5 * (1 + std::abs(v[i])))
            << g.ops[static_cast<std::size_t>(tensor.producer)].name << " element " << i;
    } else if (tensor.dtype == DType::Float64) {
      for (std::size_t i = 0; i < tensor.elements; ++i) {
        double v;
        std::memcpy(&v, got.data() + i * 8, 8);
        ASSERT_NEAR(v, reinterpret_cast<const double*>(want)[i], 1e-12) << "element " << i;
      }
    } else {
      EXPECT_EQ(std::memcmp(got.data(), want, got.size()), 0)
          << g.ops[static_cast<std::size_t>(tensor.producer)].name;
    }
  }
}

TEST(GpuProfiler, ProfilesATinyGraphOnTheGpu) {
  GraphBuilder b;
  const auto x = b.input({8, 32}), w = b.input({16, 32}), bias = b.input({16});
  const auto d = b.op(OpClass::Dense, {x, w}, {8, 16});
  const auto a = b.op(OpClass::Add, {d, bias}, {8, 16});
  b.op(OpClass::Softmax, {a}, {8, 16});
  const ir::Graph g = b.finish();
  if (!device_present()) return expect_refused(g);

  ProfileOptions o;
  o.min_samples = 3;
  o.max_samples = 20;
  o.op_budget_s = 1e-4;
  o.graph_runs = 3;
  const MeasurementFile f = profile_graph_gpu(g, o);
  EXPECT_EQ(f.machine.unit, "gpu");
  EXPECT_FALSE(f.machine.gpu.name.empty());
  EXPECT_GT(f.machine.gpu.sm_count, 0);
  EXPECT_GT(f.machine.gpu.memory_bytes, 0u);
  ASSERT_EQ(f.ops.size(), 3u);
  GpuExecutor fresh(g, o.seed);
  fresh.run_all();
  for (const Measurement& m : f.ops) {
    EXPECT_GT(m.median_s, 0) << m.name;
    EXPECT_LE(m.min_s, m.median_s) << m.name;
    EXPECT_LE(m.median_s, m.p90_s) << m.name;
    EXPECT_EQ(m.checksum, fresh.output_checksum(m.op_id)) << m.name;
  }
  EXPECT_GT(f.end_to_end_median_s, 0);
  const std::string path = test::temp_dir() + "/gpu.h5";
  write_measurement_file(path, f);
  const MeasurementFile r = read_measurement_file(path);
  EXPECT_EQ(r.machine.unit, "gpu");
  EXPECT_EQ(r.machine.gpu.name, f.machine.gpu.name);
  EXPECT_EQ(r.ops.size(), f.ops.size());
}

TEST(GpuProfiler, GpuAttributesRoundTrip) {
  MeasurementFile f;
  f.graph = "g.json";
  f.machine.unit = "gpu";
  f.machine.gpu = {.name = "Test GPU",
                   .compute_capability = "9.0",
                   .sm_count = 132,
                   .clock_khz = 1980000,
                   .memory_clock_khz = 2619000,
                   .memory_bus_bits = 5120,
                   .memory_bytes = 85ull << 30,
                   .driver_version = 13000,
                   .runtime_version = 13000,
                   .cublas_version = 130001,
                   .cuda_compiler = "NVIDIA 13.0.88",
                   .cuda_flags = "-O3 architectures 90"};
  f.end_to_end_s = {1e-3};
  const std::string path = test::temp_dir() + "/g.h5";
  write_measurement_file(path, f);
  const MeasurementFile r = read_measurement_file(path);
  EXPECT_EQ(r.machine.unit, "gpu");
  EXPECT_EQ(r.machine.gpu.name, "Test GPU");
  EXPECT_EQ(r.machine.gpu.compute_capability, "9.0");
  EXPECT_EQ(r.machine.gpu.sm_count, 132);
  EXPECT_EQ(r.machine.gpu.clock_khz, 1980000);
  EXPECT_EQ(r.machine.gpu.memory_clock_khz, 2619000);
  EXPECT_EQ(r.machine.gpu.memory_bus_bits, 5120);
  EXPECT_EQ(r.machine.gpu.memory_bytes, 85ull << 30);
  EXPECT_EQ(r.machine.gpu.cublas_version, 130001);
  EXPECT_EQ(r.machine.gpu.cuda_flags, "-O3 architectures 90");
  // A CPU file has no GPU attributes.
  f.machine.unit = "cpu";
  write_measurement_file(path, f);
  EXPECT_TRUE(read_measurement_file(path).machine.gpu.name.empty());
}

} // namespace
} // namespace lightsim::profile
