// Graph::finalize(): consumers and the shape features of each op (MACs and the GEMM view of dense,
// batch_matmul and conv2d in every layout), on graphs built in code.
#include "ir/error.h"
#include "ir/graph.h"

#include <gtest/gtest.h>

namespace lightsim::ir {
namespace {

// A graph under construction: inputs are Input ops, then one op reading them.
struct Builder {
  Graph g;

  TensorId tensor(std::vector<std::int64_t> shape, DType dtype, OpId producer, int index) {
    Tensor t;
    t.elements = 1;
    for (std::int64_t d : shape)
      t.elements *= static_cast<std::uint64_t>(d);
    t.shape = std::move(shape);
    t.dtype = dtype;
    t.bytes = t.elements * dtype_storage_bytes(dtype);
    t.producer = producer;
    t.output_index = index;
    g.tensors.push_back(std::move(t));
    return static_cast<TensorId>(g.tensors.size() - 1);
  }

  TensorId input(std::vector<std::int64_t> shape, DType dtype = DType::Float32) {
    Op op;
    op.name = "in" + std::to_string(g.ops.size());
    const auto id = static_cast<OpId>(g.ops.size());
    op.outputs.push_back(tensor(std::move(shape), dtype, id, 0));
    g.ops.push_back(std::move(op));
    return g.ops.back().outputs[0];
  }

  OpId op(OpClass c, std::vector<TensorId> inputs, std::vector<std::vector<std::int64_t>> outputs) {
    Op op;
    op.name = std::string(op_class_name(c));
    op.op_class = c;
    op.inputs = std::move(inputs);
    const auto id = static_cast<OpId>(g.ops.size());
    for (std::size_t k = 0; k < outputs.size(); ++k)
      op.outputs.push_back(tensor(outputs[k], DType::Float32, id, static_cast<int>(k)));
    g.ops.push_back(std::move(op));
    return id;
  }
};

const OpFeatures& features_of(Builder& b, OpId op) {
  b.g.finalize();
  return b.g.ops[static_cast<std::size_t>(op)].features;
}

void expect_gemm(const OpFeatures& f, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) {
  EXPECT_EQ(f.gemm_batch, batch);
  EXPECT_EQ(f.gemm_m, m);
  EXPECT_EQ(f.gemm_n, n);
  EXPECT_EQ(f.gemm_k, k);
  EXPECT_DOUBLE_EQ(f.macs, static_cast<double>(batch * m * n * k));
}

TEST(GraphFeatures, DenseLikeGpt2Qkv) {
  Builder b;
  const TensorId x = b.input({5, 768});
  const TensorId w = b.input({2304, 768});
  const OpId dense = b.op(OpClass::Dense, {x, w}, {{5, 2304}});
  const OpFeatures& f = features_of(b, dense);
  expect_gemm(f, 1, 5, 2304, 768);
  EXPECT_DOUBLE_EQ(f.macs, 5.0 * 768 * 2304);
  EXPECT_DOUBLE_EQ(f.elements_in, 5 * 768 + 2304 * 768);
  EXPECT_DOUBLE_EQ(f.bytes_in, 4.0 * (5 * 768 + 2304 * 768));
  EXPECT_DOUBLE_EQ(f.elements_out, 5 * 2304);
  EXPECT_DOUBLE_EQ(f.bytes_out, 4.0 * 5 * 2304);
  EXPECT_DOUBLE_EQ(f.max_dim, 2304);
}

TEST(GraphFeatures, DenseWithLeadingDimsAndPackedWeight) {
  Builder b;
  const TensorId x = b.input({2, 3, 64});
  const TensorId packed = b.input({8, 64, 16}); // dense_pack: [n/bn, k, bn] with n = 128
  const OpId dense = b.op(OpClass::Dense, {x, packed}, {{2, 3, 128}});
  expect_gemm(features_of(b, dense), 1, 6, 128, 64);
}

TEST(GraphFeatures, BatchMatmulTransposedAndPlain) {
  Builder b;
  const TensorId q = b.input({12, 5, 64});
  const TensorId k = b.input({12, 5, 64}); // [b, n, k]: TVM's transpose_b
  const TensorId p = b.input({12, 5, 5});
  const TensorId vt = b.input({12, 64, 5}); // [b, n, k] with n = 64, k = 5
  const TensorId v = b.input({12, 5, 64});  // [b, k, n]: not transposed
  const OpId scores = b.op(OpClass::BatchMatmul, {q, k}, {{12, 5, 5}});
  const OpId ctx_t = b.op(OpClass::BatchMatmul, {p, vt}, {{12, 5, 64}});
  const OpId ctx = b.op(OpClass::BatchMatmul, {p, v}, {{12, 5, 64}});
  b.g.finalize();
  expect_gemm(b.g.ops[static_cast<std::size_t>(scores)].features, 12, 5, 5, 64);
  expect_gemm(b.g.ops[static_cast<std::size_t>(ctx_t)].features, 12, 5, 64, 5);
  expect_gemm(b.g.ops[static_cast<std::size_t>(ctx)].features, 12, 5, 64, 5);
}

TEST(GraphFeatures, Conv2dNchw) {
  Builder b;
  const TensorId x = b.input({1, 3, 224, 224});
  const TensorId w = b.input({64, 3, 7, 7});
  const TensorId bias = b.input({64, 1, 1});
  const OpId conv = b.op(OpClass::Conv2d, {x, w, bias}, {{1, 64, 112, 112}});
  expect_gemm(features_of(b, conv), 1, 112 * 112, 64, 3 * 7 * 7);
}

TEST(GraphFeatures, Conv2dNchwcFromWeights) {
  Builder b;
  const TensorId x = b.input({1, 16, 56, 56, 4});   // C = 64 as 16 x 4
  const TensorId w = b.input({8, 16, 3, 3, 4, 16}); // O = 128 as 8 x 16, I = 64 as 16 x 4
  const OpId conv = b.op(OpClass::Conv2d, {x, w}, {{1, 8, 56, 56, 16}});
  expect_gemm(features_of(b, conv), 1, 56 * 56, 128, 64 * 9);
}

TEST(GraphFeatures, Conv2dNhwcAndDepthwise) {
  Builder b;
  const TensorId x = b.input({2, 32, 32, 16});
  const TensorId w = b.input({3, 3, 16, 32}); // HWIO
  const OpId nhwc = b.op(OpClass::Conv2d, {x, w}, {{2, 30, 30, 32}});
  const TensorId y = b.input({1, 32, 28, 28});
  const TensorId dw = b.input({32, 1, 3, 3}); // depthwise: 32 groups of one channel
  const OpId depthwise = b.op(OpClass::Conv2d, {y, dw}, {{1, 32, 28, 28}});
  b.g.finalize();
  expect_gemm(b.g.ops[static_cast<std::size_t>(nhwc)].features, 1, 2 * 30 * 30, 32, 9 * 16);
  expect_gemm(b.g.ops[static_cast<std::size_t>(depthwise)].features, 32, 28 * 28, 1, 9);
}

TEST(GraphFeatures, ElementwiseHasNoMacs) {
  Builder b;
  const TensorId x = b.input({4, 8}, DType::Int64);
  const TensorId mask = b.input({4, 8}, DType::Bool);
  const OpId where = b.op(OpClass::Where, {mask, x, x}, {{4, 8}});
  const OpFeatures& f = features_of(b, where);
  EXPECT_EQ(f.macs, 0);
  EXPECT_EQ(f.gemm_m, 0);
  EXPECT_DOUBLE_EQ(f.elements_in, 3 * 32);       // x counts twice: it is read twice
  EXPECT_DOUBLE_EQ(f.bytes_in, 32 + 2 * 8 * 32); // uint1 takes a byte, int64 eight
  EXPECT_DOUBLE_EQ(f.bytes_out, 4 * 32);
}

TEST(GraphFeatures, ConsumersOncePerOpInOpOrder) {
  Builder b;
  const TensorId x = b.input({4});
  const OpId add = b.op(OpClass::Add, {x, x}, {{4}});
  const TensorId y = b.g.ops[static_cast<std::size_t>(add)].outputs[0];
  const OpId mul = b.op(OpClass::Multiply, {y, x}, {{4}});
  b.g.finalize();
  ASSERT_EQ(b.g.consumers.size(), b.g.tensors.size());
  EXPECT_EQ(b.g.consumers[static_cast<std::size_t>(x)], (std::vector<OpId>{add, mul}));
  EXPECT_EQ(b.g.consumers[static_cast<std::size_t>(y)], (std::vector<OpId>{mul}));
  EXPECT_TRUE(b.g.consumers[b.g.ops[static_cast<std::size_t>(mul)].outputs[0]].empty());
  EXPECT_EQ(b.g.num_compute_ops(), 2u);
}

TEST(GraphFeatures, MismatchedDenseIsInputError) {
  Builder b;
  b.g.source = "built.json";
  const TensorId x = b.input({5, 768});
  const TensorId w = b.input({2304, 700});
  b.op(OpClass::Dense, {x, w}, {{5, 2304}});
  try {
    b.g.finalize();
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "built.json: op 2 'dense': dense: weight does not hold n x k = 2304 x 768 elements "
                 "(inputs [5, 768] [2304, 700], output [5, 2304])");
  }
}

TEST(GraphFeatures, BadBatchMatmulAndConvAreInputErrors) {
  {
    Builder b;
    const TensorId a = b.input({2, 5, 64});
    const TensorId c = b.input({2, 7, 63});
    b.op(OpClass::BatchMatmul, {a, c}, {{2, 5, 7}});
    EXPECT_THROW(b.g.finalize(), InputError);
  }
  {
    Builder b;
    const TensorId x = b.input({1, 30, 8, 8});
    const TensorId w = b.input({16, 7, 3, 3}); // 30 input channels are not groups of 7
    b.op(OpClass::Conv2d, {x, w}, {{1, 16, 6, 6}});
    EXPECT_THROW(b.g.finalize(), InputError);
  }
  {
    Builder b;
    const TensorId x = b.input({5, 768});
    b.op(OpClass::Dense, {x}, {{5, 2304}}); // no weight
    EXPECT_THROW(b.g.finalize(), InputError);
  }
}

TEST(GraphFeatures, TensorIdOutOfRangeIsInputError) {
  Builder b;
  b.g.source = "built.json";
  const TensorId x = b.input({4});
  b.op(OpClass::Add, {x, 99}, {{4}});
  try {
    b.g.finalize();
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("op 1 'add': tensor id 99 out of range"), std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace lightsim::ir
