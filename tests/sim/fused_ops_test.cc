// Fused ops on the SystemC modules against hand-computed times: one launch, the anchor's GEMM on its
// engine plus the fused tail's element operations on the unit's elementwise engine (GPU CUDA cores, CPU
// SIMD, the PHU's electronic periphery), against the bytes that cross the group's boundary; fused
// attention on the GPU's tensor cores with FlashAttention's memory traffic for its shared memory.
#include "ir/cost/unit_work.h"
#include "sim/hw/cpu.h"
#include "sim/hw/gpu.h"
#include "sim/hw/kernel.h"
#include "sim/hw/photonic_mac_array.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>

namespace lightsim::sim {
namespace {

using test::sim_machine;

// dense 512 x 108 x 20 with a bias add and a relu fused behind it.
ir::Op dense_add_relu() {
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.fused_tail = {ir::OpClass::Add, ir::OpClass::Relu};
  op.features.gemm_batch = 1;
  op.features.gemm_m = 512;
  op.features.gemm_n = 108;
  op.features.gemm_k = 20;
  op.features.macs = 512.0 * 108 * 20;
  // add: reads 55296 + 108, writes 55296; relu: 55296 and 55296.
  op.features.fused_ops = op.features.elementwise_ops = 55404.0 + 55296.0;
  return op;
}

TEST(FusedOps, GpuRunsTheAnchorOnTensorCoresAndTheTailOnCudaCores) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  Gpu gpu("gpu", hw.units[1]); // 100 SMs x 4 tensor cores, 16 x 8 x 8 tiles in 4 cycles, 1.5 GHz, 2 us launch
  const ir::Op op = dense_add_relu();
  // GEMM: 32 x 14 = 448 tiles in 2 waves of 400, 3 passes of 4 cycles: 24 cycles = 16 ns. Tail: 110700
  // ops on 100 SMs x 128 per cycle x 1.5 GHz = 19200 per ns: 5.765625 ns.
  EXPECT_DOUBLE_EQ(gpu.anchor_ns(op), 16);
  OpWork alone{.op = 0, .lane = 0, .desc = &op, .home_bytes = 0};
  EXPECT_NEAR(gpu.op_ns(alone, hw.memories[1]), 2000 + 16 + 5.765625, 1e-9);
  // The boundary bytes only: data 40960 + weight 8640 + bias 432 + output 221184 = 271216 B at 3000 GB/s
  // + 500 ns latency: memory bound.
  OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 271216};
  EXPECT_NEAR(gpu.op_ns(w, hw.memories[1]), 2000 + 500 + 271216.0 / 3000, 1e-9);
  // As three kernels it pays three launches and moves the 221184-byte intermediate twice more each.
  ir::Op dense = op, add = op, relu = op;
  dense.fused_tail.clear();
  dense.features.fused_ops = dense.features.elementwise_ops = 0;
  add.op_class = ir::OpClass::Add;
  relu.op_class = ir::OpClass::Relu;
  add.fused_tail = relu.fused_tail = {};
  add.features = {.elements_out = 55296, .elements_read = 55404, .elementwise_ops = 55404};
  relu.features = {.elements_out = 55296, .elements_read = 55296, .elementwise_ops = 55296};
  OpWork wd{.op = 0, .lane = 0, .desc = &dense, .home_bytes = 40960 + 8640 + 221184};
  OpWork wa{.op = 1, .lane = 0, .desc = &add, .home_bytes = 221184 + 432 + 221184};
  OpWork wr{.op = 2, .lane = 0, .desc = &relu, .home_bytes = 221184 + 221184};
  EXPECT_LT(gpu.op_ns(w, hw.memories[1]), gpu.op_ns(wd, hw.memories[1]) + gpu.op_ns(wa, hw.memories[1]) +
                                              gpu.op_ns(wr, hw.memories[1]) - 2 * 2000);
}

TEST(FusedOps, PhuRunsTheTailInItsPeripheryBehindTheOptics) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  PhotonicMacArray phu("phu", hw.units[2]); // 2048 ADCs at 10 GS/s: the periphery does 20480 ops per ns
  EXPECT_DOUBLE_EQ(ir::phu_periphery_ops_per_ns(hw.units[2].phu), 20480);
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.fused_tail = {ir::OpClass::Relu};
  op.features = {.macs = 1024.0 * 128 * 128, .gemm_batch = 1, .gemm_m = 1024, .gemm_n = 128, .gemm_k = 128};
  // The optics take 4 x 16.4 = 65.6 ns (modules_test); a relu on the 131072 results 6.4 ns alongside.
  op.features.fused_ops = op.features.elementwise_ops = 131072;
  OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 0};
  EXPECT_NEAR(phu.periphery_ns(op), 6.4, 1e-12);
  EXPECT_NEAR(phu.op_ns(w, hw.memories[2]), 65.6, 1e-9);
  // A tail of 2e6 operations sets the pace: 2e6 / 20480 = 97.65625 ns.
  op.features.fused_ops = op.features.elementwise_ops = 2e6;
  EXPECT_NEAR(phu.op_ns(w, hw.memories[2]), 97.65625, 1e-9);
  // The SRAM moves the boundary bytes: 1 MB at 2000 GB/s + 5 ns.
  OpWork mem{.op = 0, .lane = 0, .desc = &op, .home_bytes = 1e6};
  EXPECT_NEAR(phu.op_ns(mem, hw.memories[2]), 505, 1e-9);
  // What the model's compute cycles say: max(optics, periphery) at the 10 GHz clock.
  EXPECT_NEAR(ir::compute_cycles(hw.units[2], op.features), 976.5625, 1e-9);
}

TEST(FusedOps, CpuCountsTheTailWithTheMacs) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  Cpu cpu("cpu", hw.units[0]); // 48 operations per ns per core, 50 ns dispatch, port 100 GB/s
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.fused_tail = {ir::OpClass::Add};
  op.features = {.macs = 64.0 * 64 * 64, .gemm_batch = 1, .gemm_m = 64, .gemm_n = 64, .gemm_k = 64};
  op.features.fused_ops = op.features.elementwise_ops = 8192;
  OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 49152 + 256};
  EXPECT_NEAR(cpu.op_ns(w), (262144.0 + 8192) / 48 + 50, 1e-9);
}

// Fused attention: 8 heads of 1024 queries and keys, head dim 64, fp16.
ir::Op attention() {
  ir::Op op;
  op.op_class = ir::OpClass::Attention;
  op.fused_tail = {ir::OpClass::Divide, ir::OpClass::Add, ir::OpClass::Softmax};
  op.features = {
      .macs = 8.0 * 1024 * 1024 * 128, .gemm_batch = 8, .gemm_m = 1024, .gemm_n = 1024, .gemm_k = 64};
  op.features.fused_ops = op.features.elementwise_ops = 3 * 8.0 * 1024 * 1024;
  op.features.attention_value_dim = 64;
  op.features.attention_element_bytes = 2;
  return op;
}

TEST(FusedOps, GpuAttentionOnTensorCoresWithFlashAttentionTraffic) {
  fresh_simulation();
  ir::Hardware hw = sim_machine();
  ir::Unit u = hw.units[1];
  u.gpu.shared_memory_per_sm_KiB = 100;
  Gpu gpu("gpu", u);
  const ir::Op op = attention();
  // QK^T: 8 x 64 x 128 = 65536 tiles in 164 waves x 8 passes; AV (1024 x 64 x 1024): 8 x 64 x 8 = 4096
  // tiles in 11 waves x 128 passes: (1312 + 1408) x 4 = 10880 cycles at 1.5 GHz. Scale, mask, softmax:
  // 25165824 ops / 19200 per ns = 1310.72 ns.
  EXPECT_NEAR(gpu.anchor_ns(op), 10880 / 1.5, 1e-9);
  // FlashAttention with 100 KiB = 51200 elements: Bc = 200 keys, Tc = 6 blocks. Per head
  // 2 x (1024 x 128 + 1024 x 64 + 6 x 1024 x 192) + 4 x (2 x 1024 + 4 x 6 x 1024) = 2859008 B; 8 heads.
  EXPECT_DOUBLE_EQ(ir::operand_bytes(u, op.features), 8 * 2859008.0);
  // The replay counts Q, K, V and O once (4 x 1 MiB); the module moves FlashAttention's bytes instead.
  OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 4 * 1048576.0};
  EXPECT_DOUBLE_EQ(memory_traffic(w, u).home_bytes, 8 * 2859008.0);
  EXPECT_NEAR(gpu.op_ns(w, hw.memories[1]), 2000 + 10880 / 1.5 + 1310.72, 1e-6); // compute bound
  // 16 KiB of shared memory: Bc = 32, Tc = 32: 13508608 B per head, memory bound.
  u.gpu.shared_memory_per_sm_KiB = 16;
  Gpu small("small", u);
  EXPECT_NEAR(small.op_ns(w, hw.memories[1]), 2000 + 500 + 8 * 13508608.0 / 3000, 1e-6);
}

} // namespace
} // namespace lightsim::sim
