// Fused ops on the SystemC modules against hand-computed times: one launch, the anchor's GEMM on its
// engine plus the fused tail's element operations on the unit's elementwise engine (GPU CUDA cores, CPU
// SIMD, the PHU's electronic periphery), against the bytes that cross the group's boundary; fused
// attention on the GPU's tensor cores with FlashAttention's memory traffic for its shared memory.
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "sim/hw/kernel.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_module.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/gpu/gpu_module.h"
#include "sim/units/phu/photonic_mac_array.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::sim {
namespace {

using test::sim_machine;

// dense 512 x 108 x 20 with a bias add and a relu fused behind it.
ir::Op dense_add_relu() {
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.features.fused_tail = {ir::OpClass::Add, ir::OpClass::Relu};
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
  Gpu gpu("gpu", hw.units[1]); // 100 SMs, 128 CUDA-core ops per cycle per SM, 1.5 GHz, 2 us launch
  const ir::Op op = dense_add_relu();
  // One kernel: the GEMM kernel the kernel model picks (gpu_test.cc checks those by hand), then the tail's
  // 110700 ops on 100 SMs x 128 per cycle x 1.5 GHz = 19200 per ns: 5.765625 ns.
  const double gemm_ns = gpu.gemm_kernel(units::gpu_gemm_shape(op.features)).kernel_ns;
  EXPECT_GT(gemm_ns, 2000);
  OpWork alone{.op = 0, .lane = 0, .desc = &op, .home_bytes = 0};
  EXPECT_NEAR(gpu.kernel_ns(alone), gemm_ns + 5.765625, 1e-9);
  // Energy: the MACs on the tensor cores (2 pJ), the tail on the CUDA cores (10 pJ per op).
  const ir::EnergyBreakdown e = gpu.op_energy(alone, hw.memories[1]);
  EXPECT_DOUBLE_EQ(e[units::gpu_features().tensor_core], 512.0 * 108 * 20 * 2e-12);
  EXPECT_DOUBLE_EQ(e[units::gpu_features().cuda_core], 110700 * 10e-12);
  // As three kernels it pays three launches and moves the 221184-byte intermediate twice more each.
  OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 271216};
  ir::Op dense = op, add = op, relu = op;
  dense.features.fused_tail.clear();
  dense.features.fused_ops = dense.features.elementwise_ops = 0;
  add.op_class = ir::OpClass::Add;
  relu.op_class = ir::OpClass::Relu;
  add.features.fused_tail = relu.features.fused_tail = {};
  add.features = {.elements_out = 55296, .elements_read = 55404, .elementwise_ops = 55404};
  relu.features = {.elements_out = 55296, .elements_read = 55296, .elementwise_ops = 55296};
  OpWork wd{.op = 0, .lane = 0, .desc = &dense, .home_bytes = 40960 + 8640 + 221184};
  OpWork wa{.op = 1, .lane = 0, .desc = &add, .home_bytes = 221184 + 432 + 221184};
  OpWork wr{.op = 2, .lane = 0, .desc = &relu, .home_bytes = 221184 + 221184};
  EXPECT_LT(gpu.op_ns(w), gpu.op_ns(wd) + gpu.op_ns(wa) + gpu.op_ns(wr) - 2 * 2000);
}

TEST(FusedOps, PhuRunsTheTailInItsPeripheryBehindTheOptics) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  PhotonicMacArray phu("phu", hw.units[2]); // 2048 ADCs at 10 GS/s: the periphery does 20480 ops per ns
  EXPECT_DOUBLE_EQ(units::phu_periphery_ops_per_ns(hw.units[2].as<units::PhuParams>()), 20480);
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.features.fused_tail = {ir::OpClass::Relu};
  op.features = {.macs = 1024.0 * 128 * 128, .gemm_batch = 1, .gemm_m = 1024, .gemm_n = 128, .gemm_k = 128};
  // The optics take 4 x 16.4 = 65.6 ns (modules_test); a relu on the 131072 results 6.4 ns alongside.
  op.features.fused_ops = op.features.elementwise_ops = 131072;
  OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 0};
  EXPECT_NEAR(phu.periphery_ns(op), 6.4, 1e-12);
  EXPECT_NEAR(phu.op_ns(w, hw.memories[2]), phu.gemm(1024, 128, 128, 1).busy_ns, 1e-9);
  // A tail of 2e6 operations sets the pace: 2e6 / 20480 = 97.65625 ns.
  op.features.fused_ops = op.features.elementwise_ops = 2e6;
  EXPECT_NEAR(phu.op_ns(w, hw.memories[2]), 97.65625, 1e-9);
  // The SRAM moves the boundary bytes: 1 MB at 2000 GB/s + 5 ns.
  OpWork mem{.op = 0, .lane = 0, .desc = &op, .home_bytes = 1e6};
  EXPECT_NEAR(phu.op_ns(mem, hw.memories[2]), 505, 1e-9);
  // What the model's compute cycles say: max(optics, periphery) at the 10 GHz clock.
  EXPECT_NEAR(ir::feature_value(ir::Feature::ComputeCycles, op.features, hw.units[2]), 976.5625, 1e-9);
}

TEST(FusedOps, CpuCountsTheTailWithTheMacs) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  const ir::Unit& u = hw.units[0];
  Cpu cpu("cpu", u);
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  op.features = {.macs = 64.0 * 64 * 64, .gemm_batch = 1, .gemm_m = 64, .gemm_n = 64, .gemm_k = 64};
  op.features.fused_tail = {ir::OpClass::Add};
  op.features.fused_ops = op.features.elementwise_ops = 8192;
  ir::Op bare = op;
  bare.features.fused_tail.clear();
  bare.features.fused_ops = bare.features.elementwise_ops = 0;
  OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 49152 + 256};
  OpWork wb{.op = 0, .lane = 0, .desc = &bare, .home_bytes = 49152 + 256};
  // The tail adds its 8192 element operations at the add's instructions per element, vector_width lanes,
  // one core, to the GEMM's time (pack, then compute, then the tail on the results).
  const double tail_ns =
      8192.0 / u.as<units::CpuParams>().vector_width *
      u.as<units::CpuParams>().elementwise_ops[static_cast<std::size_t>(ir::OpClass::Add)] / u.clock_ghz;
  EXPECT_GT(tail_ns, 0);
  EXPECT_NEAR(cpu.op_ns(w) - cpu.op_ns(wb), tail_ns, 1e-9);
}

// A memory-light elementwise anchor with tails of the same size but different classes: the module times each
// tail member at its class's instructions per element, and the arithmetic model's CPU feature tail_cycles
// counts the same cycles, so that one coefficient per anchor fits every tail (an exp costs more than an add).
TEST(FusedOps, CpuTailCyclesFeatureIsTheModulesTail) {
  fresh_simulation();
  ir::Hardware hw = sim_machine();
  ir::Unit& u = hw.units[0];
  u.as<units::CpuParams>().elementwise_ops[static_cast<std::size_t>(ir::OpClass::Exp)] = 10;
  u.as<units::CpuParams>().elementwise_ops[static_cast<std::size_t>(ir::OpClass::Add)] = 1;
  Cpu cpu("cpu", u);
  auto chain = [](std::vector<ir::OpClass> tail) {
    ir::Op op;
    op.op_class = ir::OpClass::Multiply;
    op.features = {.elements_in = 4096, .elements_out = 4096, .elements_read = 4096};
    op.features.fused_ops = 4096.0 * static_cast<double>(tail.size());
    op.features.elementwise_ops = 4096 + op.features.fused_ops;
    op.features.fused_tail = std::move(tail);
    return op;
  };
  const ir::Op bare = chain({}), cheap = chain({ir::OpClass::Add, ir::OpClass::Add}),
               dear = chain({ir::OpClass::Exp, ir::OpClass::Add});
  auto tail_ns = [&](const ir::Op& op) {
    OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 0};
    OpWork wb{.op = 0, .lane = 0, .desc = &bare, .home_bytes = 0};
    return cpu.op_ns(w) - cpu.op_ns(wb);
  };
  const auto k = static_cast<std::size_t>(units::cpu_features().tail_cycles);
  for (const ir::Op* op : {&cheap, &dear}) {
    const double cycles = ir::feature_values(op->features, u)[k];
    EXPECT_NEAR(cycles / u.clock_ghz, tail_ns(*op), 1e-9);
  }
  // By hand: 4096 elements per member over vector_width lanes, x 1 (add) or 10 (exp) instructions.
  const double lanes = u.as<units::CpuParams>().vector_width;
  EXPECT_DOUBLE_EQ(ir::feature_values(cheap.features, u)[k], 2 * 4096 / lanes);
  EXPECT_DOUBLE_EQ(ir::feature_values(dear.features, u)[k], 11 * 4096 / lanes);
  EXPECT_EQ(ir::feature_values(bare.features, u)[k], 0);
}

// Fused attention: 8 heads of 1024 queries and keys, head dim 64, fp16.
ir::Op attention() {
  ir::Op op;
  op.op_class = ir::OpClass::Attention;
  op.features.fused_tail = {ir::OpClass::Divide, ir::OpClass::Add, ir::OpClass::Softmax};
  op.features = {
      .macs = 8.0 * 1024 * 1024 * 128, .gemm_batch = 8, .gemm_m = 1024, .gemm_n = 1024, .gemm_k = 64};
  op.features.fused_ops = op.features.elementwise_ops = 3 * 8.0 * 1024 * 1024;
  op.features.attention_value_dim = 64;
  op.features.attention_element_bytes = 2;
  op.features.gemm_dtype = ir::DType::Float16;
  return op;
}

TEST(FusedOps, GpuAttentionOnTensorCoresWithFlashAttentionTraffic) {
  fresh_simulation();
  ir::Hardware hw = sim_machine();
  ir::Unit u = hw.units[1];
  u.as<units::GpuParams>().shared_memory_per_sm_KiB = 100;
  Gpu gpu("gpu", u);
  const ir::Op op = attention();
  // FlashAttention with 100 KiB = 51200 elements: Bc = 200 keys, Tc = 6 blocks. Per head
  // 2 x (1024 x 128 + 1024 x 64 + 6 x 1024 x 192) + 4 x (2 x 1024 + 4 x 6 x 1024) = 2859008 B; 8 heads.
  EXPECT_DOUBLE_EQ(ir::operand_bytes(u, op.features), 8 * 2859008.0);
  // The replay counts Q, K, V and O once (4 x 1 MiB); the module moves FlashAttention's bytes instead.
  OpWork w{.op = 0, .lane = 0, .desc = &op, .home_bytes = 4 * 1048576.0};
  EXPECT_DOUBLE_EQ(memory_traffic(w, u).home_bytes, 8 * 2859008.0);
  // One kernel on the tensor cores: QK^T (8 x 1024 x 1024 x 64) streaming those bytes, AV (8 x 1024 x 64 x
  // 1024) on chip; scale, mask, softmax: 25165824 ops / 19200 per ns = 1310.72 ns on the CUDA cores.
  const units::GpuAttentionShapes s = units::gpu_attention_shapes(u, op.features);
  EXPECT_EQ(s.scores.m, 1024);
  EXPECT_EQ(s.scores.n, 1024);
  EXPECT_EQ(s.scores.k, 64);
  EXPECT_DOUBLE_EQ(s.scores.memory_bytes, 8 * 2859008.0);
  EXPECT_EQ(s.values.n, 64);
  EXPECT_EQ(s.values.k, 1024);
  EXPECT_DOUBLE_EQ(s.values.memory_bytes, 0);
  const double products_ns = (gpu.gemm_kernel(s.scores).cycles_after_launch(1.5) +
                              gpu.gemm_kernel(s.values).cycles_after_launch(1.5)) /
                             1.5;
  EXPECT_NEAR(gpu.kernel_ns(w), 2000 + products_ns + 1310.72, 1e-6);
  // The arithmetic model's compute cycles are the same kernel's (beyond its launch).
  EXPECT_NEAR(ir::feature_value(ir::Feature::ComputeCycles, op.features, u) / 1.5, products_ns + 1310.72,
              1e-6);
  // Energy: both products' MACs on the tensor cores, FlashAttention's bytes on the HBM.
  const ir::EnergyBreakdown e = gpu.op_energy(w, hw.memories[1]);
  EXPECT_DOUBLE_EQ(e[units::gpu_features().tensor_core], 8.0 * 1024 * 1024 * 128 * 2e-12);
  EXPECT_NEAR(e[ir::memory_component(hw.memories[1].kind)],
              8 * 2859008.0 * hw.memories[1].energy_pj_per_byte * 1e-12, 1e-15);
  // 16 KiB of shared memory: Bc = 32, Tc = 32: 13508608 B per head, more traffic, a longer kernel.
  u.as<units::GpuParams>().shared_memory_per_sm_KiB = 16;
  EXPECT_DOUBLE_EQ(ir::operand_bytes(u, op.features), 8 * 13508608.0);
  EXPECT_GT(ir::feature_value(ir::Feature::ComputeCycles, op.features, u) / 1.5, products_ns + 1310.72);
}

} // namespace
} // namespace lightsim::sim
