// The fusion pass (ir/fusion): TVM's FuseOps rules on small graphs written in code (one rule per test),
// and on the four real exports in ../shared/models the groups TVM forms, the partition's invariants (every
// op in exactly one group, at most one anchor per group, no cycle between groups) and the fused ops'
// features (bytes that cross the group's boundary only, the anchor's GEMM view, the members' element ops).
#include "ir/fusion/fusion.h"
#include "ir/fusion/op_pattern.h"
#include "ir/graphgen/expr_graph.h"
#include "ir/tvm/tvm_import.h"
#include "tests/fusion/fusion_test_util.h"
#include "tests/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim::ir::fusion {
namespace {

using graphgen::ExprGraph;
using graphgen::ExprRef;
using test::count_body;

FusionResult fuse_tvm(const Graph& g, int max_depth = 256) {
  return fuse(g, {FuseMode::Tvm, max_depth});
}

const Op& only_compute_op(const FusionResult& r) {
  const Op* found = nullptr;
  for (const Op& op : r.graph.ops)
    if (op.op_class != OpClass::Input) {
      EXPECT_EQ(found, nullptr) << "more than one compute op";
      found = &op;
    }
  if (!found) throw std::runtime_error("no compute op");
  return *found;
}

const Op& op_with_body(const FusionResult& r, const std::string& body) {
  for (const Op& op : r.graph.ops)
    if (op.op_class != OpClass::Input && relay_ops_of(op.func_name) == body) return op;
  throw std::runtime_error("no fused op " + body);
}

TEST(OpPattern, EveryOpClassHasOne) {
  // A new op class without a pattern does not compile (op_pattern's switch has no default); every class
  // but inputs and unknown ops takes part in fusion.
  for (std::size_t i = 0; i < kNumOpClasses; ++i) {
    const auto c = static_cast<OpClass>(i);
    // TVM registers no pattern for layer_norm (kOpaque), lrn OPAQUE, cumsum kOpaque; a collective is a
    // kernel of its own.
    const bool never = c == OpClass::Input || c == OpClass::Opaque || c == OpClass::LayerNorm ||
                       c == OpClass::Lrn || c == OpClass::Cumsum || is_collective(c);
    EXPECT_EQ(op_pattern(c) == OpPattern::Opaque, never) << op_class_name(c);
  }
  EXPECT_EQ(op_pattern(OpClass::Dense), OpPattern::OutEWiseFusable);
  EXPECT_EQ(op_pattern(OpClass::Softmax), OpPattern::OutEWiseFusable);
  EXPECT_EQ(op_pattern(OpClass::Add), OpPattern::Broadcast);
  EXPECT_EQ(op_pattern(OpClass::Exp), OpPattern::ElemWise);
  EXPECT_EQ(op_pattern(OpClass::Mean), OpPattern::CommReduce);
  EXPECT_EQ(op_pattern(OpClass::Nop), OpPattern::Injective);
  EXPECT_EQ(op_pattern(OpClass::Take), OpPattern::Injective);
  EXPECT_EQ(op_pattern(OpClass::Conv2dTranspose), OpPattern::OutEWiseFusable);
  EXPECT_EQ(op_pattern(OpClass::Pool), OpPattern::OutEWiseFusable);
  EXPECT_EQ(op_pattern(OpClass::BatchNorm), OpPattern::OutEWiseFusable);
  EXPECT_EQ(op_pattern(OpClass::LogSoftmax), OpPattern::OutEWiseFusable);
  EXPECT_EQ(op_pattern(OpClass::Max), OpPattern::CommReduce);
  EXPECT_EQ(op_pattern(OpClass::Variance), OpPattern::CommReduce);
  EXPECT_EQ(op_pattern(OpClass::Clip), OpPattern::ElemWise);
  EXPECT_EQ(op_pattern(OpClass::Maximum), OpPattern::Broadcast);
  EXPECT_EQ(op_pattern(OpClass::Pad), OpPattern::Injective);
}

TEST(FuseOps, DenseTakesItsBiasAddAndActivation) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{4, 8}, DType::Float32});
  const ExprRef w = e.constant({{16, 8}, DType::Float32});
  const ExprRef b = e.constant({{16}, DType::Float32});
  const ExprRef y = e.call("nn_dense", {x, w}, {{4, 16}, DType::Float32});
  const ExprRef z = e.call("add", {y, b}, {{4, 16}, DType::Float32});
  e.add_output(e.call("nn_relu", {z}, {{4, 16}, DType::Float32}));
  const Graph g = test::import_exprs(e);
  const FusionResult r = fuse_tvm(g);
  test::check_partition(g, r);
  const Op& op = only_compute_op(r);
  EXPECT_EQ(op.func_name, "tvmgen_default_fused_nn_dense_add_nn_relu");
  EXPECT_EQ(op.name, op.func_name);
  EXPECT_EQ(op.op_class, OpClass::Dense);
  EXPECT_EQ(op.features.fused_tail, (std::vector<OpClass>{OpClass::Add, OpClass::Relu}));
  // One launch: inputs x, w, b in parameter order; the 4x16 intermediates never go to memory.
  ASSERT_EQ(op.inputs.size(), 3u);
  EXPECT_EQ(op.features.bytes_in, 4.0 * (4 * 8 + 16 * 8 + 16));
  EXPECT_EQ(op.features.bytes_out, 4.0 * 4 * 16);
  EXPECT_EQ(op.features.macs, 4.0 * 16 * 8);
  EXPECT_EQ(op.features.gemm_m, 4);
  EXPECT_EQ(op.features.gemm_n, 16);
  EXPECT_EQ(op.features.gemm_k, 8);
  // add reads 64 + 16 elements and writes 64; relu 64 and 64.
  EXPECT_EQ(op.features.fused_ops, 80.0 + 64.0);
  EXPECT_EQ(op.features.elementwise_ops, 80.0 + 64.0);
}

TEST(FuseOps, AnInjectiveOpEndsTheAnchorsEpilogue) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{4, 8}, DType::Float32});
  const ExprRef y = e.call("nn_dense", {x, e.constant({{16, 8}, DType::Float32})}, {{4, 16}, DType::Float32});
  const ExprRef r = e.call("__nop", {y}, {{2, 32}, DType::Float32});
  e.add_output(e.call("nn_relu", {r}, {{2, 32}, DType::Float32}));
  const FusionResult f = fuse_tvm(test::import_exprs(e));
  EXPECT_EQ(count_body(f, "nn_dense"), 1u);
  EXPECT_EQ(count_body(f, "reshape_nn_relu"), 1u); // the reshape joins its consumer in phase 1
  EXPECT_EQ(f.graph.num_compute_ops(), 2u);
}

TEST(FuseOps, AReductionTakesItsElementwiseInputsNotItsOutputs) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{4, 8}, DType::Float32});
  const ExprRef sq = e.call("power", {x, e.constant({{}, DType::Float32})}, {{4, 8}, DType::Float32});
  const ExprRef m = e.call("mean", {sq}, {{4, 1}, DType::Float32});
  const ExprRef v = e.call("add", {m, e.constant({{}, DType::Float32})}, {{4, 1}, DType::Float32});
  e.add_output(e.call("rsqrt", {v}, {{4, 1}, DType::Float32}));
  const Graph g = test::import_exprs(e);
  const FusionResult r = fuse_tvm(g);
  test::check_partition(g, r);
  EXPECT_EQ(count_body(r, "power_mean"), 1u);
  EXPECT_EQ(count_body(r, "add_rsqrt"), 1u);
  const Op& reduce = op_with_body(r, "power_mean");
  EXPECT_EQ(reduce.op_class, OpClass::Mean);
  EXPECT_EQ(reduce.features.fused_tail, std::vector<OpClass>{OpClass::Power});
  // The scalar exponent is inlined (TVM folds simple scalar constants into the kernel): x is the only input.
  ASSERT_EQ(reduce.inputs.size(), 1u);
  EXPECT_EQ(r.graph.tensors[static_cast<std::size_t>(reduce.inputs[0])].shape,
            (std::vector<std::int64_t>{4, 8}));
  // power: max(32 + 1 read, 32 written); mean: 32 read.
  EXPECT_EQ(reduce.features.elementwise_ops, 33.0 + 32.0);
  EXPECT_EQ(reduce.features.fused_ops, 33.0);
  std::size_t inputs = 0;
  for (const Op& op : r.graph.ops)
    inputs += op.op_class == OpClass::Input;
  EXPECT_EQ(inputs, 1u); // both scalars inlined
}

TEST(FuseOps, ADiamondFusesAtItsPostDominator) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{64}, DType::Float32});
  const ExprRef ex = e.call("exp", {x}, {{64}, DType::Float32});
  const ExprRef a = e.call("add", {ex, e.constant({{64}, DType::Float32})}, {{64}, DType::Float32});
  const ExprRef b = e.call("multiply", {ex, e.constant({{64}, DType::Float32})}, {{64}, DType::Float32});
  e.add_output(e.call("subtract", {a, b}, {{64}, DType::Float32}));
  const Graph g = test::import_exprs(e);
  const FusionResult r = fuse_tvm(g);
  test::check_partition(g, r);
  const Op& op = only_compute_op(r);
  EXPECT_EQ(relay_ops_of(op.func_name), "exp_add_multiply_subtract");
  EXPECT_EQ(op.inputs.size(), 3u); // x and the two non-scalar constants
}

TEST(FuseOps, TwoAnchorsStayInTwoGroups) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{4, 8}, DType::Float32});
  const ExprRef y = e.call("nn_dense", {x, e.constant({{8, 8}, DType::Float32})}, {{4, 8}, DType::Float32});
  e.add_output(e.call("nn_dense", {y, e.constant({{8, 8}, DType::Float32})}, {{4, 8}, DType::Float32}));
  const Graph g = test::import_exprs(e);
  const FusionResult r = fuse_tvm(g);
  test::check_partition(g, r);
  EXPECT_EQ(r.graph.num_compute_ops(), 2u);
  // The same function twice (same op and types): one func name, two node names (as TVM).
  EXPECT_EQ(r.graph.ops.back().func_name, "tvmgen_default_fused_nn_dense");
  EXPECT_EQ(r.graph.ops.back().name, "tvmgen_default_fused_nn_dense_1");
}

TEST(FuseOps, DistinctFunctionsOfOneNameAreNumbered) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{4, 8}, DType::Float32});
  const ExprRef y = e.call("nn_dense", {x, e.constant({{16, 8}, DType::Float32})}, {{4, 16}, DType::Float32});
  e.add_output(e.call("nn_dense", {y, e.constant({{8, 16}, DType::Float32})}, {{4, 8}, DType::Float32}));
  const FusionResult r = fuse_tvm(test::import_exprs(e));
  EXPECT_EQ(r.graph.ops.back().func_name, "tvmgen_default_fused_nn_dense_1");
  EXPECT_EQ(r.graph.ops.back().name, "tvmgen_default_fused_nn_dense_1");
}

TEST(FuseOps, MaxDepthBoundsTheGroups) {
  ExprGraph e;
  ExprRef x = e.input("x", {{64}, DType::Float32});
  for (int i = 0; i < 10; ++i)
    x = e.call("exp", {x}, {{64}, DType::Float32});
  e.add_output(x);
  const Graph g = test::import_exprs(e);
  EXPECT_EQ(fuse_tvm(g).graph.num_compute_ops(), 1u);
  EXPECT_EQ(fuse_tvm(g, 1).graph.num_compute_ops(), 10u); // nothing fuses
  const FusionResult four = fuse_tvm(g, 4);
  test::check_partition(g, four);
  for (std::size_t op = 0; op < four.graph.ops.size(); ++op)
    EXPECT_LE(four.members(static_cast<OpId>(op)).size(), 4u);
  EXPECT_GE(four.graph.num_compute_ops(), 3u);
}

TEST(FuseOps, ConcatenateTakesItsFieldsThroughItsTuple) {
  // rotate_half: concat(-x[.., 4:], x[.., :4]) * sin + x * cos. The negative reaches the concatenate
  // through its argument tuple (phase 2), and the whole rotation fuses.
  ExprGraph e;
  const ExprRef x = e.input("x", {{2, 8}, DType::Float32});
  const ExprRef hi = e.call("strided_slice", {x}, {{2, 4}, DType::Float32}, "4:8");
  const ExprRef lo = e.call("strided_slice", {x}, {{2, 4}, DType::Float32}, "0:4");
  const ExprRef neg = e.call("negative", {hi}, {{2, 4}, DType::Float32});
  const ExprRef rot = e.call("concatenate", {neg, lo}, {{2, 8}, DType::Float32});
  const ExprRef a = e.call("multiply", {x, e.constant({{2, 8}, DType::Float32})}, {{2, 8}, DType::Float32});
  const ExprRef b = e.call("multiply", {rot, e.constant({{2, 8}, DType::Float32})}, {{2, 8}, DType::Float32});
  e.add_output(e.call("add", {a, b}, {{2, 8}, DType::Float32}));
  const Graph g = test::import_exprs(e);
  const FusionResult r = fuse_tvm(g);
  test::check_partition(g, r);
  const Op& op = only_compute_op(r);
  EXPECT_EQ(relay_ops_of(op.func_name),
            "multiply_strided_slice_negative_strided_slice_concatenate_multiply_add");
  // x is read whole once (the slices read halves of it).
  EXPECT_EQ(op.fused->input_bytes_read[0], 2 * 8 * 4u);
}

TEST(FuseOps, AGraphThatArrivedFusedKeepsItsGroups) {
  nlohmann::json doc = {
      {"nodes",
       {{{"op", "null"}, {"name", "x"}, {"inputs", nlohmann::json::array()}},
        {{"op", "null"}, {"name", "p0"}, {"inputs", nlohmann::json::array()}},
        {{"op", "tvm_op"},
         {"name", "f"},
         {"attrs",
          {{"func_name", "tvmgen_default_fused_nn_dense_add"}, {"num_inputs", "2"}, {"num_outputs", "1"}}},
         {"inputs", {{0, 0, 0}, {1, 0, 0}}}},
        {{"op", "tvm_op"},
         {"name", "g"},
         {"attrs", {{"func_name", "tvmgen_default_fused_exp"}, {"num_inputs", "1"}, {"num_outputs", "1"}}},
         {"inputs", {{2, 0, 0}}}}}},
      {"arg_nodes", {0, 1}},
      {"heads", {{3, 0, 0}}},
      {"attrs",
       {{"dltype", {"list_str", {"float32", "float32", "float32", "float32"}}},
        {"shape", {"list_shape", {{4, 8}, {16, 8}, {4, 16}, {4, 16}}}}}},
      {"node_row_ptr", {0, 1, 2, 3, 4}}};
  const Graph g = import_tvm_graph(doc, "fused.json").graph;
  EXPECT_TRUE(is_fused(g));
  const FusionResult r = fuse_tvm(g);
  EXPECT_TRUE(r.arrived_fused);
  EXPECT_EQ(r.graph.ops.size(), g.ops.size());
  EXPECT_EQ(r.graph.ops[2].name, "f");
  // Costed as the pass's fused ops are: the tail's work is in the features (one op per output element).
  EXPECT_EQ(g.ops[2].features.fused_ops, 64.0);
  EXPECT_EQ(g.ops[2].features.macs, 4.0 * 16 * 8);
}

TEST(FuseOps, ModeNoneChangesNothing) {
  ExprGraph e;
  const ExprRef x = e.input("x", {{64}, DType::Float32});
  e.add_output(e.call("exp", {e.call("exp", {x}, {{64}, DType::Float32})}, {{64}, DType::Float32}));
  const Graph g = test::import_exprs(e);
  const FusionResult r = fuse(g, {FuseMode::None, 256});
  EXPECT_FALSE(r.arrived_fused);
  EXPECT_EQ(r.graph.num_compute_ops(), 2u);
}

// ---- the real exports ---------------------------------------------------------------------------------

Graph load(const std::string& file) {
  return import_tvm_graph_file(test::model_path(file)).graph;
}

TEST(FusionOnExports, EveryOpInOneGroupOneAnchorNoCycle) {
  LIGHTSIM_NEED_SHARED_MODELS();
  for (const char* file :
       {"gpt2_prefill_5.json", "gpt2_decoder_5.json", "llama2_7b_prefill.json", "llama2_7b_decoder.json"}) {
    const Graph g = load(file);
    for (FuseMode mode : {FuseMode::Tvm, FuseMode::Flash, FuseMode::Vllm}) {
      SCOPED_TRACE(std::string(file) + " " + std::string(kFuseModes.name(mode)));
      const FusionResult r = fuse(g, {mode, 256});
      test::check_partition(g, r);
      EXPECT_LT(r.graph.num_compute_ops(), g.num_compute_ops() / 2);
      // Fusing again changes nothing: the result arrived fused.
      EXPECT_TRUE(fuse(r.graph, {mode, 256}).arrived_fused);
    }
  }
}

TEST(FusionOnExports, Llama2GroupsAreTvms) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph g = load("llama2_7b_prefill.json");
  const FusionResult r = fuse_tvm(g);
  // RMSNorm: the square fuses into its mean (a reduction takes its elementwise inputs); the rest of the
  // chain after the mean, add eps -> rsqrt -> x * r -> * weight, is one kernel (twice per layer, plus the
  // final norm, whose output is reshaped for the lm_head).
  EXPECT_EQ(count_body(r, "power_mean"), 65u);
  EXPECT_EQ(count_body(r, "add_rsqrt_multiply_multiply"), 64u);
  EXPECT_EQ(count_body(r, "add_rsqrt_multiply_multiply_reshape"), 1u);
  // SiLU-and-multiply: sigmoid, gate * sigmoid(gate), * up, with the reshapes around them.
  EXPECT_EQ(count_body(r, "reshape_sigmoid_multiply_reshape_multiply_reshape"), 32u);
  // RoPE on K: x * cos + rotate_half(x) * sin in one kernel; on Q with the softmax scale and reshape too.
  EXPECT_EQ(count_body(r, "multiply_strided_slice_negative_strided_slice_concatenate_multiply_add"), 32u);
  EXPECT_EQ(count_body(
                r, "multiply_strided_slice_negative_strided_slice_concatenate_multiply_add_multiply_reshape"),
            32u);
  // The residual add takes the reshape of the projection before it (2 per layer), and so does the mask
  // add after QK^T; Llama's dense has no bias to fuse.
  EXPECT_EQ(count_body(r, "reshape_add"), 3u * 32u);
  EXPECT_EQ(count_body(r, "nn_dense"), 7u * 32u + 1u);
  // The embedding gather with the wrap-around of negative ids.
  EXPECT_EQ(count_body(r, "less_add_where_take"), 1u);
  // The SiLU kernel reads the two projections and writes one tensor: its intermediates never go to memory.
  const Op& silu = op_with_body(r, "reshape_sigmoid_multiply_reshape_multiply_reshape");
  EXPECT_EQ(silu.inputs.size(), 2u);
  EXPECT_EQ(silu.outputs.size(), 1u);
  EXPECT_EQ(silu.features.bytes_in, 2 * silu.features.bytes_out);
}

TEST(FusionOnExports, Gpt2GroupsAreTvms) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph g = load("gpt2_prefill_5.json");
  const FusionResult r = fuse_tvm(g);
  // Every linear layer's bias add fuses into its dense (4 per layer x 12 layers); the lm_head has no bias.
  EXPECT_EQ(count_body(r, "nn_dense_add"), 48u);
  EXPECT_EQ(count_body(r, "nn_dense"), 1u);
  // The tanh-GELU after the first FFN dense is one kernel with the reshapes around it (the reshape between
  // dense + bias and the GELU is injective, which ends the dense's epilogue, as in TVM).
  EXPECT_EQ(count_body(r, "reshape_multiply_power_multiply_add_multiply_tanh_add_multiply_reshape"), 12u);
  // LayerNorm: mean | subtract | power + mean | add eps, rsqrt, scale, shift.
  EXPECT_EQ(count_body(r, "power_mean"), 25u);
  EXPECT_EQ(count_body(r, "mean"), 25u);
  EXPECT_EQ(count_body(r, "add_rsqrt_multiply_multiply_add_reshape"), 25u);
  const Op& linear = op_with_body(r, "nn_dense_add");
  EXPECT_EQ(linear.op_class, OpClass::Dense);
  EXPECT_EQ(linear.features.fused_tail, std::vector<OpClass>{OpClass::Add});
  ASSERT_EQ(linear.inputs.size(), 3u); // data, weight, bias
  double bytes = 0;
  for (TensorId t : linear.inputs)
    bytes += static_cast<double>(r.graph.tensors[static_cast<std::size_t>(t)].bytes);
  EXPECT_EQ(linear.features.bytes_in, bytes);
  EXPECT_EQ(linear.features.macs,
            static_cast<double>(linear.features.gemm_m * linear.features.gemm_n * linear.features.gemm_k));
  EXPECT_EQ(linear.features.fused_ops, static_cast<double>(linear.features.gemm_m * linear.features.gemm_n) +
                                           static_cast<double>(linear.features.gemm_n));
}

TEST(FusionOnExports, FlashFormsOneAttentionPerLayer) {
  LIGHTSIM_NEED_SHARED_MODELS();
  for (const auto& [file, layers, heads, tokens, keys] :
       {std::tuple{"gpt2_prefill_5.json", 12, 12, 5, 5}, std::tuple{"gpt2_decoder_5.json", 12, 12, 1, 6},
        std::tuple{"llama2_7b_prefill.json", 32, 32, 10, 10},
        std::tuple{"llama2_7b_decoder.json", 32, 32, 1, 11}}) {
    SCOPED_TRACE(file);
    const FusionResult r = fuse(load(file), {FuseMode::Flash, 256});
    EXPECT_EQ(r.attention_ops, static_cast<std::size_t>(layers));
    std::size_t found = 0;
    for (const Op& op : r.graph.ops) {
      if (op.op_class != OpClass::Attention) continue;
      ++found;
      EXPECT_EQ(op.features.gemm_batch, heads);
      EXPECT_EQ(op.features.gemm_m, tokens);
      EXPECT_EQ(op.features.gemm_n, keys);
      EXPECT_EQ(op.features.gemm_k, op.features.attention_value_dim);
      EXPECT_EQ(op.features.attention_mask_bytes, 0.0); // the masks are constants
      EXPECT_FALSE(op.features.fused_tail.empty());
      EXPECT_EQ(op.features.fused_tail.back(), OpClass::Softmax);
      // The attention reads Q, K and V through strides and scales the scores itself: no transpose or
      // reshape runs as a kernel of its own just to feed it (one whose result is also a graph output, the
      // cache GPT-2 returns, still does), and it takes none of the ops that compute its operands (RoPE's
      // tables are no inputs of it).
      for (std::size_t i : {std::size_t{0}, std::size_t{1}, op.inputs.size() - 1}) {
        const TensorId t = op.inputs[i];
        const OpId p = r.graph.tensors[static_cast<std::size_t>(t)].producer;
        ASSERT_GE(p, 0);
        const OpClass c = r.graph.ops[static_cast<std::size_t>(p)].op_class;
        const bool shared = r.graph.consumers[static_cast<std::size_t>(t)].size() > 1 ||
                            std::find(r.graph.heads.begin(), r.graph.heads.end(), t) != r.graph.heads.end();
        EXPECT_TRUE(shared || (c != OpClass::Transpose && c != OpClass::Nop)) << "input " << i;
      }
      for (std::size_t i = 2; i + 1 < op.inputs.size(); ++i) {
        const Tensor& side = r.graph.tensors[static_cast<std::size_t>(op.inputs[i])];
        const OpId p = side.producer;
        EXPECT_TRUE(side.elements == 1 || (p >= 0 && r.graph.ops[static_cast<std::size_t>(p)].is_param))
            << "side input " << i << " of " << side.elements << " elements";
      }
    }
    EXPECT_EQ(found, static_cast<std::size_t>(layers));
  }
}

} // namespace
} // namespace lightsim::ir::fusion
