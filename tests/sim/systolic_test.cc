// The systolic array kind (sim/units/systolic/): SCALE-Sim's fold cycles by hand for every dataflow, the
// double-buffered scratchpads' stalls by hand, the module against its counts, the TPU v1 config from its
// fields, its bad inputs, and ResNet-50 int8 on tpu-v1.json end to end.
#include "ir/cost/cost_model.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "ir/tvm/tvm_import.h"
#include "sim/driver/pipeline.h"
#include "sim/hw/kernel.h"
#include "sim/replay/replay.h"
#include "sim/units/systolic/systolic_kind.h"
#include "sim/units/systolic/systolic_module.h"
#include "sim/units/systolic/systolic_work.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/ir/hardware_fixture.h"
#include "tests/test_support.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim::units {
namespace {

using nlohmann::json;

// An R x C array under `dataflow`, int8 and a half-rate int16, scratchpads of `pad_kib` each, its memory at
// `memory_GBps` (1 GHz: bytes per cycle = GB/s).
ir::Unit array(int rows, int cols, Dataflow dataflow, double memory_GBps = 1e9, double pad_kib = 1024) {
  SystolicParams p;
  p.rows = rows;
  p.cols = cols;
  p.dataflow = dataflow;
  p.macs_per_pe_per_cycle[static_cast<std::size_t>(SystolicPrecision::Int8)] = 1;
  p.macs_per_pe_per_cycle[static_cast<std::size_t>(SystolicPrecision::Int16)] = 0.5;
  p.ifmap_sram = p.filter_sram = p.ofmap_sram = {pad_kib * 1024, 0};
  p.memory_bandwidth_GBps = memory_GBps;
  p.vector_ops_per_cycle = 64;
  ir::Unit u;
  u.name = "sa0";
  u.kind = &systolic_kind();
  u.clock_ghz = 1;
  u.params = ir::KindParams(p);
  return u;
}

struct Shape {
  const char* name;
  std::int64_t m, n, k;
  double ws, os, is; // the closed form by hand: row folds x column folds x (2R + C + T - 2)
};

// SCALE-Sim's mapping (ws: Sr = K, Sc = N, T = M; os: Sr = M, Sc = N, T = K; is: Sr = K, Sc = M, T = N)
// on a 32 x 32 array, its runtime ceil(Sr / 32) x ceil(Sc / 32) x (2 x 32 + 32 + T - 2), written out.
const Shape kShapes[] = {
    {"resnet50 conv1 7x7/2 3->64 112x112", 12544, 64, 147, 5 * 2 * (64 + 32 + 12544 - 2),
     392 * 2 * (64 + 32 + 147 - 2), 5 * 392 * (64 + 32 + 64 - 2)},
    {"resnet50 res2 3x3 64->64 56x56", 3136, 64, 576, 18 * 2 * (64 + 32 + 3136 - 2),
     98 * 2 * (64 + 32 + 576 - 2), 18 * 98 * (64 + 32 + 64 - 2)},
    {"resnet50 res2 1x1 64->256 56x56", 3136, 256, 64, 2 * 8 * (64 + 32 + 3136 - 2),
     98 * 8 * (64 + 32 + 64 - 2), 2 * 98 * (64 + 32 + 256 - 2)},
    {"resnet50 res3 3x3 128->128 28x28", 784, 128, 1152, 36 * 4 * (64 + 32 + 784 - 2),
     25 * 4 * (64 + 32 + 1152 - 2), 36 * 25 * (64 + 32 + 128 - 2)},
    {"resnet50 res4 3x3 256->256 14x14", 196, 256, 2304, 72 * 8 * (64 + 32 + 196 - 2),
     7 * 8 * (64 + 32 + 2304 - 2), 72 * 7 * (64 + 32 + 256 - 2)},
    {"resnet50 res5 3x3 512->512 7x7", 49, 512, 4608, 144 * 16 * (64 + 32 + 49 - 2),
     2 * 16 * (64 + 32 + 4608 - 2), 144 * 2 * (64 + 32 + 512 - 2)},
    {"resnet50 res5 1x1 512->2048 7x7", 49, 2048, 512, 16 * 64 * (64 + 32 + 49 - 2),
     2 * 64 * (64 + 32 + 512 - 2), 16 * 2 * (64 + 32 + 2048 - 2)},
    {"resnet50 fc, M = 1", 1, 1000, 2048, 64 * 32 * (64 + 32 + 1 - 2), 1 * 32 * (64 + 32 + 2048 - 2),
     64 * 1 * (64 + 32 + 1000 - 2)},
    {"bert-base QKV, 128 tokens", 128, 2304, 768, 24 * 72 * (64 + 32 + 128 - 2), 4 * 72 * (64 + 32 + 768 - 2),
     24 * 4 * (64 + 32 + 2304 - 2)},
    {"bert-base scores, one head", 128, 128, 64, 2 * 4 * (64 + 32 + 128 - 2), 4 * 4 * (64 + 32 + 64 - 2),
     2 * 4 * (64 + 32 + 128 - 2)},
    {"bert-base FFN up", 128, 3072, 768, 24 * 96 * (64 + 32 + 128 - 2), 4 * 96 * (64 + 32 + 768 - 2),
     24 * 4 * (64 + 32 + 3072 - 2)},
    {"bert-base FFN down", 128, 768, 3072, 96 * 24 * (64 + 32 + 128 - 2), 4 * 24 * (64 + 32 + 3072 - 2),
     96 * 4 * (64 + 32 + 768 - 2)},
    {"smaller than the array", 16, 8, 32, 1 * 1 * (64 + 32 + 16 - 2), 1 * 1 * (64 + 32 + 32 - 2),
     1 * 1 * (64 + 32 + 8 - 2)},
};

TEST(SystolicFolds, ComputeCyclesAreScaleSimsClosedFormForEveryDataflow) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    for (auto [dataflow, expected] :
         {std::pair(Dataflow::WeightStationary, s.ws), std::pair(Dataflow::OutputStationary, s.os),
          std::pair(Dataflow::InputStationary, s.is)}) {
      const SystolicGemm g = systolic_gemm(array(32, 32, dataflow), s.m, s.n, s.k, 1, 1, 1, 1);
      EXPECT_EQ(g.compute_cycles, expected) << kDataflows.name(dataflow);
      EXPECT_EQ(g.macs, static_cast<double>(s.m * s.n * s.k));
    }
  }
}

// A 16 x 64 array: rows fold Sr, columns fold Sc (never swapped); a batch runs its GEMMs one after another;
// a half-rate precision streams T twice as long.
TEST(SystolicFolds, RowsAndColumnsFoldApartBatchesAddAndHalfRateDoublesTheStream) {
  // ws, 128 tokens x 768 -> 3072: Sr = K = 768 (48 row folds of 16), Sc = N = 3072 (48 of 64), T = 128.
  const SystolicGemm ws =
      systolic_gemm(array(16, 64, Dataflow::WeightStationary), 128, 3072, 768, 1, 1, 1, 1);
  EXPECT_EQ(ws.row_folds, 48);
  EXPECT_EQ(ws.col_folds, 48);
  EXPECT_EQ(ws.compute_cycles, 48 * 48 * (2 * 16 + 64 + 128 - 2));
  EXPECT_EQ(
      systolic_gemm(array(16, 64, Dataflow::WeightStationary), 128, 3072, 768, 12, 1, 1, 1).compute_cycles,
      12 * 48 * 48 * (2 * 16 + 64 + 128 - 2));
  EXPECT_EQ(
      systolic_gemm(array(16, 64, Dataflow::WeightStationary), 128, 3072, 768, 1, 2, 0.5, 2).compute_cycles,
      48 * 48 * (2 * 16 + 64 + 256 - 2));
}

// Bandwidth-limited refills by hand. ws, a 4 x 4 array, M = N = K = 8, int8 operands, int32 results, 1 byte
// per cycle: 2 x 2 folds of 2 x 4 + 4 + 8 - 2 = 18 cycles, in the order (fc, fr) = (0,0) (0,1) (1,0) (1,1).
// Each fold loads its 4 x 4 weight tile (16 B); A (64 B) fits half the ifmap scratchpad, so its 8 x 4 row
// blocks (32 B) come only in the first column fold; the partial sums fit the ofmap scratchpad, so each
// column's 8 x 4 int32 outputs (128 B) leave after its last row fold. Loads 48, 48, 16, 16; stores 0, 128,
// 0, 128. Steps max(18, next load + previous store): max(18, 48) + max(18, 16) + max(18, 16 + 128) +
// max(18, 0) = 48 + 18 + 144 + 18 = 228; with the first fill (48) and the last drain (128): 404 cycles, of
// which 4 x 18 = 72 compute: 332 stall cycles.
TEST(SystolicStalls, WeightStationaryRefillsByHand) {
  const SystolicGemm g = systolic_gemm(array(4, 4, Dataflow::WeightStationary, 1), 8, 8, 8, 1, 1, 1, 4);
  EXPECT_EQ(g.compute_cycles, 72);
  EXPECT_EQ(g.stall_cycles, 332);
  EXPECT_EQ(g.memory_bytes, 48 + 48 + 16 + 16 + 128 + 128);
  // With the memory far faster no fold waits: only the first fill and the last drain remain.
  const SystolicGemm fast = systolic_gemm(array(4, 4, Dataflow::WeightStationary, 1e6), 8, 8, 8, 1, 1, 1, 4);
  EXPECT_NEAR(fast.stall_cycles, (48 + 128) / 1e6, 1e-9);
}

// os, a 4 x 4 array, M = 8, N = 4, K = 8 at 2 bytes per cycle: Sr = M (2 row folds), Sc = N (1 column fold),
// T = K: 2 folds of 18 cycles. A fits, so each fold loads its 4 x 8 row block (32 B, all in the first column
// fold); W's 8 x 4 column block (32 B) fits half the filter scratchpad and stays for the second row fold.
// Loads 64, 32; stores 4 x 4 int32 = 64 each. 64 / 2 + max(18, 32 / 2) + max(18, 64 / 2) + 64 / 2 =
// 32 + 18 + 32 + 32 = 114 cycles, 36 compute: 78 stall cycles.
TEST(SystolicStalls, OutputStationaryRefillsByHand) {
  const SystolicGemm g = systolic_gemm(array(4, 4, Dataflow::OutputStationary, 2), 8, 4, 8, 1, 1, 1, 4);
  EXPECT_EQ(g.compute_cycles, 36);
  EXPECT_EQ(g.stall_cycles, 78);
  // Scratchpads of 32 B (halves of 16) cannot keep W's column block: the second fold loads it again.
  const SystolicGemm small =
      systolic_gemm(array(4, 4, Dataflow::OutputStationary, 2, 32.0 / 1024), 8, 4, 8, 1, 1, 1, 4);
  EXPECT_EQ(small.memory_bytes, g.memory_bytes + 32);
}

// The module times a GEMM as its folds plus stalls (a fused tail on the vector unit when it is longer) plus
// the op overhead, and a non-GEMM op as max(vector unit, memory); the arithmetic model's features count the
// same.
TEST(SystolicModule, OpTimeIsFoldsPlusStallsAndTheFeaturesCountTheSame) {
  sim::fresh_simulation();
  ir::Unit u = array(32, 32, Dataflow::WeightStationary, 16);
  u.as<SystolicParams>().op_overhead_ns = 100;
  const SystolicArray sa("sa", u);
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.features.gemm_batch = 1;
  op.features.gemm_m = 128;
  op.features.gemm_n = 768;
  op.features.gemm_k = 768;
  op.features.gemm_dtype = ir::DType::Int8;
  op.features.macs = 128.0 * 768 * 768;
  op.features.elements_out = 128.0 * 768;
  op.features.bytes_out = 128.0 * 768;
  sim::OpWork work{.op = 0, .lane = 0, .desc = &op};
  const SystolicGemm g = systolic_gemm(u, op.features);
  EXPECT_DOUBLE_EQ(sa.op_ns(work), 100 + g.compute_cycles + g.stall_cycles);
  const ir::FeatureValues x = ir::feature_values(op.features, u);
  EXPECT_EQ(x[static_cast<std::size_t>(ir::Feature::ComputeCycles)], g.compute_cycles);
  EXPECT_EQ(x[static_cast<std::size_t>(systolic_features().fill_stall_cycles)], g.stall_cycles);
  EXPECT_EQ(x[static_cast<std::size_t>(systolic_features().fold_memory_bytes)], g.memory_bytes);
  // No MACs for fp32: the kind refuses the op (no node on this unit), the vector unit still runs element ops.
  op.features.gemm_dtype = ir::DType::Float32;
  EXPECT_FALSE(u.kind->supports(u, op.features));
  ir::Op relu;
  relu.op_class = ir::OpClass::Relu;
  relu.features.elements_in = relu.features.elements_out = relu.features.elements_read = 6400;
  relu.features.bytes_read = relu.features.bytes_out = 6400;
  EXPECT_TRUE(u.kind->supports(u, relu.features));
  sim::OpWork relu_work{.op = 1, .lane = 0, .desc = &relu, .home_bytes = 12800};
  EXPECT_DOUBLE_EQ(sa.op_ns(relu_work), 100 + std::max(6400.0 / 64, 12800.0 / 16));
}

json tpu_v1() {
  std::ifstream in(test::source_path("configs/tpu-v1.json"));
  return json::parse(in);
}

TEST(SystolicConfig, TpuV1PeakOf92TopsFollowsFromItsFields) {
  const ir::Hardware hw = ir::hardware_from_json(tpu_v1(), "tpu-v1.json");
  const ir::Unit& tpu = hw.units.at(static_cast<std::size_t>(hw.find_unit("tpu0")));
  const SystolicParams& p = tpu.as<SystolicParams>();
  const double ops_per_s = 2.0 * p.rows * p.cols *
                           p.macs_per_pe_per_cycle[static_cast<std::size_t>(SystolicPrecision::Int8)] *
                           tpu.clock_ghz * 1e9;
  EXPECT_NEAR(ops_per_s, 92e12, 0.005 * 92e12);           // 91.75 TOPS: the paper's "92 TOPS"
  EXPECT_EQ(p.ifmap_sram.size_bytes, 24.0 * 1024 * 1024); // unified buffer
  EXPECT_EQ(p.ofmap_sram.size_bytes, 4.0 * 1024 * 1024);  // accumulators
  EXPECT_EQ(hw.memories[static_cast<std::size_t>(tpu.memory)].bandwidth_GBps, 34); // DDR3 weight memory
}

// Bad systolic fields: one line naming the unit, the field and the value.
TEST(SystolicConfig, BadFieldsAreOneLineNamingUnitFieldAndValue) {
  const auto bad = [](const std::string& field, const json& value, const std::string& path,
                      const std::string& what) {
    json c = tpu_v1();
    json* u = &c["units"][1];
    json::json_pointer p(field);
    (*u)[p] = value;
    test::expect_config_error(c, "units[1]." + path, what);
  };
  // test::expect_config_error's file is "bad.json"; the messages end with the unit.
  bad("/rows", 0, "rows", "must be positive, got 0 (unit 'tpu0')");
  bad("/dataflow", "xs", "dataflow", "unknown dataflow 'xs' (expected ws, os or is) (unit 'tpu0')");
  bad("/filter_sram/size_KiB", 64, "filter_sram.size_KiB",
      "holds no fold's tile: both halves must hold rows x cols x 1 B (256 x 256), 128 KiB in all, got 64 "
      "(unit 'tpu0')");
  bad("/macs_per_pe_per_cycle/int4", 1, "macs_per_pe_per_cycle.int4",
      "unknown precision 'int4' (expected int8, int16, float16, bfloat16 or float32) (unit 'tpu0')");
  bad("/macs_per_pe_per_cycle/int8", 0, "macs_per_pe_per_cycle.int8",
      "must be positive, got 0 (unit 'tpu0')");
}

// ResNet-50 in int8 at batch 8 runs on the TPU v1 (every convolution on the array), the replay agrees with
// the plan; in fp32 the array has no MACs and every GEMM stays on the host.
TEST(SystolicPipeline, Resnet50Int8RunsOnTpuV1AndFp32StaysOnTheHost) {
  for (const ir::DType dtype : {ir::DType::Int8, ir::DType::Float32}) {
    ir::graphgen::GraphRequest r = test::request("resnet50", ir::graphgen::Phase::Prefill, 0, 8);
    r.dtype = dtype;
    const std::string path = test::temp_dir() + "/resnet50.json";
    std::ofstream(path) << test::generate_json_text(r);
    PipelineOptions o;
    o.hardware_path = test::source_path("configs/tpu-v1.json");
    o.graph_path = path;
    const Pipeline run(o);
    const int tpu = run.hardware().find_unit("tpu0");
    std::size_t convs = 0, on_tpu = 0;
    for (std::size_t op = 0; op < run.graph().ops.size(); ++op) {
      if (run.graph().ops[op].op_class != ir::OpClass::Conv2d) continue;
      ++convs;
      on_tpu += run.flat().unit_of(static_cast<ir::OpId>(op)) == tpu;
    }
    EXPECT_EQ(convs, 53u);
    EXPECT_EQ(on_tpu, dtype == ir::DType::Int8 ? convs : 0u);
    const sched::Schedule s = sim::replay(run.flat(), run.transfers(), {.predicted = &run.schedule()});
    // fp32 runs on the host alone, whose shared memory port the list scheduler and the replay share alike
    // but not identically (Configs.AgreeWithModules' bound is 2%).
    EXPECT_NEAR(s.makespan_s, run.schedule().makespan_s, 1e-2 * run.schedule().makespan_s);
  }
}

} // namespace
} // namespace lightsim::units
