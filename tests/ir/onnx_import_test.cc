// ONNX import per op kind against hand-counted shapes and MACs (ir/onnx/onnx_import.h), unfused and after
// the fusion pass with TVM's rules.
#include "ir/error.h"
#include "ir/fusion/fusion.h"
#include "tests/ir/onnx_test_model.h"

#include <gtest/gtest.h>

namespace lightsim::test {
namespace {

using ir::OpClass;
using Shape = std::vector<std::int64_t>;
constexpr int F = ::onnx::TensorProto::FLOAT;

ir::Graph fused(const ir::Graph& g) {
  return ir::fusion::fuse(g, {ir::fusion::FuseMode::Tvm, 256}).graph;
}

std::size_t compute_ops(const ir::Graph& g) {
  return g.num_compute_ops();
}

TEST(OnnxImport, ConvBiasReluAsTvmCountsThem) {
  OnnxModel m(13);
  m.input("x", {1, 3, 224, 224});
  m.weight("w", {64, 3, 7, 7});
  m.weight("b", {64});
  auto& conv = m.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  set_attr(conv, "strides", Shape{2, 2});
  set_attr(conv, "pads", Shape{3, 3, 3, 3});
  m.node("Relu", {"c"}, {"y"}, "relu");
  m.output("y");
  const ir::Graph g = m.import().graph;
  const ir::Op& c = op_named(g, "conv");
  EXPECT_EQ(c.op_class, OpClass::Conv2d);
  EXPECT_EQ(c.func_name, "tvmgen_default_fused_nn_conv2d");
  EXPECT_EQ(out_of(g, "conv").shape, (Shape{1, 64, 112, 112}));
  // Implicit GEMM: m = 112 x 112 output pixels, n = 64 channels, k = 3 x 7 x 7.
  EXPECT_DOUBLE_EQ(c.features.macs, 112.0 * 112 * 64 * 3 * 49);
  EXPECT_DOUBLE_EQ(c.features.bytes_in, 4.0 * (3 * 224 * 224 + 64 * 3 * 49 + 64));
  EXPECT_EQ(compute_ops(g), 2u);
  const ir::Graph f = fused(g);
  ASSERT_EQ(compute_ops(f), 1u);
  for (const ir::Op& op : f.ops)
    if (op.op_class != OpClass::Input) {
      EXPECT_EQ(op.op_class, OpClass::Conv2d);
      EXPECT_EQ(op.features.fused_tail, std::vector<OpClass>{OpClass::Relu});
      EXPECT_DOUBLE_EQ(op.features.macs, 112.0 * 112 * 64 * 3 * 49);
    }
}

TEST(OnnxImport, DepthwiseAndSamePaddingAndTransposedConv) {
  OnnxModel m(11);
  m.input("x", {2, 32, 15, 15});
  m.weight("w", {32, 1, 3, 3});
  auto& dw = m.node("Conv", {"x", "w"}, {"d"}, "dw");
  set_attr(dw, "group", std::int64_t{32});
  set_attr(dw, "strides", Shape{2, 2});
  set_attr(dw, "auto_pad", std::string("SAME_UPPER"));
  m.weight("wt", {32, 16, 4, 4});
  auto& up = m.node("ConvTranspose", {"d", "wt"}, {"u"}, "up");
  set_attr(up, "strides", Shape{2, 2});
  set_attr(up, "pads", Shape{1, 1, 1, 1});
  m.output("u");
  const ir::Graph g = m.import().graph;
  EXPECT_EQ(out_of(g, "dw").shape, (Shape{2, 32, 8, 8}));
  EXPECT_DOUBLE_EQ(op_named(g, "dw").features.macs, 2.0 * 8 * 8 * 32 * 9); // 32 groups of k = 9, n = 1
  // (8 - 1) x 2 - 2 + 4 = 16; the transposed view: m = input pixels, n = out channels x kernel, k = in
  // channels.
  EXPECT_EQ(out_of(g, "up").shape, (Shape{2, 16, 16, 16}));
  EXPECT_EQ(op_named(g, "up").op_class, OpClass::Conv2dTranspose);
  EXPECT_DOUBLE_EQ(op_named(g, "up").features.macs, 2.0 * 64 * 16 * 16 * 32);
}

TEST(OnnxImport, GemmMatMulAndBatchedProducts) {
  OnnxModel m(13);
  m.input("x", {64, 768});
  m.weight("w", {768, 2304});
  m.node("Gemm", {"x", "w"}, {"qkv"}, "gemm");
  m.input("h", {1, 64, 768});
  m.weight("w2", {768, 3072});
  m.node("MatMul", {"h", "w2"}, {"fc"}, "fc");
  m.input("q", {1, 12, 64, 64});
  m.input("k", {1, 12, 64, 64});
  m.node("MatMul", {"q", "k"}, {"s"}, "qk");
  m.input("at", {768, 64});
  auto& ta = m.node("Gemm", {"at", "w"}, {"ta"}, "gemm_ta");
  set_attr(ta, "transA", std::int64_t{1});
  for (const char* o : {"qkv", "fc", "s", "ta"})
    m.output(o);
  const ir::Graph g = m.import().graph;
  EXPECT_EQ(op_named(g, "gemm").op_class, OpClass::Dense);
  EXPECT_DOUBLE_EQ(op_named(g, "gemm").features.macs, 64.0 * 768 * 2304);
  EXPECT_EQ(op_named(g, "fc").op_class, OpClass::Dense);
  EXPECT_EQ(op_named(g, "fc").features.gemm_m, 64);
  EXPECT_EQ(out_of(g, "fc").shape, (Shape{1, 64, 3072}));
  EXPECT_EQ(op_named(g, "qk").op_class, OpClass::BatchMatmul);
  EXPECT_EQ(op_named(g, "qk").features.gemm_batch, 12);
  EXPECT_DOUBLE_EQ(op_named(g, "qk").features.macs, 12.0 * 64 * 64 * 64);
  // transA: a transpose of A first (as TVM's front end writes it), then the dense.
  EXPECT_EQ(op_named(g, "gemm_ta/transpose_a").op_class, OpClass::Transpose);
  EXPECT_EQ(op_named(g, "gemm_ta").features.gemm_m, 64);
  EXPECT_DOUBLE_EQ(op_named(g, "gemm_ta").features.macs, 64.0 * 768 * 2304);
}

TEST(OnnxImport, FusedProductsKeepTheirMacs) {
  OnnxModel m(17);
  m.input("x", {1, 16, 64});
  m.weight("w", {64, 256});
  m.weight("b", {256});
  m.node("MatMul", {"x", "w"}, {"h"}, "fc");
  m.node("Add", {"h", "b"}, {"hb"}, "bias");
  m.node("Relu", {"hb"}, {"r"}, "relu");
  m.input("q", {1, 4, 16, 8});
  m.input("kt", {1, 4, 8, 16});
  m.input("v", {1, 4, 16, 8});
  m.node("MatMul", {"q", "kt"}, {"s"}, "qk");
  m.node("Softmax", {"s"}, {"p"}, "softmax");
  m.node("MatMul", {"p", "v"}, {"o"}, "av");
  m.output("r");
  m.output("o");
  const ir::Graph g = m.import().graph;
  EXPECT_EQ(g.num_compute_ops(), 6u);
  const ir::Graph f = fused(g); // TVM's rules: the bias and relu join the dense; softmax stays alone
  double macs = 0;
  std::size_t dense = 0;
  for (const ir::Op& op : f.ops) {
    macs += op.features.macs;
    if (op.op_class == OpClass::Dense) {
      ++dense;
      EXPECT_EQ(op.features.fused_tail, (std::vector<OpClass>{OpClass::Add, OpClass::Relu}));
      EXPECT_DOUBLE_EQ(op.features.macs, 16.0 * 64 * 256);
    }
  }
  EXPECT_EQ(dense, 1u);
  EXPECT_DOUBLE_EQ(macs, 16.0 * 64 * 256 + 2 * 4.0 * 16 * 16 * 8);
  const ir::Graph flash = ir::fusion::fuse(g, {ir::fusion::FuseMode::Flash, 256}).graph;
  std::size_t attention = 0;
  for (const ir::Op& op : flash.ops)
    if (op.op_class == OpClass::Attention) {
      ++attention;
      EXPECT_DOUBLE_EQ(op.features.macs, 2 * 4.0 * 16 * 16 * 8);
    }
  EXPECT_EQ(attention, 1u);
}

TEST(OnnxImport, EinsumBecomesAProductWithTransposesOnlyWhereNeeded) {
  OnnxModel m(12);
  m.input("q", {2, 4, 10, 16});
  m.input("k", {2, 4, 12, 16});
  auto& e = m.node("Einsum", {"q", "k"}, {"s"}, "qk");
  set_attr(e, "equation", std::string("bhqd,bhkd->bhqk"));
  m.input("a", {2, 10, 4, 16});
  auto& e2 = m.node("Einsum", {"a", "k"}, {"s2"}, "perm");
  set_attr(e2, "equation", std::string("bqhd,bhkd->bhqk"));
  m.output("s");
  m.output("s2");
  const ir::Graph g = m.import().graph;
  EXPECT_EQ(out_of(g, "qk").shape, (Shape{2, 4, 10, 12}));
  EXPECT_EQ(op_named(g, "qk").op_class, OpClass::BatchMatmul);
  EXPECT_DOUBLE_EQ(op_named(g, "qk").features.macs, 8.0 * 10 * 12 * 16);
  EXPECT_EQ(op_named(g, "perm/transpose_a").op_class, OpClass::Transpose);
  EXPECT_EQ(op_named(g, "perm").op_class, OpClass::BatchMatmul);
  EXPECT_DOUBLE_EQ(op_named(g, "perm").features.macs, 8.0 * 10 * 12 * 16);
  EXPECT_EQ(out_of(g, "perm").shape, (Shape{2, 4, 10, 12}));
}

TEST(OnnxImport, PoolsAndNormalisations) {
  OnnxModel m(17);
  m.input("x", {1, 64, 112, 112});
  auto& mp = m.node("MaxPool", {"x"}, {"p"}, "pool");
  set_attr(mp, "kernel_shape", Shape{3, 3});
  set_attr(mp, "strides", Shape{2, 2});
  set_attr(mp, "pads", Shape{1, 1, 1, 1});
  m.node("GlobalAveragePool", {"p"}, {"g"}, "gap");
  m.input("t", {1, 5, 768});
  m.weight("gamma", {768});
  m.weight("beta", {768});
  auto& ln = m.node("LayerNormalization", {"t", "gamma", "beta"}, {"n"}, "ln");
  set_attr(ln, "axis", std::int64_t{-1});
  m.node("Softmax", {"n"}, {"sm"}, "sm");
  m.output("g");
  m.output("sm");
  const ir::Graph g = m.import().graph;
  EXPECT_EQ(out_of(g, "pool").shape, (Shape{1, 64, 56, 56}));
  EXPECT_EQ(op_named(g, "pool").op_class, OpClass::Pool);
  EXPECT_EQ(out_of(g, "gap").shape, (Shape{1, 64, 1, 1}));
  EXPECT_EQ(op_named(g, "ln").op_class, OpClass::LayerNorm);
  EXPECT_DOUBLE_EQ(op_named(g, "ln").features.macs, 0);
  EXPECT_DOUBLE_EQ(op_named(g, "ln").features.elementwise_ops, 5.0 * 768 + 2 * 768);
  EXPECT_EQ(op_named(g, "sm").op_class, OpClass::Softmax);
}

// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters write a reshape of a dynamic length:
// folded once N and seq are bound, leaving one reshape (a view) and no shape ops.
ir::ImportResult reshape_model(const ir::ImportOptions& options) {
  OnnxModel m(13);
  m.input("x", {std::string("N"), std::string("seq"), 768});
  m.node("Shape", {"x"}, {"shape"});
  m.ints("zero", {0}, true);
  m.ints("one", {1}, true);
  m.ints("axes", {0});
  m.ints("heads", {12, 64});
  m.node("Gather", {"shape", "zero"}, {"n"});
  m.node("Gather", {"shape", "one"}, {"s"});
  m.node("Unsqueeze", {"n", "axes"}, {"n1"});
  m.node("Unsqueeze", {"s", "axes"}, {"s1"});
  auto& cat = m.node("Concat", {"n1", "s1", "heads"}, {"target"});
  set_attr(cat, "axis", std::int64_t{0});
  m.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.node("Relu", {"y"}, {"z"}, "relu");
  m.output("z");
  return m.import(options);
}

TEST(OnnxImport, ShapeSubgraphsFoldOnceDimsAreBound) {
  ir::ImportOptions options;
  options.dims = {{"N", 2}, {"seq", 7}};
  const ir::Graph g = reshape_model(options).graph;
  EXPECT_EQ(out_of(g, "reshape").shape, (Shape{2, 7, 12, 64}));
  EXPECT_EQ(op_named(g, "reshape").op_class, OpClass::Nop);
  EXPECT_EQ(g.num_compute_ops(), 2u); // the reshape and the relu: no Shape, Gather, Unsqueeze or Concat
  EXPECT_EQ(g.ops.size(), 3u);        // and only x as an input (the shape operands are not tensors)
  options.dims["seq"] = 300;
  EXPECT_EQ(out_of(reshape_model(options).graph, "reshape").shape, (Shape{2, 300, 12, 64}));
}

TEST(OnnxImport, UnboundDimsAreOneLineListingEveryName) {
  try {
    reshape_model({});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "m.onnx: 2 unbound symbolic dimensions: 'N' (x dim 0); 'seq' (x dim 1); bind each "
                           "with --dim NAME=VALUE");
  }
}

TEST(OnnxImport, Opset18FormsMatchTheirOlderForms) {
  for (int opset : {13, 18}) {
    OnnxModel m(opset);
    m.input("x", {2, 10, 6});
    auto& rm = m.node("ReduceMean",
                      opset >= 18 ? std::vector<std::string>{"x", "axes"} : std::vector<std::string>{"x"},
                      {"r"}, "mean");
    if (opset >= 18)
      m.ints("axes", {-1});
    else
      set_attr(rm, "axes", Shape{-1});
    auto& sp =
        m.node("Split", opset >= 18 ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "sizes"},
               {"a", "b", "c"}, "split");
    set_attr(sp, "axis", std::int64_t{1});
    if (opset >= 18)
      set_attr(sp, "num_outputs", std::int64_t{3});
    else
      m.ints("sizes", {4, 4, 2});
    for (const char* o : {"r", "a", "b", "c"})
      m.output(o);
    const ir::Graph g = m.import().graph;
    EXPECT_EQ(out_of(g, "mean").shape, (Shape{2, 10, 1})) << opset;
    EXPECT_EQ(op_named(g, "mean").op_class, OpClass::Mean);
    EXPECT_EQ(out_of(g, "split", 0).shape, (Shape{2, 4, 6})) << opset;
    EXPECT_EQ(out_of(g, "split", 2).shape, (Shape{2, 2, 6})) << opset; // 18: ceil(10 / 3) = 4, 4, 2
  }
}

TEST(OnnxImport, ResizeSliceGatherPadExpandAndWhere) {
  OnnxModel m(13);
  m.input("x", {1, 3, 32, 32});
  m.floats("scales", {1, 1, 2, 2});
  m.node("Resize", {"x", "", "scales"}, {"r"}, "resize");
  m.ints("starts", {1});
  m.ints("ends", {1000000});
  m.ints("sax", {2});
  m.ints("steps", {3});
  m.node("Slice", {"r", "starts", "ends", "sax", "steps"}, {"s"}, "slice");
  m.ints("pads", {0, 0, 1, 2, 0, 0, 3, 4});
  m.node("Pad", {"s", "pads"}, {"p"}, "pad");
  m.input("table", {50, 8});
  m.input("ids", {2, 5}, ::onnx::TensorProto::INT64);
  m.node("Gather", {"table", "ids"}, {"e"}, "embed");
  m.ints("shape", {3, 2, 5, 8});
  m.node("Expand", {"e", "shape"}, {"ex"}, "expand");
  m.input("c", {2, 5, 8}, ::onnx::TensorProto::BOOL);
  m.node("Where", {"c", "ex", "e"}, {"w"}, "where");
  m.output("p");
  m.output("w");
  const ir::Graph g = m.import().graph;
  EXPECT_EQ(out_of(g, "resize").shape, (Shape{1, 3, 64, 64}));
  EXPECT_EQ(op_named(g, "resize").op_class, OpClass::Resize);
  EXPECT_EQ(out_of(g, "slice").shape, (Shape{1, 3, 21, 64})); // 1, 4, ..., 61
  EXPECT_EQ(out_of(g, "pad").shape, (Shape{1, 3, 25, 70}));
  EXPECT_EQ(out_of(g, "embed").shape, (Shape{2, 5, 8}));
  EXPECT_EQ(op_named(g, "embed").op_class, OpClass::Take);
  EXPECT_DOUBLE_EQ(op_named(g, "embed").features.bytes_read, 2 * 5 * 8 * 4 + 10 * 8);
  EXPECT_EQ(out_of(g, "expand").shape, (Shape{3, 2, 5, 8}));
  EXPECT_EQ(out_of(g, "where").shape, (Shape{3, 2, 5, 8}));
}

void expect_error(const OnnxModel& m, const std::string& part) {
  try {
    m.import();
    ADD_FAILURE() << "expected an InputError with " << part;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(part), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_EQ(what.rfind("m.onnx", 0), 0u) << what;
  }
}

TEST(OnnxImportErrors, OneLineNamingFileNodeAndReason) {
  {
    OnnxModel m(13);
    m.input("a", {4, 5});
    m.input("b", {6, 7});
    m.node("MatMul", {"a", "b"}, {"c"}, "mm");
    m.output("c");
    expect_error(m, "node 0 'mm' (MatMul): A [4, 5] and B [6, 7] do not share K");
  }
  {
    OnnxModel m(13);
    m.input("a", {4});
    m.node("Relu", {"nothing"}, {"c"}, "r");
    m.output("c");
    expect_error(m, "node 0 'r' (Relu): input 'nothing' is produced by no node");
  }
  {
    OnnxModel m(13);
    m.input("a", {4});
    m.node("Add", {"a", "d"}, {"c"}, "x");
    m.node("Relu", {"c"}, {"d"}, "y");
    m.output("d");
    expect_error(m, "is on a cycle");
  }
  {
    OnnxModel m(23);
    m.input("a", {4});
    m.node("Relu", {"a"}, {"c"}, "r");
    m.output("c");
    expect_error(m, "node 0 'r' (Relu): the model's opset 23 is newer than the newest lightsim knows (22)");
  }
  {
    OnnxModel m(11);
    m.input("a", {4, 8});
    m.weight("g", {8});
    m.node("LayerNormalization", {"a", "g"}, {"c"}, "ln");
    m.output("c");
    expect_error(m, "the op first appears in opset 17, the model's opset is 11");
  }
  {
    OnnxModel m(13);
    m.input("a", {4, 8});
    m.node("Relu", {"a"}, {"c"}, "r");
    m.output("c");
    auto* out = m.proto().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
    out->set_elem_type(::onnx::TensorProto::FLOAT);
    out->mutable_shape()->add_dim()->set_dim_value(4);
    out->mutable_shape()->add_dim()->set_dim_value(9);
    expect_error(m, "node 0 'r' (Relu): output 'c' is declared with shape [4, 9] but is float32 [4, 8]");
  }
  {
    OnnxModel m(13);
    m.input("a", {4});
    m.node("FancyOp", {"a"}, {"c"}, "f");
    m.output("c");
    expect_error(m, "1 unknown op type: 'FancyOp' (first at node 0 'f')");
  }
  { // attribute values that would overflow 64 bits in the output size
    OnnxModel m(13);
    m.input("x", {1, 4, 8, 8});
    m.weight("w", {4, 1, 3, 3});
    auto& c = m.node("Conv", {"x", "w"}, {"c"}, "conv");
    set_attr(c, "group", std::int64_t{4});
    set_attr(c, "dilations", std::vector<std::int64_t>{INT64_MAX / 2 + 1, 1});
    m.output("c");
    expect_error(m, "node 0 'conv' (Conv): sizes overflow 64 bits");
  }
}

TEST(OnnxImportErrors, TruncatedAndForeignFiles) {
  OnnxModel m(13);
  m.input("a", {4, 8});
  m.node("Relu", {"a"}, {"c"}, "r");
  m.output("c");
  const std::string bytes = m.bytes();
  for (std::size_t cut : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
    try {
      ir::import_onnx_bytes(bytes.substr(0, cut), "m.onnx");
      ADD_FAILURE() << "a file cut at " << cut << " of " << bytes.size() << " bytes imported";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("m.onnx: ", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(ir::import_onnx_bytes("GIF89a not a model", "m.onnx"), InputError);
  EXPECT_THROW(ir::import_onnx_bytes("", "m.onnx"), InputError);
}

TEST(OnnxImport, UnknownOpsAsCpuOpsTakeTheirDeclaredShapes) {
  OnnxModel m(13);
  m.input("a", {4, 8});
  m.node("FancyOp", {"a"}, {"c"}, "f");
  m.output("c");
  auto* out = m.proto().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
  out->set_elem_type(::onnx::TensorProto::FLOAT);
  out->mutable_shape()->add_dim()->set_dim_value(4);
  out->mutable_shape()->add_dim()->set_dim_value(2);
  const ir::ImportResult r = m.import({ir::UnknownOpPolicy::Cpu, {}});
  EXPECT_EQ(op_named(r.graph, "f").op_class, OpClass::Opaque);
  EXPECT_EQ(out_of(r.graph, "f").shape, (Shape{4, 2}));
  ASSERT_EQ(r.warnings.size(), 1u);
}

} // namespace
} // namespace lightsim::test
