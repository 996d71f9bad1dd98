// Convolutions on every unit (issue 15): the implicit-GEMM view (batch = groups, M, N, K, MACs) and the
// im2col patch bytes against hand counts for strided, padded, dilated, grouped and depthwise convolutions
// in NCHW, NHWC and NCHWc (and conv1d / conv3d / conv_transpose); which units materialise the patches;
// depthwise convolutions on the photonic array (a K = 9 row, 1 column weight tile per group) and the GPU
// (its GEMM kernels' CTA tiles). The errors for contradictory shapes: op_shape_errors_test.cc.
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "ir/tvm/tvm_import.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"
#include "tests/ir/tvm_snippet.h"
#include "tests/test_support.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::ir {
namespace {

using test::TvmSnippet;
using Shape = std::vector<std::int64_t>;

struct ConvCase {
  std::string what, func;
  Shape data, weight, out;
  nlohmann::json attrs;
  std::int64_t batch, m, n, k; // hand counts
  double im2col_extra_bytes;
};

Graph conv_graph(const std::string& func, const Shape& data, const Shape& weight, const Shape& out,
                 const nlohmann::json& attrs = nlohmann::json::object()) {
  TvmSnippet s;
  const int x = s.input("x", data);
  const int w = s.input("p0", weight);
  s.op("conv", func, {{x, 0}, {w, 0}}, {{out}}, attrs);
  return import_tvm_graph(s.to_json(), "conv.json").graph;
}

const std::vector<ConvCase>& cases() {
  using nlohmann::json;
  const std::string conv = "tvmgen_default_fused_nn_conv2d";
  const std::string nchwc = "tvmgen_default_fused_nn_contrib_conv2d_NCHWc";
  const std::string depthwise_nchwc = "tvmgen_default_fused_nn_contrib_depthwise_conv2d_NCHWc";
  static const std::vector<ConvCase> c{
      // ResNet's stem: 7x7 stride 2 pad 3 on 224x224, batch 2. M = 2 x 112 x 112, K = 3 x 49; the patch
      // matrix holds 25088 x 147 elements against the data's 2 x 3 x 224 x 224.
      {"NCHW strided",
       conv,
       {2, 3, 224, 224},
       {64, 3, 7, 7},
       {2, 64, 112, 112},
       json{{"strides", "[2, 2]"}, {"padding", "[3, 3, 3, 3]"}, {"kernel_size", "[7, 7]"}, {"channels", 64}},
       1,
       25088,
       64,
       147,
       (25088.0 * 147 - 301056) * 4},
      {"NCHW padded 3x3",
       conv,
       {1, 64, 56, 56},
       {64, 64, 3, 3},
       {1, 64, 56, 56},
       json{{"padding", "[1, 1]"}},
       1,
       3136,
       64,
       576,
       (3136.0 * 576 - 200704) * 4},
      // Dilation 2, pad 2: a 5-pixel extent, 32 -> 32.
      {"NCHW dilated",
       conv,
       {1, 16, 32, 32},
       {32, 16, 3, 3},
       {1, 32, 32, 32},
       json{{"dilation", "[2, 2]"}, {"padding", "[2, 2]"}},
       1,
       1024,
       32,
       144,
       (1024.0 * 144 - 16384) * 4},
      {"NCHW grouped (4)",
       conv,
       {1, 64, 28, 28},
       {128, 16, 3, 3},
       {1, 128, 28, 28},
       json{{"groups", 4}, {"padding", "[1, 1]"}},
       4,
       784,
       32,
       144,
       (4 * 784.0 * 144 - 50176) * 4},
      {"NCHW depthwise",
       conv,
       {1, 32, 112, 112},
       {32, 1, 3, 3},
       {1, 32, 112, 112},
       json{{"groups", 32}, {"padding", "[1, 1]"}},
       32,
       12544,
       1,
       9,
       (32 * 12544.0 * 9 - 401408) * 4},
      {"NCHW 1x1 stride 2 (no expansion)",
       conv,
       {1, 256, 56, 56},
       {512, 256, 1, 1},
       {1, 512, 28, 28},
       json{{"strides", "[2, 2]"}},
       1,
       784,
       512,
       256,
       0},
      {"NHWC strided",
       conv,
       {2, 224, 224, 3},
       {7, 7, 3, 64},
       {2, 112, 112, 64},
       json{{"strides", "[2, 2]"}, {"padding", "[3, 3]"}, {"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}},
       1,
       25088,
       64,
       147,
       (25088.0 * 147 - 301056) * 4},
      {"NHWC grouped (4)",
       conv,
       {1, 28, 28, 64},
       {3, 3, 16, 128},
       {1, 28, 28, 128},
       json::object(),
       4,
       784,
       32,
       144,
       (4 * 784.0 * 144 - 50176) * 4},
      {"NHWC depthwise (HWOI)",
       conv,
       {1, 112, 112, 32},
       {3, 3, 32, 1},
       {1, 112, 112, 32},
       json::object(),
       32,
       12544,
       1,
       9,
       (32 * 12544.0 * 9 - 401408) * 4},
      {"NHWC dilated",
       conv,
       {1, 32, 32, 16},
       {3, 3, 16, 32},
       {1, 32, 32, 32},
       json{{"dilation", 2}, {"padding", 2}, {"data_layout", "NHWC"}},
       1,
       1024,
       32,
       144,
       (1024.0 * 144 - 16384) * 4},
      {"NCHW16c padded",
       nchwc,
       {1, 4, 56, 56, 16},
       {4, 4, 3, 3, 16, 16},
       {1, 4, 56, 56, 16},
       json{{"padding", "[1, 1, 1, 1]"}, {"data_layout", "NCHW16c"}, {"kernel_layout", "OIHW16i16o"}},
       1,
       3136,
       64,
       576,
       (3136.0 * 576 - 200704) * 4},
      {"NCHW16c depthwise",
       depthwise_nchwc,
       {1, 2, 112, 112, 16},
       {2, 1, 3, 3, 1, 16},
       {1, 2, 112, 112, 16},
       json::object(),
       32,
       12544,
       1,
       9,
       (32 * 12544.0 * 9 - 401408) * 4},
      // Grouped and strided: 64 channels in 4 groups of 16, 3x3 stride 2 pad 1, 28 -> 14.
      {"NCHW8c grouped strided",
       nchwc,
       {1, 8, 28, 28, 8},
       {16, 2, 3, 3, 8, 8},
       {1, 16, 14, 14, 8},
       json{{"strides", "[2, 2]"}, {"padding", "[1, 1]"}, {"groups", 4}},
       4,
       196,
       32,
       144,
       (4 * 196.0 * 144 - 50176) * 4},
      {"NCW conv1d strided",
       "tvmgen_default_fused_nn_conv1d",
       {1, 8, 100},
       {16, 8, 5},
       {1, 16, 48},
       json{{"strides", "[2]"}},
       1,
       48,
       16,
       40,
       (48.0 * 40 - 800) * 4},
      {"NCDHW conv3d padded",
       "tvmgen_default_fused_nn_conv3d",
       {1, 3, 8, 16, 16},
       {8, 3, 3, 3, 3},
       {1, 8, 8, 16, 16},
       json{{"padding", "[1, 1, 1]"}},
       1,
       2048,
       8,
       81,
       (2048.0 * 81 - 6144) * 4},
      // Transposed: M = input pixels, N = out channels x kernel pixels, K = in channels (per group).
      {"NCHW conv2d_transpose",
       "tvmgen_default_fused_nn_conv2d_transpose",
       {1, 8, 4, 4},
       {8, 3, 3, 3},
       {1, 3, 9, 9},
       json{{"strides", "[2, 2]"}},
       1,
       16,
       27,
       8,
       0},
      {"NCHW conv2d_transpose grouped",
       "tvmgen_default_fused_nn_conv2d_transpose",
       {1, 8, 4, 4},
       {8, 2, 2, 2},
       {1, 8, 8, 8},
       json{{"strides", "[2, 2]"}},
       4,
       16,
       8,
       2,
       0},
  };
  return c;
}

TEST(ConvView, ImplicitGemmMatchesHandCounts) {
  for (const ConvCase& c : cases()) {
    SCOPED_TRACE(c.what);
    const Graph g = conv_graph(c.func, c.data, c.weight, c.out, c.attrs);
    const OpFeatures& f = g.ops.back().features;
    EXPECT_EQ(f.gemm_batch, c.batch);
    EXPECT_EQ(f.gemm_m, c.m);
    EXPECT_EQ(f.gemm_n, c.n);
    EXPECT_EQ(f.gemm_k, c.k);
    EXPECT_DOUBLE_EQ(f.macs, static_cast<double>(c.batch * c.m * c.n * c.k));
    EXPECT_DOUBLE_EQ(f.im2col_extra_bytes, c.im2col_extra_bytes);
  }
}

// The same layouts without any attributes (TVM's own JSON keeps none): told apart by the shapes alone.
TEST(ConvView, ShapesAloneGiveTheSameView) {
  for (const ConvCase& c : cases()) {
    SCOPED_TRACE(c.what);
    const Graph g = conv_graph(c.func, c.data, c.weight, c.out);
    const OpFeatures& f = g.ops.back().features;
    EXPECT_EQ(f.gemm_batch, c.batch);
    EXPECT_EQ(f.gemm_m, c.m);
    EXPECT_EQ(f.gemm_n, c.n);
    EXPECT_EQ(f.gemm_k, c.k);
  }
}

const Hardware& photonic() {
  static const Hardware hw = load_hardware(test::source_path("configs/photonic.json"));
  return hw;
}

// The hand counts below are written for a static-weight array of 64 x 64 cells, 16 wavelengths at 10 GHz, one
// DAC per row and wavelength and one ADC per column and wavelength at 10 GS/s, a 10 ns tile reload and two
// weight buffers, with no buffer levels (photonic.json's card before it took DOTA-B's core): photonic.json
// with that card.
const Hardware& static_card() {
  static const Hardware hw = [] {
    const std::string path = test::source_path("configs/photonic.json");
    nlohmann::json config = nlohmann::json::parse(std::ifstream(path));
    for (nlohmann::json& u : config["units"]) {
      if (u["name"] != "phu0") continue;
      u.erase("buffers");
      u.update({{"rows", 64},
                {"cols", 64},
                {"tiles", 1},
                {"cores_per_tile", 1},
                {"wdm_channels", 16},
                {"clock_ghz", 10.0},
                {"operand_encoding", "static"},
                {"accumulation_cycles", 1},
                {"weight_reload_ns", 10.0},
                {"weight_buffers", 2}});
      for (const char* c : {"dac", "adc"})
        u[c].update({{"count", 1024}, {"bit_clock_ghz", 90.0}});
    }
    return hardware_from_json(config, path);
  }();
  return hw;
}

const Unit& unit_of_kind(const UnitKind* kind, const Hardware& hw = static_card()) {
  for (const Unit& u : hw.units)
    if (u.kind == kind) return u;
  throw std::runtime_error("no unit of that kind");
}

// Only the photonic array builds the patch matrix (it streams each patch through its DACs); the CPU
// (TVM's direct NCHWc convolution) and the GPU (implicit GEMM) read the data once.
TEST(ConvView, OnlyThePhotonicArrayMaterialisesIm2col) {
  const Graph g =
      conv_graph("tvmgen_default_fused_nn_conv2d", {1, 64, 56, 56}, {64, 64, 3, 3}, {1, 64, 56, 56});
  const OpFeatures& f = g.ops.back().features;
  const double extra = (3136.0 * 576 - 200704) * 4;
  EXPECT_DOUBLE_EQ(
      unit_of_kind(&units::phu_kind()).kind->materialised_bytes(unit_of_kind(&units::phu_kind()), f), extra);
  EXPECT_DOUBLE_EQ(
      unit_of_kind(&units::cpu_kind()).kind->materialised_bytes(unit_of_kind(&units::cpu_kind()), f), 0);
  EXPECT_DOUBLE_EQ(
      unit_of_kind(&units::gpu_kind()).kind->materialised_bytes(unit_of_kind(&units::gpu_kind()), f), 0);
  const double operands = f.bytes_read + f.bytes_out;
  EXPECT_DOUBLE_EQ(feature_value(Feature::OperandBytes, f, unit_of_kind(&units::phu_kind())),
                   operands + extra);
  EXPECT_DOUBLE_EQ(feature_value(Feature::OperandBytes, f, unit_of_kind(&units::gpu_kind())), operands);
  // The DACs take M x K samples per column of weight tiles: here K = 576 rows in 9 tiles of 64, N = 64
  // columns in one tile, so 3136 x 576 samples: the patch matrix, not the 200704-element data tensor.
  const PhuGemmWork w = phu_gemm_work(unit_of_kind(&units::phu_kind()), f);
  EXPECT_EQ(w.weight_tiles, 9);
  EXPECT_DOUBLE_EQ(w.dac_samples, 3136.0 * 576);
  EXPECT_DOUBLE_EQ(w.adc_samples, 3136.0 * 64 * 9);
}

// A depthwise 3x3 conv on the 64 x 64 array: one weight tile per channel using 9 of 64 rows and 1 of 64
// columns, so 32 reloads and 32 streams of all 12544 pixels for only 3.6 M MACs.
TEST(ConvView, DepthwiseUsesAKernelSizedTileOnThePhotonicArray) {
  const Graph g =
      conv_graph("tvmgen_default_fused_nn_conv2d", {1, 32, 112, 112}, {32, 1, 3, 3}, {1, 32, 112, 112});
  const OpFeatures& f = g.ops.back().features;
  const Unit& phu = unit_of_kind(&units::phu_kind());
  const PhuGemmWork w = phu_gemm_work(phu, f);
  EXPECT_EQ(w.weight_tiles, 32);
  EXPECT_DOUBLE_EQ(w.dac_samples, 32 * 12544.0 * 9);
  EXPECT_DOUBLE_EQ(w.adc_samples, 32 * 12544.0);
  // Per tile: 10 ns reload, then the optics' ceil(12544 / 16 WDM) = 784 cycles at 10 GHz (the DACs need
  // ceil(12544 x 9 / 1024) = 111 samples at 10 GS/s, the ADCs 13: the optics are slowest). photonic.json
  // double-buffers the weights (latency hiding on): only the first reload is exposed, the others are
  // programmed while the previous tile streams.
  ASSERT_EQ(phu_weight_buffers_in_use(phu), 2);
  EXPECT_DOUBLE_EQ(w.busy_ns, 10.0 + 32 * 78.4);
  // Utilisation of the array's peak (rows x cols x WDM MACs per cycle): 9 x 1 of 64 x 64 cells.
  const double peak = 64.0 * 64 * 16 * 10; // MACs per ns
  EXPECT_NEAR(f.macs / (w.busy_ns * peak), 9.0 / 4096 * (32 * 78.4) / (10.0 + 32 * 78.4), 1e-12);
  // The shipped card's arithmetic model (conv2d entry, fitted on these counts to the module: configs/fitted)
  // against the module's time, max(busy_ns, SRAM latency + operand bytes / SRAM bandwidth): memory-bound here
  // (the 16 MB patch matrix, re-read for each column block of its array).
  const Unit& shipped = unit_of_kind(&units::phu_kind(), photonic());
  const Cost c = op_cost(photonic(), photonic().find_unit("phu0"), g.ops.back());
  const Memory& sram = photonic().memories[static_cast<std::size_t>(shipped.memory)];
  const double module_ns =
      std::max(phu_gemm_work(shipped, f).busy_ns,
               sram.latency_ns + feature_value(Feature::OperandBytes, f, shipped) / sram.bandwidth_GBps);
  EXPECT_NEAR(c.time_s, module_ns * 1e-9, 0.03 * module_ns * 1e-9);
  // A dense conv with the same MACs keeps the array busy: far less time.
  const Graph dense_conv =
      conv_graph("tvmgen_default_fused_nn_conv2d", {1, 64, 28, 28}, {64, 64, 1, 1}, {1, 64, 28, 28});
  ASSERT_DOUBLE_EQ(dense_conv.ops.back().features.macs, 784.0 * 64 * 64);
  EXPECT_LT(phu_gemm_work(phu, dense_conv.ops.back().features).busy_ns * 5, w.busy_ns);
}

// The GPU's GEMM kernels (CTA tiles of 64-256 rows x 64-256 columns, ir/cost/gpu_kernel.h) fit a depthwise
// conv badly: one output column per group of 32, k = 9. Whatever tile the kernel selection picks, every group
// is its own tile of which one column is used, so the GPU is far from its peak.
TEST(ConvView, DepthwiseOnTheGpuUsesOneColumnPerTile) {
  const Graph g =
      conv_graph("tvmgen_default_fused_nn_conv2d", {1, 32, 112, 112}, {32, 1, 3, 3}, {1, 32, 112, 112});
  const Unit& gpu = unit_of_kind(&units::gpu_kind());
  const GpuGemmKernel k = gpu_gemm_kernel(gpu, gpu_gemm_shape(g.ops.back().features));
  const GpuCtaTile& tile = gpu.as<units::GpuParams>().cta_tiles[k.tile];
  EXPECT_EQ(k.tiles, 32 * ((12544 + tile.m - 1) / tile.m)); // groups x row tiles x 1 column tile
  // The same MACs as a dense 1x1 conv take several times longer.
  const Graph dense_conv =
      conv_graph("tvmgen_default_fused_nn_conv2d", {1, 64, 28, 28}, {64, 64, 1, 1}, {1, 64, 28, 28});
  const GpuGemmKernel d = gpu_gemm_kernel(gpu, gpu_gemm_shape(dense_conv.ops.back().features));
  const double depthwise_ns_per_mac = k.kernel_ns / g.ops.back().features.macs;
  const double dense_ns_per_mac = d.kernel_ns / dense_conv.ops.back().features.macs;
  EXPECT_GT(depthwise_ns_per_mac, 2 * dense_ns_per_mac);
}

// A fused node may list a scale before the weight: the data and weight are found among the inputs.
TEST(ConvView, FusedNodeFindsItsWeightAmongTheInputs) {
  TvmSnippet s;
  const int x = s.input("x", {1, 16, 8, 8});
  const int scale = s.input("p0", {});
  const int w = s.input("p1", {32, 16, 3, 3});
  s.op("conv", "tvmgen_default_fused_multiply_nn_conv2d", {{x, 0}, {scale, 0}, {w, 0}}, {{{1, 32, 6, 6}}});
  const ImportResult imported = import_tvm_graph(s.to_json(), "f.json");
  const OpFeatures& f = imported.graph.ops.back().features;
  EXPECT_EQ(f.gemm_m, 36);
  EXPECT_EQ(f.gemm_n, 32);
  EXPECT_EQ(f.gemm_k, 144);
}

} // namespace
} // namespace lightsim::ir
