// Sub-byte precision (issue 25): int4 and int2 as dtypes, packed 8 / bits to a byte, through the graph
// builder (lightsim-graph --dtype int4, --weight-dtype), the TVM import's byte counts and a transfer over a
// link, against hand computation.
#include "ir/dtype.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/transfer.h"
#include "ir/tvm/tvm_import.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/ir/hardware_fixture.h"

#include <gtest/gtest.h>

namespace lightsim {
namespace {

using ir::DType;

TEST(SubByte, DtypesArePackedAndRoundUpToWholeBytes) {
  EXPECT_EQ(ir::parse_dtype("int4"), DType::Int4);
  EXPECT_EQ(ir::parse_dtype("uint2"), DType::UInt2);
  EXPECT_EQ(ir::dtype_bits(DType::Int4), 4u);
  EXPECT_DOUBLE_EQ(ir::dtype_element_bytes(DType::Int4), 0.5);
  EXPECT_DOUBLE_EQ(ir::dtype_element_bytes(DType::Int2), 0.25);
  EXPECT_EQ(ir::dtype_tensor_bytes(DType::Int4, 1001), 501u); // the last byte half used
  EXPECT_EQ(ir::dtype_tensor_bytes(DType::Int2, 1001), 251u);
  EXPECT_EQ(ir::dtype_tensor_bytes(DType::Int8, 1001), 1001u);
  EXPECT_EQ(ir::dtype_tensor_bytes(DType::Bool, 1001), 1001u); // uint1: one per byte, as TVM stores it
  EXPECT_FALSE(ir::dtype_tensor_bytes(DType::Float32, ~std::uint64_t{0}).has_value());
  EXPECT_EQ(ir::dtype_storage_bytes(DType::Int4), 1u); // one element on its own
}

// lightsim-graph's DeiT-T at int4, imported: every int4 tensor holds ceil(elements / 2) bytes, and the qkv
// weight (576 x 192) crosses a PCIe link as 55296 bytes, half its int8 size.
TEST(SubByte, Int4GraphBytesAndTheirTransferOverALink) {
  ir::graphgen::GraphRequest r = test::request("deit-t", ir::graphgen::Phase::Prefill, 0);
  r.dtype = DType::Int4;
  const ir::Graph g = ir::import_tvm_graph_text(test::generate_json_text(r), "deit-t-int4.json").graph;
  int int4_tensors = 0;
  const ir::Tensor* qkv = nullptr;
  for (const ir::Tensor& t : g.tensors) {
    if (t.dtype != DType::Int4) continue;
    ++int4_tensors;
    EXPECT_EQ(t.bytes, (t.elements + 1) / 2);
    if (t.elements == 576 * 192) qkv = &t; // the qkv weight (no activation has that size)
  }
  EXPECT_GT(int4_tensors, 100);
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->bytes, 55296u);

  const ir::Hardware hw = ir::hardware_from_json(test::small_machine(), "small.json");
  const ir::TransferModel tm(hw);
  const int dram = hw.find_memory("dram0"), hbm = hw.find_memory("hbm0");
  // PCIe gen5 x16: 216 packets of 256 bytes, 24 header bytes each, 1000 ns latency.
  const double bw = 32.0 * 16 * 128 / 130 / 8;
  EXPECT_NEAR(tm.cost(dram, hbm, qkv->bytes).time_s, (1000 + (55296 + 24 * 216) / bw) * 1e-9, 1e-15);
}

TEST(SubByte, MixedPrecisionKeepsActivationsAtTheirWidth) {
  ir::graphgen::GraphRequest r = test::request("deit-t", ir::graphgen::Phase::Prefill, 0);
  r.dtype = DType::Int8;
  r.weight_dtype = DType::Int4;
  const ir::Graph g = ir::import_tvm_graph_text(test::generate_json_text(r), "deit-t-mixed.json").graph;
  bool int4_weight = false, int8_activation = false;
  for (const ir::Op& op : g.ops) {
    if (op.op_class != ir::OpClass::BatchMatmul && op.op_class != ir::OpClass::Dense) continue;
    const ir::Tensor& a = g.tensors[static_cast<std::size_t>(op.inputs[0])];
    const ir::Tensor& w = g.tensors[static_cast<std::size_t>(op.inputs[1])];
    int8_activation = int8_activation || a.dtype == DType::Int8;
    int4_weight = int4_weight || w.dtype == DType::Int4;
    EXPECT_EQ(op.features.gemm_dtype, a.dtype); // the GEMM computes at its activations' width
  }
  EXPECT_TRUE(int4_weight);
  EXPECT_TRUE(int8_activation);
}

} // namespace
} // namespace lightsim
