// A small machine built in code (one CPU, one GPU, one PHU, one memory) and synthetic ops for the
// retrain tests: the observed times come from known formulas, so the fit's answer is known.
#pragma once

#include "ir/hardware/hardware.h"
#include "sim/retrain/retrain.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"

#include <algorithm>
#include <cstdint>

namespace lightsim::test {

inline ir::Hardware small_machine() {
  ir::Hardware hw;
  hw.name = "small";
  ir::Memory mem;
  mem.name = "dram0";
  mem.bandwidth_GBps = 100;
  mem.capacity_bytes = 1 << 30;
  mem.latency_ns = 50;
  hw.memories.push_back(mem);
  ir::ArithmeticModel cpu_model, gpu_model, phu_model;
  cpu_model.name = "cpu-model";
  gpu_model.name = "gpu-model";
  phu_model.name = "phu-model";
  ir::ModelPiece old; // a deliberately wrong starting point
  old.time_s.intercept = 1e-6;
  old.time_s.coef[static_cast<std::size_t>(ir::Feature::ElementsOut)] = 1e-9;
  old.energy_j[ir::EnergyComponent::Compute].intercept = 1e-9;
  for (ir::OpClass c : {ir::OpClass::Add, ir::OpClass::Exp, ir::OpClass::Dense, ir::OpClass::Nop}) {
    cpu_model.classes[static_cast<std::size_t>(c)].pieces = {old};
    gpu_model.classes[static_cast<std::size_t>(c)].pieces = {old};
  }
  phu_model.classes[static_cast<std::size_t>(ir::OpClass::Dense)].pieces = {old};
  hw.models = {cpu_model, gpu_model, phu_model};

  ir::Unit cpu;
  cpu.name = "cpu0";
  cpu.kind = &units::cpu_kind();
  cpu.params = units::cpu_kind().default_params();
  cpu.clock_ghz = 3;
  cpu.as<units::CpuParams>().vector_width = 8;
  cpu.as<units::CpuParams>().memory_port_GBps = 100;
  cpu.memory = 0;
  cpu.model = 0;
  ir::Unit gpu;
  gpu.name = "gpu0";
  gpu.kind = &units::gpu_kind();
  gpu.params = units::gpu_kind().default_params();
  gpu.clock_ghz = 1.5;
  gpu.as<units::GpuParams>().sms =
      4; // fp32 GEMMs on the CUDA cores, 64 x 64 CTA tiles of 16 fp32 k-elements per step
  gpu.as<units::GpuParams>()
      .cuda_core_macs_per_cycle_per_sm[static_cast<std::size_t>(units::GemmPrecision::Float32)] = 64;
  gpu.as<units::GpuParams>().cta_tiles = {
      {.m = 64, .n = 64, .k_bytes = 64, .warp_m = 32, .warp_n = 32, .stages = 2}};
  gpu.as<units::GpuParams>().shared_memory_per_sm_KiB = 64;
  gpu.as<units::GpuParams>().shared_memory_bytes_per_cycle_per_sm = 128;
  gpu.as<units::GpuParams>().launch_latency_ns = 2000;
  gpu.as<units::GpuParams>().elementwise_flops_per_cycle_per_sm = 64;
  gpu.as<units::GpuParams>().memory_bandwidth_GBps = mem.bandwidth_GBps;
  gpu.as<units::GpuParams>().memory_latency_ns = mem.latency_ns;
  gpu.memory = 0;
  gpu.model = 1;
  ir::Unit phu;
  phu.name = "phu0";
  phu.kind = &units::phu_kind();
  phu.params = units::phu_kind().default_params();
  phu.clock_ghz = 10;
  phu.as<units::PhuParams>().rows = phu.as<units::PhuParams>().cols = 32;
  phu.as<units::PhuParams>().wdm_channels = 8;
  phu.as<units::PhuParams>().weight_reload_ns = 10;
  // 5 GS/s at the PHU's 8 bits (45 GHz / 9); 1 pJ and 2 pJ per conversion (FOM x 2^8).
  phu.as<units::PhuParams>().dac = {
      .count = 64, .bit_clock_ghz = 45, .fom_fj_per_step = 1000.0 / 256, .bits = {}};
  phu.as<units::PhuParams>().adc = {
      .count = 64, .bit_clock_ghz = 45, .fom_fj_per_step = 2000.0 / 256, .bits = {}};
  phu.memory = 0;
  phu.model = 2;
  hw.units = {cpu, gpu, phu};
  return hw;
}

// An elementwise op of n float32 elements in (two inputs) and n out.
inline ir::Op elementwise_op(ir::OpClass c, double n) {
  ir::Op op;
  op.op_class = c;
  op.features.elements_in = 2 * n;
  op.features.elements_out = n;
  op.features.bytes_in = 8 * n;
  op.features.elements_read = op.features.elements_in;
  op.features.bytes_read = op.features.bytes_in;
  op.features.bytes_out = 4 * n;
  op.features.max_dim = n;
  return op;
}

// A dense op: [m, k] x [n, k] in float32.
inline ir::Op dense_op(std::int64_t m, std::int64_t n, std::int64_t k) {
  ir::Op op;
  op.op_class = ir::OpClass::Dense;
  ir::OpFeatures& f = op.features;
  f.gemm_batch = 1;
  f.gemm_m = m;
  f.gemm_n = n;
  f.gemm_k = k;
  f.macs = static_cast<double>(m * n * k);
  f.elements_in = static_cast<double>(m * k + n * k);
  f.elements_out = static_cast<double>(m * n);
  f.bytes_in = 4 * f.elements_in;
  f.elements_read = f.elements_in;
  f.bytes_read = f.bytes_in;
  f.bytes_out = 4 * f.elements_out;
  f.max_dim = static_cast<double>(std::max({m, n, k}));
  return op;
}

inline double feature(const fit::Sample& s, ir::Feature f) {
  return s.features[static_cast<std::size_t>(f)];
}

} // namespace lightsim::test
