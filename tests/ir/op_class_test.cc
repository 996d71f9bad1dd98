// Op classification from TVM func_names: every func_name of the four shared TVM exports, and the fused
// names TVM writes for CNNs (conv2d_NCHWc + add + relu, dense_pack, pooling, layout_transform).
#include "ir/op_class.h"
#include "ir/tvm/tvm_import.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <map>
#include <regex>

namespace lightsim::ir {
namespace {

TEST(OpClass, NamesRoundTrip) {
  for (std::size_t i = 0; i < kNumOpClasses; ++i) {
    const auto c = static_cast<OpClass>(i);
    const std::string_view name = op_class_name(c);
    ASSERT_NE(name, "invalid") << i;
    EXPECT_EQ(parse_op_class(name), c) << name;
  }
  EXPECT_EQ(op_class_name(OpClass::BatchMatmul), "batch_matmul");
  EXPECT_EQ(op_class_name(OpClass::StridedSlice), "strided_slice");
  EXPECT_EQ(parse_op_class("Dense"), std::nullopt);
  EXPECT_EQ(parse_op_class("count_"), std::nullopt);
}

TEST(OpClass, GemmLike) {
  for (std::size_t i = 0; i < kNumOpClasses; ++i) {
    const auto c = static_cast<OpClass>(i);
    const bool expected = c == OpClass::Dense || c == OpClass::BatchMatmul || c == OpClass::Conv2d ||
                          c == OpClass::Conv2dTranspose;
    EXPECT_EQ(is_gemm_like(c), expected) << op_class_name(c);
  }
}

void expect_class(std::string_view func_name, OpClass anchor, std::vector<OpClass> tail = {}) {
  const std::optional<Classification> c = classify_func_name(func_name);
  ASSERT_TRUE(c.has_value()) << func_name;
  EXPECT_EQ(op_class_name(c->anchor), op_class_name(anchor)) << func_name;
  std::vector<std::string_view> got, want;
  for (OpClass t : c->tail)
    got.push_back(op_class_name(t));
  for (OpClass t : tail)
    want.push_back(op_class_name(t));
  EXPECT_EQ(got, want) << func_name;
}

void expect_class(std::string_view func_name, std::nullopt_t) {
  EXPECT_FALSE(classify_func_name(func_name).has_value()) << func_name;
}

TEST(OpClass, SimpleNames) {
  expect_class("__nop", OpClass::Nop);
  expect_class("tvmgen_default_fused_nn_dense_4", OpClass::Dense);
  expect_class("tvmgen_default_fused_nn_batch_matmul_1", OpClass::BatchMatmul);
  expect_class("tvmgen_default_fused_nn_softmax", OpClass::Softmax);
  expect_class("tvmgen_default_fused_strided_slice_3_1", OpClass::StridedSlice);
  expect_class("tvmgen_default_fused_transpose_3_1", OpClass::Transpose);
  expect_class("tvmgen_mymodule_fused_add", OpClass::Add);   // another module name
  expect_class("tvmgen_my_model_fused_tanh", OpClass::Tanh); // a module name with underscores
  expect_class("fused_sqrt", OpClass::Sqrt);                 // pre-0.8 TVM prefix
  expect_class("tvmgen_default_fused_reshape", OpClass::Nop);
  expect_class("tvmgen_default_fused_cast_1", OpClass::Cast);
  expect_class("tvmgen_default_fused_erf", OpClass::Erf);
  expect_class("tvmgen_default_fused_exp", OpClass::Exp);
  expect_class("tvmgen_default_fused_sum", OpClass::Sum);
}

TEST(OpClass, FusedCnnNames) {
  expect_class("tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu", OpClass::Conv2d,
               {OpClass::Add, OpClass::Relu});
  expect_class("tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu_3", OpClass::Conv2d,
               {OpClass::Add, OpClass::Relu});
  expect_class("fused_nn_conv2d_add_nn_relu_2", OpClass::Conv2d, {OpClass::Add, OpClass::Relu});
  expect_class("tvmgen_default_fused_nn_contrib_dense_pack_add", OpClass::Dense, {OpClass::Add});
  expect_class("tvmgen_default_fused_nn_contrib_dense_pack", OpClass::Dense);
  expect_class("tvmgen_default_fused_nn_max_pool2d", OpClass::Pool);
  expect_class("tvmgen_default_fused_nn_global_avg_pool2d_1", OpClass::Pool);
  expect_class("tvmgen_default_fused_nn_adaptive_avg_pool2d", OpClass::Pool);
  expect_class("tvmgen_default_fused_nn_avg_pool2d_add", OpClass::Pool, {OpClass::Add});
  expect_class("tvmgen_default_fused_layout_transform", OpClass::LayoutTransform);
  expect_class("tvmgen_default_fused_layout_transform_nn_relu", OpClass::LayoutTransform, {OpClass::Relu});
  // The anchor need not come first; the tail keeps func_name order and leaves out reshapes.
  expect_class("tvmgen_default_fused_multiply_nn_dense_add_reshape", OpClass::Dense,
               {OpClass::Multiply, OpClass::Add});
  expect_class("tvmgen_default_fused_add_mean", OpClass::Mean, {OpClass::Add});
  // Equal priority: the first one anchors.
  expect_class("tvmgen_default_fused_mean_nn_softmax", OpClass::Mean, {OpClass::Softmax});
  expect_class("tvmgen_default_fused_reshape_squeeze", OpClass::Nop);
}

// The ops TVM's front ends emit for CNNs and encoders (issue 15), alone and fused.
TEST(OpClass, CnnAndEncoderOps) {
  expect_class("tvmgen_default_fused_nn_log_softmax", OpClass::LogSoftmax);
  expect_class("tvmgen_default_fused_nn_batch_norm", OpClass::BatchNorm);
  expect_class("tvmgen_default_fused_nn_layer_norm", OpClass::LayerNorm);
  expect_class("tvmgen_default_fused_nn_group_norm_1", OpClass::LayerNorm);
  expect_class("tvmgen_default_fused_nn_conv2d_transpose_add", OpClass::Conv2dTranspose, {OpClass::Add});
  expect_class("tvmgen_default_fused_nn_conv1d", OpClass::Conv2d);
  expect_class("tvmgen_default_fused_nn_conv3d_add_nn_relu", OpClass::Conv2d, {OpClass::Add, OpClass::Relu});
  expect_class("tvmgen_default_fused_nn_pad", OpClass::Pad);
  expect_class("tvmgen_default_fused_nn_pad_nn_conv2d", OpClass::Conv2d, {OpClass::Pad});
  expect_class("tvmgen_default_fused_nn_contrib_depthwise_conv2d_NCHWc_add_clip", OpClass::Conv2d,
               {OpClass::Add, OpClass::Clip});
  expect_class("tvmgen_default_fused_image_resize2d", OpClass::Resize);
  expect_class("tvmgen_default_fused_nn_upsampling", OpClass::Resize);
  for (const char* reduction : {"max", "min", "argmax", "argmin", "all", "any"})
    expect_class(std::string("tvmgen_default_fused_") + reduction, OpClass::Max);
  expect_class("tvmgen_default_fused_maximum_minimum", OpClass::Maximum, {OpClass::Maximum});
  expect_class("tvmgen_default_fused_one_hot", OpClass::Fill);
  for (const char* fill : {"full", "zeros", "ones", "full_like", "zeros_like", "ones_like", "arange"})
    expect_class(std::string("tvmgen_default_fused_") + fill, OpClass::Fill);
  expect_class("tvmgen_default_fused_cumsum", OpClass::Cumsum);
  expect_class("tvmgen_default_fused_multiply_erf_multiply_add_multiply", OpClass::Multiply,
               {OpClass::Erf, OpClass::Multiply, OpClass::Add, OpClass::Multiply});
  expect_class("tvmgen_default_fused_nn_dropout", OpClass::Nop);
  expect_class("tvmgen_default_fused_nn_depth_to_space", OpClass::Transpose);
  expect_class("tvmgen_default_fused_nn_lrn", OpClass::Lrn);
  expect_class("tvmgen_default_fused_variance", OpClass::Variance);
  expect_class("tvmgen_default_fused_broadcast_to", OpClass::Copy);
  expect_class("__copy", OpClass::Copy);
  expect_class("tvmgen_default_fused_less_equal", OpClass::Elementwise); // longest match, not less + equal
  expect_class("tvmgen_default_fused_log", OpClass::Transcendental);
  expect_class("tvmgen_default_fused_nn_log_softmax_nn_dropout", OpClass::LogSoftmax);
  // A reduction anchors over elementwise ops around it.
  expect_class("tvmgen_default_fused_subtract_variance_add_rsqrt", OpClass::Variance,
               {OpClass::Subtract, OpClass::Add, OpClass::Rsqrt});
}

// TVM cuts fused names past 80 characters ("fused_" + 74) and appends `_<hex hash>_` (and `_<n>` when the
// name repeats): the ops before the cut are read, an op cut short counts when its prefix is unambiguous.
TEST(OpClass, TruncatedFusedNames) {
  // The cut falls just after a `_`: every op up to it is whole.
  expect_class(
      "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_multiply_add_add_nn_relu_multiply_add_nn_relu__"
      "9c2f41d07e3ab815_",
      OpClass::Conv2d,
      {OpClass::Add, OpClass::Multiply, OpClass::Add, OpClass::Add, OpClass::Relu, OpClass::Multiply,
       OpClass::Add, OpClass::Relu});
  // A repeated truncated name gets `_<n>` after the hash's trailing `_`.
  expect_class(
      "tvmgen_default_fused_multiply_nn_contrib_depthwise_conv2d_NCHWc_add_multiply_add_clip_multiply__"
      "3fa9_1",
      std::nullopt);
  expect_class(
      "tvmgen_default_fused_multiply_nn_contrib_depthwise_conv2d_NCHWc_add_multiply_add_clip_multiply__"
      "3fa9__1",
      OpClass::Conv2d,
      {OpClass::Multiply, OpClass::Add, OpClass::Multiply, OpClass::Add, OpClass::Clip, OpClass::Multiply});
  // Cut inside "nn_relu": "nn_r" can only be nn_relu.
  expect_class(
      "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_multiply_add_add_nn_relu_multiply_add_exp_nn_r_"
      "1234abcd_",
      OpClass::Conv2d,
      {OpClass::Add, OpClass::Multiply, OpClass::Add, OpClass::Add, OpClass::Relu, OpClass::Multiply,
       OpClass::Add, OpClass::Exp, OpClass::Relu});
  // Cut to "nn_": ambiguous, left out (the op cut off is not seen).
  expect_class(
      "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_multiply_add_add_nn_relu_multiply_add_sign_nn__"
      "1234abcd_",
      OpClass::Conv2d,
      {OpClass::Add, OpClass::Multiply, OpClass::Add, OpClass::Add, OpClass::Relu, OpClass::Multiply,
       OpClass::Add, OpClass::Elementwise});
  // Not a truncation: a short name ending in a hex-looking token is an unknown op.
  EXPECT_FALSE(classify_func_name("tvmgen_default_fused_add_beef_"));
}

TEST(OpClass, UnknownNames) {
  EXPECT_FALSE(classify_func_name("tvmgen_default_fused_nn_lstm"));
  EXPECT_FALSE(classify_func_name("tvmgen_default_fused_add_frobnicate"));
  EXPECT_FALSE(classify_func_name("tvmgen_default_fused_"));
  EXPECT_FALSE(classify_func_name("tvmgen_default_fused_7"));
  EXPECT_FALSE(classify_func_name(""));
  EXPECT_FALSE(classify_func_name("_"));
  EXPECT_FALSE(classify_func_name("nn_dens"));
}

// Every func_name in the four shared exports, against the class its Relay op name says.
void check_shared_model(const std::string& file, std::size_t expected_ops) {
  const std::map<std::string, OpClass> expected{
      {"add", OpClass::Add},
      {"concatenate", OpClass::Concatenate},
      {"divide", OpClass::Divide},
      {"less", OpClass::Less},
      {"mean", OpClass::Mean},
      {"multiply", OpClass::Multiply},
      {"negative", OpClass::Negative},
      {"nn_batch_matmul", OpClass::BatchMatmul},
      {"nn_dense", OpClass::Dense},
      {"nn_softmax", OpClass::Softmax},
      {"power", OpClass::Power},
      {"rsqrt", OpClass::Rsqrt},
      {"sigmoid", OpClass::Sigmoid},
      {"split", OpClass::Split},
      {"strided_slice", OpClass::StridedSlice},
      {"subtract", OpClass::Subtract},
      {"take", OpClass::Take},
      {"tanh", OpClass::Tanh},
      {"transpose", OpClass::Transpose},
      {"where", OpClass::Where},
  };
  const Graph g = import_tvm_graph_file(test::model_path(file)).graph;
  const std::regex tvm_name("tvmgen_default_fused_([a-z_]+?)(_[0-9]+)*");
  std::size_t checked = 0;
  for (const Op& op : g.ops) {
    if (op.op_class == OpClass::Input) continue;
    OpClass want = OpClass::Nop;
    if (op.func_name != "__nop") {
      std::smatch m;
      ASSERT_TRUE(std::regex_match(op.func_name, m, tvm_name)) << op.func_name;
      const auto it = expected.find(m[1].str());
      ASSERT_NE(it, expected.end()) << "no expectation for " << op.func_name;
      want = it->second;
    }
    const std::optional<Classification> c = classify_func_name(op.func_name);
    ASSERT_TRUE(c) << op.func_name;
    EXPECT_EQ(op_class_name(c->anchor), op_class_name(want)) << op.func_name;
    EXPECT_TRUE(c->tail.empty()) << op.func_name;
    EXPECT_EQ(op.op_class, want) << op.func_name;
    ++checked;
  }
  EXPECT_EQ(checked, expected_ops);
}

TEST(OpClass, Gpt2PrefillFuncNames) {
  LIGHTSIM_NEED_SHARED_MODELS();
  check_shared_model("gpt2_prefill_5.json", 810);
}

TEST(OpClass, Gpt2DecoderFuncNames) {
  LIGHTSIM_NEED_SHARED_MODELS();
  check_shared_model("gpt2_decoder_5.json", 834);
}

TEST(OpClass, Llama2PrefillFuncNames) {
  LIGHTSIM_NEED_SHARED_MODELS();
  check_shared_model("llama2_7b_prefill.json", 2285);
}

TEST(OpClass, Llama2DecoderFuncNames) {
  LIGHTSIM_NEED_SHARED_MODELS();
  check_shared_model("llama2_7b_decoder.json", 2349);
}

} // namespace
} // namespace lightsim::ir
