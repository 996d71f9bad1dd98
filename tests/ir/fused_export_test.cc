// A fused export of a conv net as TVM writes it for an x86 CPU at opt_level 3 (issue 15: real fused exports
// of conv nets we do not hold must import and run with every shipped config): NCHWc convolutions with folded
// batch norms fused with bias, residual and ReLU, a depthwise block with ReLU6, dense_pack, layout_transforms
// around them and a name TVM truncated.
#include "ir/cost/stacked_graph.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/transfer.h"
#include "ir/tvm/tvm_import.h"
#include "tests/ir/tvm_snippet.h"
#include "tests/test_support.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace lightsim::ir {
namespace {

using test::TvmSnippet;

// It imports with every op classified, the GEMM views of its fused convolutions and dense_pack hold, and
// every shipped config has a unit for each op.
TEST(FusedExport, X86ConvNetRunsOnEveryShippedConfig) {
  TvmSnippet s;
  const int x = s.input("data", {1, 3, 56, 56});
  const int t0 = s.op("lt0", "tvmgen_default_fused_layout_transform", {{x, 0}}, {{{1, 1, 56, 56, 3}}});
  const int w1 = s.input("p0", {4, 1, 3, 3, 3, 16}), b1 = s.input("p1", {1, 4, 1, 1, 16});
  const int c1 = s.op("conv1", "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_nn_relu",
                      {{t0, 0}, {w1, 0}, {b1, 0}}, {{{1, 4, 56, 56, 16}}});
  const int pool = s.op("pool", "tvmgen_default_fused_nn_max_pool2d", {{c1, 0}}, {{{1, 4, 28, 28, 16}}});
  const int w2 = s.input("p2", {4, 4, 3, 3, 16, 16}), b2 = s.input("p3", {1, 4, 1, 1, 16});
  const int c2 = s.op("conv2", "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_add_nn_relu",
                      {{pool, 0}, {w2, 0}, {b2, 0}, {pool, 0}}, {{{1, 4, 28, 28, 16}}});
  const int w3 = s.input("p4", {4, 1, 3, 3, 1, 16}), b3 = s.input("p5", {1, 4, 1, 1, 16});
  const int dw = s.op("dw", "tvmgen_default_fused_nn_contrib_depthwise_conv2d_NCHWc_add_clip",
                      {{c2, 0}, {w3, 0}, {b3, 0}}, {{{1, 4, 28, 28, 16}}});
  const int w4 = s.input("p6", {8, 4, 1, 1, 16, 16}), b4 = s.input("p7", {1, 8, 1, 1, 16}),
            sc = s.input("p8", {1, 8, 1, 1, 16});
  const int c4 =
      s.op("conv4",
           "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_add_multiply_add_add_nn_relu_multiply_add_nn_relu__"
           "9c2f41d07e3ab815_",
           {{dw, 0}, {w4, 0}, {b4, 0}, {sc, 0}}, {{{1, 8, 28, 28, 16}}});
  const int gap = s.op("gap", "tvmgen_default_fused_nn_global_avg_pool2d", {{c4, 0}}, {{{1, 8, 1, 1, 16}}});
  const int flat =
      s.op("flat", "tvmgen_default_fused_layout_transform_nn_batch_flatten", {{gap, 0}}, {{{1, 128}}});
  const int wd = s.input("p9", {125, 128, 8}), bd = s.input("p10", {1, 1000});
  const int fc = s.op("fc", "tvmgen_default_fused_nn_contrib_dense_pack_add", {{flat, 0}, {wd, 0}, {bd, 0}},
                      {{{1, 1000}}});
  s.op("prob", "tvmgen_default_fused_nn_softmax", {{fc, 0}}, {{{1, 1000}}});
  const Graph g = import_tvm_graph(s.to_json(), "x86.json").graph;
  const auto op = [&](const std::string& name) -> const Op& {
    for (const Op& o : g.ops)
      if (o.name == name) return o;
    throw std::runtime_error(name);
  };
  EXPECT_DOUBLE_EQ(op("conv1").features.macs, 56.0 * 56 * 64 * 27);
  EXPECT_DOUBLE_EQ(op("conv2").features.macs, 28.0 * 28 * 64 * 576);
  EXPECT_EQ(op("dw").features.gemm_batch, 64);
  EXPECT_EQ(op("dw").features.gemm_k, 9);
  EXPECT_DOUBLE_EQ(op("conv4").features.macs, 28.0 * 28 * 128 * 64);
  EXPECT_EQ(op("conv4").features.fused_tail.size(), 8u);
  EXPECT_DOUBLE_EQ(op("fc").features.macs, 128.0 * 1000);
  EXPECT_EQ(op("flat").op_class, OpClass::LayoutTransform);
  int configs = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::source_path("configs"))) {
    if (e.path().extension() != ".json") continue; // configs/*.json: the shipped configs
    ++configs;
    SCOPED_TRACE(e.path().string());
    const Hardware hw = load_hardware(e.path().string());
    const TransferModel transfers(hw);
    EXPECT_NO_THROW(build_stacked_graph(g, hw, transfers));
  }
  EXPECT_GE(configs, 5);
}

} // namespace
} // namespace lightsim::ir
