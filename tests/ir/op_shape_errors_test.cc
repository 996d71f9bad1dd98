// Bad input (issue 15): a convolution whose attributes contradict its shapes (channels, kernel, stride,
// groups not dividing channels; transposed too), a pooling window larger than its padded input, a
// dense_pack weight whose packing does not divide N, an attribute that is not integers: each one line naming
// the file, the node and the mismatch. And the spellings of attribute values that read the same.
#include "ir/error.h"
#include "ir/tvm/tvm_import.h"
#include "tests/ir/tvm_snippet.h"

#include <gtest/gtest.h>

namespace lightsim::ir {
namespace {

using test::TvmSnippet;
using Shape = std::vector<std::int64_t>;

Graph conv_graph(const std::string& func, const Shape& data, const Shape& weight, const Shape& out,
                 const nlohmann::json& attrs = nlohmann::json::object()) {
  TvmSnippet s;
  const int x = s.input("x", data);
  const int w = s.input("p0", weight);
  s.op("conv", func, {{x, 0}, {w, 0}}, {{out}}, attrs);
  return import_tvm_graph(s.to_json(), "conv.json").graph;
}

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
    EXPECT_EQ(g.ops.back().attrs->strides.front(), 2);
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

} // namespace
} // namespace lightsim::ir
