// The profiler times real work and records it faithfully: every op of a tiny graph is executed and timed,
// the recorded checksums are those of the outputs a fresh execution computes, measurement files round-trip
// through HDF5, a bad path leaves no file, and the stop-gap calibration recovers known coefficients.
#include "ir/cost/cost_model.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "ir/tvm/tvm_import.h"
#include "sim/profile/calibrate.h"
#include "sim/profile/graph_executor.h"
#include "sim/profile/profiler.h"
#include "sim/profile/shape_rules.h"
#include "tests/profile/graph_builder.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace lightsim::profile {
namespace {

using ir::OpClass;

ir::Graph tiny_graph() {
  test::GraphBuilder b;
  const auto x = b.input({8, 32}), w = b.input({16, 32}), bias = b.input({16});
  const auto d = b.op(OpClass::Dense, {x, w}, {8, 16});
  const auto a = b.op(OpClass::Add, {d, bias}, {8, 16});
  const auto r = b.op(OpClass::Nop, {a}, {2, 4, 16});
  const auto t = b.op(OpClass::Transpose, {r}, {2, 16, 4});
  const auto m = b.op(OpClass::BatchMatmul, {r, t}, {2, 4, 4}); // [2,4,16] x [2,16,4] plain layout
  b.op(OpClass::Softmax, {m}, {2, 4, 4});
  return b.finish();
}

ProfileOptions quick() {
  ProfileOptions o;
  o.min_samples = 3;
  o.max_samples = 20;
  o.op_budget_s = 1e-4;
  o.graph_runs = 3;
  return o;
}

TEST(Profiler, EveryOpExecutedAndChecksummed) {
  const ir::Graph g = tiny_graph();
  const MeasurementFile f = profile_graph(g, quick());
  ASSERT_EQ(f.ops.size(), g.num_compute_ops());
  const GraphExecutor fresh(g, quick().seed); // same seed: same inputs, same outputs
  fresh.run_all();
  for (const Measurement& m : f.ops) {
    EXPECT_GE(m.samples, 3) << m.name;
    EXPECT_GE(m.batch, 1) << m.name;
    EXPECT_LE(m.min_s, m.median_s) << m.name;
    EXPECT_LE(m.median_s, m.p90_s) << m.name;
    EXPECT_LE(m.in_graph_min_s, m.in_graph_median_s) << m.name;
    EXPECT_EQ(m.checksum, fresh.output_checksum(m.op_id)) << m.name;
    if (m.op_class != OpClass::Nop) {
      EXPECT_GT(m.median_s, 0) << m.name;
    }
  }
  // The checksum changes with the data: another seed gives other outputs for the dense op.
  const GraphExecutor other(g, quick().seed + 1);
  other.run_all();
  EXPECT_NE(other.output_checksum(f.ops.front().op_id), f.ops.front().checksum);
  EXPECT_EQ(f.end_to_end_s.size(), 3u);
  EXPECT_GT(f.end_to_end_median_s, 0);
  EXPECT_EQ(f.ops[0].op_class, OpClass::Dense);
  EXPECT_EQ(f.ops[0].input_shapes, "float32[8,32] float32[16,32]");
  EXPECT_DOUBLE_EQ(f.ops[0].features.macs, 8.0 * 16 * 32);
}

TEST(Profiler, MeasurementFileRoundTrip) {
  const MeasurementFile f = profile_graph(tiny_graph(), quick());
  const std::string path = test::temp_dir() + "/m.h5";
  write_measurement_file(path, f);
  const MeasurementFile r = read_measurement_file(path);
  EXPECT_EQ(r.machine.cpu_model, f.machine.cpu_model);
  EXPECT_EQ(r.machine.threads, 1);
  EXPECT_EQ(r.machine.compiler_flags, f.machine.compiler_flags);
  EXPECT_EQ(r.end_to_end_s, f.end_to_end_s);
  EXPECT_EQ(r.end_to_end_median_s, f.end_to_end_median_s);
  ASSERT_EQ(r.ops.size(), f.ops.size());
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    EXPECT_EQ(r.ops[i].name, f.ops[i].name);
    EXPECT_EQ(r.ops[i].op_class, f.ops[i].op_class);
    EXPECT_EQ(r.ops[i].output_shapes, f.ops[i].output_shapes);
    EXPECT_EQ(r.ops[i].features.macs, f.ops[i].features.macs);
    EXPECT_EQ(r.ops[i].features.gemm_k, f.ops[i].features.gemm_k);
    EXPECT_EQ(r.ops[i].median_s, f.ops[i].median_s);
    EXPECT_EQ(r.ops[i].in_graph_median_s, f.ops[i].in_graph_median_s);
    EXPECT_EQ(r.ops[i].in_graph_min_s, f.ops[i].in_graph_min_s);
    EXPECT_EQ(r.ops[i].checksum, f.ops[i].checksum);
  }
  EXPECT_EQ(read_measurements(path).size(), f.ops.size());
}

TEST(Profiler, BadPathsAreInputErrorsAndLeaveNoFile) {
  const MeasurementFile f = profile_graph(tiny_graph(), quick());
  const std::string dir = test::temp_dir();
  EXPECT_THROW(write_measurement_file(dir + "/missing/m.h5", f), InputError);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  EXPECT_THROW(read_measurement_file(dir + "/none.h5"), InputError);
  std::ofstream(dir + "/junk.h5") << "not hdf5";
  EXPECT_THROW(read_measurement_file(dir + "/junk.h5"), InputError);
}

TEST(Profiler, ProfilesTheExampleMlp) {
  const auto imported = ir::import_tvm_graph_file(test::source_path("tests/data/mlp2.json"));
  const MeasurementFile f = profile_graph(imported.graph, quick());
  ASSERT_EQ(f.ops.size(), imported.graph.num_compute_ops());
  int dense = 0;
  for (const Measurement& m : f.ops)
    dense += m.op_class == OpClass::Dense;
  EXPECT_EQ(dense, 2);
}

TEST(ShapeRules, PermutationsAndTheirAmbiguity) {
  EXPECT_EQ(infer_permutation({1, 5, 12, 64}, {1, 12, 5, 64}, "t"), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(infer_permutation({12, 5, 64}, {12, 64, 5}, "t"), (std::vector<int>{0, 2, 1}));
  // GPT-2 at 12 tokens: heads == tokens; never read as the identity.
  EXPECT_EQ(infer_permutation({1, 12, 12, 64}, {1, 12, 12, 64}, "t"), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_THROW(infer_permutation({2, 3}, {3, 3}, "t"), InputError);
  EXPECT_EQ(infer_reduced_axes({1, 5, 768}, {1, 5, 1}, "m"), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(infer_concat_axis({{1, 32, 10, 64}, {1, 32, 10, 64}}, {1, 32, 10, 128}, "c"), 3);
  EXPECT_EQ(infer_take_axis({50257, 768}, {1, 5}, {1, 5, 768}, "k"), 0);
  EXPECT_THROW(infer_take_axis({10, 4}, {3}, {3, 5}, "k"), InputError);
}

TEST(Calibrate, FitsMeasuredTimesThroughTheRetrainFitter) {
  const ir::Hardware base = ir::load_hardware(test::source_path("configs/lightcode-cpu.json"));
  std::vector<Measurement> ms;
  for (int i = 1; i <= 12; ++i) {
    Measurement d; // a memory-bound dense: [i, 768] x [3072, 768]
    d.op_class = OpClass::Dense;
    d.op_id = i;
    d.features.macs = 768.0 * 3072 * i;
    d.features.bytes_in = 4.0 * (768 * i + 3072 * 768);
    d.features.bytes_out = 4.0 * 3072 * i;
    d.features.elements_in = d.features.bytes_in / 4;
    d.features.elements_out = d.features.bytes_out / 4;
    d.features.gemm_batch = 1;
    d.features.gemm_m = i;
    d.features.gemm_n = 3072;
    d.features.gemm_k = 768;
    d.in_graph_min_s = 1e-10 * (d.features.bytes_in + d.features.bytes_out) + 2e-6;
    ms.push_back(d);
  }
  const fit::FitResult r = calibrate_cpu(base, 0, {ms}, MachineInfo{}, FitTarget::InGraphMin);
  EXPECT_EQ(r.hardware.units[0].cores, 1);
  bool dense_fitted = false;
  for (const fit::EntryFit& e : r.entries)
    if (e.op_class == OpClass::Dense) dense_fitted = e.status == fit::EntryStatus::Fitted;
  EXPECT_TRUE(dense_fitted);
  for (const Measurement& m : ms) {
    ir::Op op;
    op.op_class = m.op_class;
    op.features = m.features;
    EXPECT_NEAR(ir::op_cost(r.hardware, 0, op).time_s, m.in_graph_min_s, 0.02 * m.in_graph_min_s) << m.op_id;
  }
  EXPECT_EQ(measurement_samples(base, 0, {ms, ms}, FitTarget::InGraphMin).size(), 24u);
}

// GPU measurements (lightsim-profile --unit gpu) calibrate a GPU unit the same way; a CPU-only call refuses
// it.
TEST(Calibrate, FitsAGpuUnitFromMeasurements) {
  const ir::Hardware base = ir::load_hardware(test::source_path("configs/gpu.json"));
  const int gpu = base.find_unit("gpu0");
  ASSERT_GE(gpu, 0);
  std::vector<Measurement> ms;
  for (int i = 1; i <= 12; ++i) {
    Measurement d; // [16 i, 768] x [3072, 768]
    d.op_class = OpClass::Dense;
    d.op_id = i;
    d.features.macs = 768.0 * 3072 * 16 * i;
    d.features.bytes_in = 4.0 * (768 * 16 * i + 3072 * 768);
    d.features.bytes_out = 4.0 * 3072 * 16 * i;
    d.features.elements_in = d.features.bytes_in / 4;
    d.features.elements_out = d.features.bytes_out / 4;
    d.features.gemm_batch = 1;
    d.features.gemm_m = 16 * i;
    d.features.gemm_n = 3072;
    d.features.gemm_k = 768;
    d.in_graph_min_s = 4e-13 * (d.features.bytes_in + d.features.bytes_out) + 5e-6;
    ms.push_back(d);
  }
  EXPECT_THROW(calibrate_cpu(base, gpu, {ms}, MachineInfo{}, FitTarget::InGraphMin), InputError);
  const fit::FitResult r = calibrate_gpu(base, gpu, {ms}, FitTarget::InGraphMin);
  EXPECT_EQ(r.hardware.units[static_cast<std::size_t>(gpu)].cores,
            base.units[static_cast<std::size_t>(gpu)].cores);
  for (const Measurement& m : ms) {
    ir::Op op;
    op.op_class = m.op_class;
    op.features = m.features;
    EXPECT_NEAR(ir::op_cost(r.hardware, gpu, op).time_s, m.in_graph_min_s, 0.05 * m.in_graph_min_s)
        << m.op_id;
  }
}

} // namespace
} // namespace lightsim::profile
