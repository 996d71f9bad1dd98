// Constant folding (ir/fusion/fold_constants.h): a linear layer as TVM's PyTorch front end imports it
// (weight -> transpose -> broadcast_to -> reshape -> batch_matmul with the activations) keeps only the
// batch_matmul, reading one weight of the broadcast's shape; the original weight is gone; ops that read an
// input are never folded; a weight that a folded op and a kept op both read stays; the folded graph's
// bytes add up by hand. On lightsim-graph's DeiT-T through the CLI: tests/cli/fusion_cli_test.cc.
#include "ir/fusion/fold_constants.h"
#include "ir/graphgen/expr_graph.h"
#include "tests/fusion/fusion_test_util.h"

#include <gtest/gtest.h>

namespace lightsim::ir::fusion {
namespace {

using graphgen::ExprGraph;
using graphgen::ExprRef;

std::size_t count_class(const Graph& g, OpClass c) {
  std::size_t n = 0;
  for (const Op& op : g.ops)
    n += op.op_class == c;
  return n;
}

std::size_t params(const Graph& g) {
  std::size_t n = 0;
  for (const Op& op : g.ops)
    n += op.op_class == OpClass::Input && op.is_param;
  return n;
}

TEST(FoldConstants, WeightTransposeAndBroadcastBecomeOneWeight) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{1, 8, 16}});
  const ExprRef w = e.constant({{32, 16}});
  const ExprRef wt = e.call("transpose", {w}, {{16, 32}}, "axes=1,0");
  const ExprRef wb = e.call("broadcast_to", {wt}, {{1, 16, 32}}, "shape=1,16,32");
  const ExprRef y = e.call("nn_batch_matmul", {x, wb}, {{1, 8, 32}}, "transpose_b=0");
  e.add_output(e.call("add", {y, e.constant({{32}})}, {{1, 8, 32}}));
  const Graph g = test::import_exprs(e);
  ASSERT_EQ(g.num_compute_ops(), 4u);

  const FoldResult r = fold_constants(g);
  EXPECT_EQ(r.folded_ops, 2u);     // transpose, broadcast_to
  EXPECT_EQ(r.dropped_params, 1u); // the [32, 16] weight
  EXPECT_EQ(r.graph.num_compute_ops(), 2u);
  EXPECT_EQ(count_class(r.graph, OpClass::BatchMatmul), 1u);
  EXPECT_EQ(count_class(r.graph, OpClass::Copy) + count_class(r.graph, OpClass::Transpose), 0u);
  EXPECT_EQ(params(r.graph), 2u); // the folded [1, 16, 32] weight and the bias
  for (const Op& op : r.graph.ops)
    if (op.op_class == OpClass::BatchMatmul) {
      // By hand: x 1 x 8 x 16 and the folded weight 1 x 16 x 32, fp32; the weight is a parameter now.
      EXPECT_DOUBLE_EQ(op.features.bytes_in, (8 * 16 + 16 * 32) * 4.0);
      EXPECT_DOUBLE_EQ(op.features.param_bytes, 16 * 32 * 4.0);
      EXPECT_EQ(op.features.gemm_k, 16);
      EXPECT_EQ(op.features.gemm_n, 32);
    }
  // The tensors are renumbered with their producers.
  for (std::size_t i = 0; i < r.graph.ops.size(); ++i)
    for (TensorId t : r.graph.ops[i].outputs)
      EXPECT_EQ(r.graph.tensors[static_cast<std::size_t>(t)].producer, static_cast<OpId>(i));
  EXPECT_EQ(r.graph.heads.size(), 1u);
}

TEST(FoldConstants, OpsOnInputsStayAndSharedWeightsAreKept) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{4, 16}});
  const ExprRef w = e.constant({{16, 16}});
  const ExprRef scaled = e.call("multiply", {w, e.constant({{1}})}, {{16, 16}}); // folded
  const ExprRef a = e.call("nn_dense", {x, scaled}, {{4, 16}});
  const ExprRef b = e.call("nn_dense", {x, w}, {{4, 16}});                  // reads the original weight too
  const ExprRef xt = e.call("multiply", {x, e.constant({{1}})}, {{4, 16}}); // reads an input: stays
  e.add_output(e.call("add", {e.call("add", {a, b}, {{4, 16}}), xt}, {{4, 16}}));
  const Graph g = test::import_exprs(e);
  const FoldResult r = fold_constants(g);
  EXPECT_EQ(r.folded_ops, 1u);
  EXPECT_EQ(r.graph.num_compute_ops(), g.num_compute_ops() - 1);
  std::size_t weights_16x16 = 0;
  for (const Op& op : r.graph.ops)
    if (op.op_class == OpClass::Input && op.is_param &&
        r.graph.tensors[static_cast<std::size_t>(op.outputs[0])].elements == 256)
      ++weights_16x16;
  EXPECT_EQ(weights_16x16, 2u); // the folded product and the original weight the second dense reads
}

TEST(FoldConstants, NothingToFoldLeavesTheGraphAsItWas) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{4, 16}});
  e.add_output(e.call("nn_dense", {x, e.constant({{16, 16}})}, {{4, 16}}));
  const Graph g = test::import_exprs(e);
  const FoldResult r = fold_constants(g);
  EXPECT_EQ(r.folded_ops, 0u);
  EXPECT_EQ(r.dropped_params, 0u);
  ASSERT_EQ(r.graph.ops.size(), g.ops.size());
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    EXPECT_EQ(r.graph.ops[i].name, g.ops[i].name);
    EXPECT_EQ(r.graph.ops[i].features.bytes_in, g.ops[i].features.bytes_in);
  }
}

} // namespace
} // namespace lightsim::ir::fusion
