// Import of TVM graph-executor JSON: the four shared exports (node and entry counts, multi-output split,
// dtypes, parameters vs inputs, MACs), the project's example graphs, and the stable reorder of a file
// whose node order is not topological.
#include "ir/tvm/tvm_import.h"
#include "tests/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>

namespace lightsim::ir {
namespace {

struct Counts {
  std::size_t inputs = 0, params = 0, compute = 0, dense = 0, batch_matmul = 0, split = 0;
  double macs = 0, tensor_bytes = 0;
};

Counts count(const Graph& g) {
  Counts c;
  for (const Op& op : g.ops) {
    if (op.op_class == OpClass::Input)
      (op.is_param ? c.params : c.inputs)++;
    else
      ++c.compute;
    c.dense += op.op_class == OpClass::Dense;
    c.batch_matmul += op.op_class == OpClass::BatchMatmul;
    c.split += op.op_class == OpClass::Split;
    c.macs += op.features.macs;
  }
  for (const Tensor& t : g.tensors)
    c.tensor_bytes += static_cast<double>(t.bytes);
  return c;
}

const Op& op_named(const Graph& g, const std::string& name) {
  for (const Op& op : g.ops)
    if (op.name == name) return op;
  throw std::runtime_error("no op " + name);
}

// Consistency every imported graph must have.
void check_invariants(const Graph& g) {
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    for (TensorId t : op.inputs)
      EXPECT_LT(g.tensors[static_cast<std::size_t>(t)].producer, static_cast<OpId>(i)) << op.name;
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      const Tensor& t = g.tensors[static_cast<std::size_t>(op.outputs[k])];
      EXPECT_EQ(t.producer, static_cast<OpId>(i));
      EXPECT_EQ(t.output_index, static_cast<std::int32_t>(k));
    }
  }
  EXPECT_EQ(g.consumers.size(), g.tensors.size());
}

TEST(TvmImport, Gpt2Prefill) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const ImportResult r = import_tvm_graph_file(test::model_path("gpt2_prefill_5.json"));
  const Graph& g = r.graph;
  EXPECT_TRUE(r.warnings.empty());
  check_invariants(g);
  ASSERT_EQ(g.ops.size(), 1108u);
  EXPECT_EQ(g.tensors.size(), 1132u); // 12 splits with 3 outputs each
  EXPECT_EQ(g.heads.size(), 25u);
  EXPECT_EQ(g.num_compute_ops(), 810u);
  const Counts c = count(g);
  EXPECT_EQ(c.inputs, 1u);
  EXPECT_EQ(c.params, 297u);
  EXPECT_EQ(c.dense, 49u);
  EXPECT_EQ(c.batch_matmul, 24u);
  EXPECT_EQ(c.split, 12u);
  EXPECT_DOUBLE_EQ(c.macs, 618120960.0);
  EXPECT_DOUBLE_EQ(c.tensor_bytes, 668935665.0);
  for (std::size_t i = 0; i < g.ops.size(); ++i)
    EXPECT_EQ(g.ops[i].node_index, static_cast<std::int32_t>(i)); // the file is in topological order

  const Op& input_ids = g.ops[0];
  EXPECT_EQ(input_ids.name, "input_ids");
  EXPECT_FALSE(input_ids.is_param);
  const Tensor& ids = g.tensors[static_cast<std::size_t>(input_ids.outputs[0])];
  EXPECT_EQ(ids.dtype, DType::Int64);
  EXPECT_EQ(ids.shape, (std::vector<std::int64_t>{1, 5}));
  EXPECT_EQ(ids.bytes, 40u);
  const Op& mask = g.ops[1]; // p0: a causal mask of uint1, one byte per element
  EXPECT_TRUE(mask.is_param);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(mask.outputs[0])].dtype, DType::Bool);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(mask.outputs[0])].bytes, 25u);

  // nodes[38]: the first QKV projection, [5, 768] x [2304, 768].
  const Op& qkv = g.ops[38];
  EXPECT_EQ(qkv.func_name, "tvmgen_default_fused_nn_dense");
  EXPECT_EQ(qkv.op_class, OpClass::Dense);
  EXPECT_DOUBLE_EQ(qkv.features.macs, 5.0 * 768 * 2304);
  EXPECT_EQ(qkv.features.gemm_m, 5);
  EXPECT_EQ(qkv.features.gemm_n, 2304);
  EXPECT_EQ(qkv.features.gemm_k, 768);
  const auto lm_head_it = std::find_if(g.ops.begin(), g.ops.end(), [](const Op& op) {
    return op.op_class == OpClass::Dense && op.features.gemm_n == 50257;
  });
  ASSERT_NE(lm_head_it, g.ops.end());
  const Op& lm_head = *lm_head_it;
  EXPECT_DOUBLE_EQ(lm_head.features.macs, 5.0 * 768 * 50257);
  EXPECT_DOUBLE_EQ(lm_head.features.max_dim, 50257);
  EXPECT_DOUBLE_EQ(lm_head.features.bytes_in, 4.0 * (5 * 768 + 50257 * 768));

  // nodes[42]: split into q, k, v; each output read through its own output index.
  const Op& split = g.ops[42];
  EXPECT_EQ(split.op_class, OpClass::Split);
  ASSERT_EQ(split.outputs.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const auto t = static_cast<std::size_t>(split.outputs[k]);
    EXPECT_EQ(g.tensors[t].shape, (std::vector<std::int64_t>{1, 5, 768}));
    EXPECT_EQ(g.tensors[t].bytes, 5u * 768 * 4);
    EXPECT_EQ(g.tensors[t].output_index, static_cast<std::int32_t>(k));
    ASSERT_EQ(g.consumers[t].size(), 1u);
  }
  EXPECT_EQ(g.consumers[static_cast<std::size_t>(split.outputs[0])][0], 43);
  EXPECT_EQ(g.consumers[static_cast<std::size_t>(split.outputs[1])][0], 46);
  EXPECT_EQ(g.consumers[static_cast<std::size_t>(split.outputs[2])][0], 58);
  EXPECT_DOUBLE_EQ(split.features.elements_out, 3 * 5 * 768);

  // nodes[62]: attention x V, [12, 5, 5] x [12, 64, 5] (transposed V) -> [12, 5, 64].
  const Op& attn_v = g.ops[62];
  EXPECT_EQ(attn_v.op_class, OpClass::BatchMatmul);
  EXPECT_EQ(attn_v.features.gemm_batch, 12);
  EXPECT_EQ(attn_v.features.gemm_m, 5);
  EXPECT_EQ(attn_v.features.gemm_n, 64);
  EXPECT_EQ(attn_v.features.gemm_k, 5);
}

TEST(TvmImport, Gpt2Decoder) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph g = import_tvm_graph_file(test::model_path("gpt2_decoder_5.json")).graph;
  check_invariants(g);
  EXPECT_EQ(g.ops.size(), 1156u);
  EXPECT_EQ(g.tensors.size(), 1180u);
  EXPECT_EQ(g.num_compute_ops(), 834u);
  const Counts c = count(g);
  EXPECT_EQ(c.inputs, 25u); // input_ids and past_k_i / past_v_i for 12 layers
  EXPECT_EQ(c.params, 297u);
  EXPECT_DOUBLE_EQ(c.macs, 123642624.0);
  EXPECT_FALSE(op_named(g, "past_k_0").is_param);
  EXPECT_FALSE(op_named(g, "past_v_11").is_param);
}

TEST(TvmImport, Llama2Prefill) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph g = import_tvm_graph_file(test::model_path("llama2_7b_prefill.json")).graph;
  check_invariants(g);
  EXPECT_EQ(g.ops.size(), 2807u);
  EXPECT_EQ(g.tensors.size(), 2807u);
  EXPECT_EQ(g.num_compute_ops(), 2285u);
  const Counts c = count(g);
  EXPECT_EQ(c.inputs, 1u);
  EXPECT_EQ(c.params, 521u);
  EXPECT_EQ(c.dense, 225u);
  EXPECT_EQ(c.batch_matmul, 64u);
  EXPECT_DOUBLE_EQ(c.macs, 66096988160.0);
  EXPECT_DOUBLE_EQ(c.tensor_bytes, 27328744586.0);
}

TEST(TvmImport, Llama2Decoder) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const Graph g = import_tvm_graph_file(test::model_path("llama2_7b_decoder.json")).graph;
  check_invariants(g);
  EXPECT_EQ(g.ops.size(), 2935u);
  EXPECT_EQ(g.num_compute_ops(), 2349u);
  const Counts c = count(g);
  EXPECT_EQ(c.inputs, 65u);
  EXPECT_EQ(c.params, 521u);
  EXPECT_DOUBLE_EQ(c.macs, 6609960960.0);
}

TEST(TvmImport, ExampleMlp2) {
  const Graph g = import_tvm_graph_file(test::source_path("tests/data/mlp2.json")).graph;
  check_invariants(g);
  EXPECT_EQ(g.ops.size(), 11u);
  EXPECT_EQ(g.num_compute_ops(), 6u);
  const Counts c = count(g);
  EXPECT_EQ(c.inputs, 1u);
  EXPECT_EQ(c.params, 4u);
  EXPECT_EQ(c.dense, 2u);
  EXPECT_DOUBLE_EQ(c.macs, 4.0 * 64 * 128 + 4.0 * 128 * 10);
  ASSERT_EQ(g.heads.size(), 1u);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.heads[0])].shape, (std::vector<std::int64_t>{4, 10}));
  EXPECT_EQ(op_named(g, "tvmgen_default_fused_nn_relu_1").op_class, OpClass::Relu);
}

TEST(TvmImport, ExampleTransformerBlock) {
  const Graph g = import_tvm_graph_file(test::source_path("tests/data/transformer_block.json")).graph;
  check_invariants(g);
  EXPECT_EQ(g.ops.size(), 90u);
  EXPECT_EQ(g.tensors.size(), 92u);
  const Counts c = count(g);
  EXPECT_EQ(c.inputs, 2u); // hidden_states and causal_mask
  EXPECT_EQ(c.dense, 4u);
  EXPECT_EQ(c.batch_matmul, 2u);
  EXPECT_EQ(c.split, 1u);
  EXPECT_DOUBLE_EQ(c.macs, 8.0 * 64 * (192 + 64 + 256) + 8.0 * 256 * 64 + 2 * (2.0 * 8 * 8 * 32));
  std::set<OpClass> classes;
  for (const Op& op : g.ops)
    classes.insert(op.op_class);
  for (OpClass want :
       {OpClass::Mean, OpClass::Subtract, OpClass::Power, OpClass::Rsqrt, OpClass::Multiply, OpClass::Nop,
        OpClass::Transpose, OpClass::Divide, OpClass::Where, OpClass::Softmax, OpClass::Tanh, OpClass::Add})
    EXPECT_TRUE(classes.count(want)) << op_class_name(want);
  const Op& mask = op_named(g, "causal_mask");
  EXPECT_FALSE(mask.is_param);
  EXPECT_EQ(g.tensors[static_cast<std::size_t>(mask.outputs[0])].dtype, DType::Bool);
}

// nodes listed consumer first: the importer reorders stably and keeps the file's indices.
TEST(TvmImport, ReordersNonTopologicalFileStably) {
  const auto doc = nlohmann::json::parse(R"({
    "nodes": [
      {"op": "tvm_op", "name": "relu", "attrs": {"func_name": "tvmgen_default_fused_nn_relu"}, "inputs": [[3, 0, 0]]},
      {"op": "null", "name": "x", "inputs": []},
      {"op": "null", "name": "p0", "inputs": []},
      {"op": "tvm_op", "name": "dense", "attrs": {"func_name": "tvmgen_default_fused_nn_dense"},
       "inputs": [[1, 0, 0], [2, 0, 0]]}
    ],
    "arg_nodes": [1, 2], "heads": [[0, 0, 0]], "node_row_ptr": [0, 1, 2, 3, 4],
    "attrs": {"shape": ["list_shape", [[2, 4], [2, 3], [4, 3], [2, 4]]],
              "dltype": ["list_str", ["float32", "float32", "float32", "float32"]]}})");
  const Graph g = import_tvm_graph(doc, "r.json").graph;
  check_invariants(g);
  ASSERT_EQ(g.ops.size(), 4u);
  EXPECT_EQ(g.ops[0].name, "x");
  EXPECT_EQ(g.ops[1].name, "p0");
  EXPECT_EQ(g.ops[2].name, "dense");
  EXPECT_EQ(g.ops[3].name, "relu");
  EXPECT_EQ(g.ops[3].node_index, 0);
  EXPECT_EQ(g.ops[2].node_index, 3);
  EXPECT_EQ(g.ops[3].inputs, (std::vector<TensorId>{3})); // tensor ids stay the file's entry ids
  EXPECT_EQ(g.tensors[3].producer, 2);
  EXPECT_EQ(g.heads, (std::vector<TensorId>{0}));
  EXPECT_EQ(g.tensors[0].producer, 3);
  EXPECT_DOUBLE_EQ(g.ops[2].features.macs, 2.0 * 3 * 4);
}

} // namespace
} // namespace lightsim::ir
