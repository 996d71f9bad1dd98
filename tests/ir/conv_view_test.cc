// Convolutions on every unit (issue 15): the implicit-GEMM view (batch = groups, M, N, K, MACs) and the
// im2col patch bytes against hand counts for strided, padded, dilated, grouped and depthwise convolutions
// in NCHW, NHWC and NCHWc (and conv1d / conv3d / conv_transpose); which units materialise the patches;
// depthwise convolutions on the photonic array (a K = 9 row, 1 column weight tile per group) and the GPU
// (tile quantisation); and the one-line errors for convolutions, pools and dense_pack weights whose
// attributes or shapes contradict each other.
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "ir/tvm/tvm_import.h"
#include "tests/ir/tvm_snippet.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>

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

// The stride an attribute list gives every spatial dim (one value, or equal values).
std::int64_t per_dim_view(const std::vector<std::int64_t>& v) {
  return v.empty() ? 0 : v.front();
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

const Unit& unit_of_kind(UnitKind kind) {
  for (const Unit& u : photonic().units)
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
  EXPECT_DOUBLE_EQ(materialised_bytes(unit_of_kind(UnitKind::Phu), f), extra);
  EXPECT_DOUBLE_EQ(materialised_bytes(unit_of_kind(UnitKind::Cpu), f), 0);
  EXPECT_DOUBLE_EQ(materialised_bytes(unit_of_kind(UnitKind::Gpu), f), 0);
  const double operands = f.bytes_read + f.bytes_out;
  EXPECT_DOUBLE_EQ(feature_value(Feature::OperandBytes, f, unit_of_kind(UnitKind::Phu)), operands + extra);
  EXPECT_DOUBLE_EQ(feature_value(Feature::OperandBytes, f, unit_of_kind(UnitKind::Gpu)), operands);
  // The DACs take M x K samples per column of weight tiles: here K = 576 rows in 9 tiles of 64, N = 64
  // columns in one tile, so 3136 x 576 samples: the patch matrix, not the 200704-element data tensor.
  const PhuGemmWork w = phu_gemm_work(unit_of_kind(UnitKind::Phu), f);
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
  const Unit& phu = unit_of_kind(UnitKind::Phu);
  const PhuGemmWork w = phu_gemm_work(phu, f);
  EXPECT_EQ(w.weight_tiles, 32);
  EXPECT_DOUBLE_EQ(w.dac_samples, 32 * 12544.0 * 9);
  EXPECT_DOUBLE_EQ(w.adc_samples, 32 * 12544.0);
  // Per tile: 10 ns reload, then the optics' ceil(12544 / 16 WDM) = 784 cycles at 10 GHz (the DACs need
  // ceil(12544 x 9 / 1024) = 111 samples at 10 GS/s, the ADCs 13: the optics are slowest).
  EXPECT_DOUBLE_EQ(w.busy_ns, 32 * (10.0 + 78.4));
  // Utilisation of the array's peak (rows x cols x WDM MACs per cycle): 9 x 1 of 64 x 64 cells.
  const double peak = 64.0 * 64 * 16 * 10; // MACs per ns
  EXPECT_NEAR(f.macs / (w.busy_ns * peak), 9.0 / 4096 * 78.4 / 88.4, 1e-12);
  // The arithmetic model's conv2d entry on the PHU is these counts (time = busy_ns + operand bytes / SRAM).
  const Cost c = op_cost(photonic(), photonic().find_unit("phu0"), g.ops.back());
  const double sram_GBps = photonic().memories[static_cast<std::size_t>(phu.memory)].bandwidth_GBps;
  EXPECT_NEAR(c.time_s, (w.busy_ns + feature_value(Feature::OperandBytes, f, phu) / sram_GBps) * 1e-9, 1e-15);
  // A dense conv with the same MACs keeps the array busy: far less time.
  const Graph dense_conv =
      conv_graph("tvmgen_default_fused_nn_conv2d", {1, 64, 28, 28}, {64, 64, 1, 1}, {1, 64, 28, 28});
  ASSERT_DOUBLE_EQ(dense_conv.ops.back().features.macs, 784.0 * 64 * 64);
  EXPECT_LT(phu_gemm_work(phu, dense_conv.ops.back().features).busy_ns * 5, w.busy_ns);
}

// The GPU's tensor-core tiles (m16n8k8) fit a depthwise conv badly: n = 1 of 8 columns, k = 9 of 16.
TEST(ConvView, DepthwiseOnTheGpuCountsWholeTiles) {
  const Graph g =
      conv_graph("tvmgen_default_fused_nn_conv2d", {1, 32, 112, 112}, {32, 1, 3, 3}, {1, 32, 112, 112});
  const GpuGemmWork w = gpu_gemm_work(unit_of_kind(UnitKind::Gpu).gpu, g.ops.back().features);
  EXPECT_EQ(w.tiles, 32 * 784);               // groups x ceil(12544 / 16) x ceil(1 / 8)
  EXPECT_EQ(w.waves, (32 * 784 + 527) / 528); // 132 SMs x 4 tensor cores
  EXPECT_EQ(w.k_passes, 2);                   // ceil(9 / 8)
  EXPECT_DOUBLE_EQ(feature_value(Feature::TilePassWaves, g.ops.back().features, unit_of_kind(UnitKind::Gpu)),
                   static_cast<double>(w.waves * 2));
}

// ---- bad input: one line naming the node and the mismatch ---------------------------------------------

std::string conv_error(const Shape& data, const Shape& weight, const Shape& out,
                       const nlohmann::json& attrs = nlohmann::json::object()) {
  try {
    conv_graph("tvmgen_default_fused_nn_conv2d", data, weight, out, attrs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ConvErrors, ChannelsContradictTheWeights) {
  EXPECT_EQ(
      conv_error({1, 64, 56, 56}, {128, 48, 3, 3}, {1, 128, 56, 56}),
      "conv.json: nodes[2] 'conv': conv2d: input channels 64 are not a multiple of the weight's 48 input "
      "channels per group (NCHW/OIHW) (inputs [1, 64, 56, 56] [128, 48, 3, 3], output [1, 128, 56, 56])");
  EXPECT_EQ(
      conv_error({1, 64, 56, 56}, {128, 64, 3, 3}, {1, 128, 56, 56}, {{"channels", 96}}),
      "conv.json: nodes[2] 'conv': conv2d: attrs.channels is 96 but the output has 128 channels (inputs "
      "[1, 64, 56, 56] [128, 64, 3, 3], output [1, 128, 56, 56])");
}

TEST(ConvErrors, GroupsNotDividingChannels) {
  EXPECT_EQ(
      conv_error({1, 64, 28, 28}, {128, 16, 3, 3}, {1, 128, 28, 28}, {{"groups", 3}}),
      "conv.json: nodes[2] 'conv': conv2d: attrs.groups 3 does not divide the input channels 64 (inputs "
      "[1, 64, 28, 28] [128, 16, 3, 3], output [1, 128, 28, 28])");
  // 96 output channels cannot be split into the 64 groups that 64 inputs / 1 input per group make.
  EXPECT_EQ(
      conv_error({1, 64, 28, 28}, {96, 1, 3, 3}, {1, 96, 28, 28}),
      "conv.json: nodes[2] 'conv': conv2d: channels in 64 / out 96 do not split into 64 groups (NCHW/OIHW) "
      "(inputs [1, 64, 28, 28] [96, 1, 3, 3], output [1, 96, 28, 28])");
}

TEST(ConvErrors, KernelContradictsTheWeights) {
  EXPECT_EQ(
      conv_error({1, 3, 32, 32}, {8, 3, 3, 3}, {1, 8, 30, 30}, {{"kernel_size", "[5, 5]"}}),
      "conv.json: nodes[2] 'conv': conv2d: attrs.kernel_size [5, 5] differs from the weight's kernel 3 in "
      "spatial dim 0 (NCHW/OIHW) (inputs [1, 3, 32, 32] [8, 3, 3, 3], output [1, 8, 30, 30])");
  // A 7x7 kernel on a 5x5 input with padding 0 cannot slide at all.
  EXPECT_EQ(
      conv_error({1, 3, 5, 5}, {8, 3, 7, 7}, {1, 8, 1, 1}, {{"padding", "[0, 0]"}}),
      "conv.json: nodes[2] 'conv': conv2d: kernel extent 7 exceeds the padded input 5 (spatial dim 0: 5 + "
      "padding 0) (inputs [1, 3, 5, 5] [8, 3, 7, 7], output [1, 8, 1, 1])");
}

TEST(ConvErrors, StrideContradictsTheOutput) {
  EXPECT_EQ(
      conv_error({1, 3, 224, 224}, {64, 3, 7, 7}, {1, 64, 224, 224}, {{"strides", "[2, 2]"}, {"padding", 3}}),
      "conv.json: nodes[2] 'conv': conv2d: output spatial dim 0 is 224, but a kernel of 7 with stride 2, "
      "padding 6 and dilation 1 over 224 gives 112 (inputs [1, 3, 224, 224] [64, 3, 7, 7], output [1, 64, "
      "224, 224])");
}

// Attribute values as TVM's Array, a Python tuple, a bare integer or a JSON array all read the same.
TEST(ConvView, AttributeSpellings) {
  for (const nlohmann::json& strides :
       {nlohmann::json("[2, 2]"), nlohmann::json("(2, 2)"), nlohmann::json("2"), nlohmann::json("(2,)"),
        nlohmann::json({2, 2}), nlohmann::json(2)}) {
    SCOPED_TRACE(strides.dump());
    const Graph g =
        conv_graph("tvmgen_default_fused_nn_conv2d", {1, 3, 32, 32}, {8, 3, 3, 3}, {1, 8, 16, 16},
                   {{"strides", strides}, {"padding", "1"}, {"groups", "1"}, {"ceil_mode", "False"}});
    ASSERT_TRUE(g.ops.back().attrs);
    EXPECT_EQ(per_dim_view(g.ops.back().attrs->strides), 2);
    EXPECT_EQ(g.ops.back().features.gemm_m, 256);
  }
}

TEST(ConvErrors, TransposedStrideContradictsTheOutput) {
  // (4 - 1) x 2 + 3 = 9, not 8.
  try {
    conv_graph("tvmgen_default_fused_nn_conv2d_transpose", {1, 8, 4, 4}, {8, 3, 3, 3}, {1, 3, 8, 8},
               {{"strides", "[2, 2]"}});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "conv.json: nodes[2] 'conv': conv2d_transpose: output spatial dim 0 is 8, but a transposed kernel of "
        "3 "
        "with stride 2, padding 0 and output padding 0 over 4 gives 9 (inputs [1, 8, 4, 4] [8, 3, 3, 3], "
        "output [1, 3, 8, 8])");
  }
  // 9 x 9 is right, and 10 x 10 with an output padding of 1.
  EXPECT_NO_THROW(conv_graph("tvmgen_default_fused_nn_conv2d_transpose", {1, 8, 4, 4}, {8, 3, 3, 3},
                             {1, 3, 9, 9}, {{"strides", "[2, 2]"}}));
  EXPECT_NO_THROW(conv_graph("tvmgen_default_fused_nn_conv2d_transpose", {1, 8, 4, 4}, {8, 3, 3, 3},
                             {1, 3, 10, 10}, {{"strides", "[2, 2]"}, {"output_padding", "[1, 1]"}}));
}

TEST(ConvErrors, AttributeValuesThatAreNotIntegers) {
  EXPECT_EQ(conv_error({1, 3, 8, 8}, {8, 3, 3, 3}, {1, 8, 6, 6}, {{"strides", "two"}}),
            "conv.json: nodes[2] 'conv': attrs.strides is \"two\", expected integers such as [1, 1]");
}

std::string pool_error(const Shape& in, const Shape& out, const nlohmann::json& attrs) {
  TvmSnippet s;
  const int x = s.input("x", in);
  s.op("pool", "tvmgen_default_fused_nn_max_pool2d", {{x, 0}}, {{out}}, attrs);
  try {
    import_tvm_graph(s.to_json(), "pool.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PoolErrors, WindowLargerThanThePaddedInput) {
  EXPECT_EQ(
      pool_error({1, 8, 4, 4}, {1, 8, 1, 1}, {{"pool_size", "[7, 7]"}, {"padding", "[1, 1]"}}),
      "pool.json: nodes[1] 'pool': pool: pool window extent 7 exceeds the padded input 6 (spatial dim 0: 4 + "
      "padding 2) (input [1, 8, 4, 4], output [1, 8, 1, 1])");
  // ResNet's 3x3 stride-2 pad-1 max pool: 112 -> 56 is right, 112 -> 55 is not.
  EXPECT_EQ(pool_error({1, 64, 112, 112}, {1, 64, 56, 56},
                       {{"pool_size", "[3, 3]"}, {"strides", "[2, 2]"}, {"padding", "[1, 1]"}}),
            "(no error)");
  EXPECT_EQ(
      pool_error({1, 64, 112, 112}, {1, 64, 55, 55},
                 {{"pool_size", "[3, 3]"}, {"strides", "[2, 2]"}, {"padding", "[1, 1]"}}),
      "pool.json: nodes[1] 'pool': pool: output spatial dim 0 is 55, but a pool window of 3 with stride 2, "
      "padding 2 and dilation 1 over 112 gives 56 (input [1, 64, 112, 112], output [1, 64, 55, 55])");
}

TEST(DensePackErrors, PackingThatDoesNotDivideN) {
  TvmSnippet s;
  const int x = s.input("x", {4, 64});
  const int w = s.input("p0", {3, 64, 16}); // 3 blocks of 16 = 48 outputs, the op has 40
  s.op("dense", "tvmgen_default_fused_nn_contrib_dense_pack", {{x, 0}, {w, 0}}, {{{4, 40}}});
  std::string error = "(no error)";
  try {
    import_tvm_graph(s.to_json(), "dense.json");
  } catch (const InputError& e) {
    error = e.what();
  }
  EXPECT_EQ(error,
            "dense.json: nodes[2] 'dense': dense: dense_pack weight [3, 64, 16] packs 3 x 16 = 48 outputs of "
            "64 inputs, but the op has n = 40 outputs of k = 64 (packing 16 does not divide n) (inputs [4, "
            "64] [3, 64, 16], output [4, 40])");
  // A packing that divides n is fine: 5 blocks of 8 = 40.
  TvmSnippet ok;
  const int x2 = ok.input("x", {4, 64});
  const int w2 = ok.input("p0", {5, 64, 8});
  ok.op("dense", "tvmgen_default_fused_nn_contrib_dense_pack_add", {{x2, 0}, {w2, 0}}, {{{4, 40}}});
  EXPECT_DOUBLE_EQ(import_tvm_graph(ok.to_json(), "dense.json").graph.ops.back().features.macs,
                   4.0 * 40 * 64);
}

// A fused node may list a scale before the weight: the data and weight are found among the inputs.
TEST(ConvView, FusedNodeFindsItsWeightAmongTheInputs) {
  TvmSnippet s;
  const int x = s.input("x", {1, 16, 8, 8});
  const int scale = s.input("p0", {});
  const int w = s.input("p1", {32, 16, 3, 3});
  s.op("conv", "tvmgen_default_fused_multiply_nn_conv2d", {{x, 0}, {scale, 0}, {w, 0}}, {{{1, 32, 6, 6}}});
  const OpFeatures& f = import_tvm_graph(s.to_json(), "f.json").graph.ops.back().features;
  EXPECT_EQ(f.gemm_m, 36);
  EXPECT_EQ(f.gemm_n, 32);
  EXPECT_EQ(f.gemm_k, 144);
}

} // namespace
} // namespace lightsim::ir
