// Hardware and graphs built directly as structs for the sim tests (no config loader needed): a host CPU
// with DRAM, a GPU with HBM and a PHU with a small SRAM that spills to DRAM; each card on its own PCIe
// link to DRAM.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lightsim::test {

inline ir::Hardware sim_machine(double sram_bytes = 32.0 * 1024 * 1024) {
  ir::Hardware hw;
  hw.name = "sim-test";
  ir::Memory dram{.name = "dram0",
                  .kind = ir::MemoryKind::Dram,
                  .capacity_bytes = 64e9,
                  .bandwidth_GBps = 100,
                  .latency_ns = 100,
                  .banks = 16,
                  .energy_pj_per_byte = 20,
                  .static_power_w = 5};
  ir::Memory hbm{.name = "hbm0",
                 .kind = ir::MemoryKind::Hbm,
                 .capacity_bytes = 80e9,
                 .bandwidth_GBps = 3000,
                 .latency_ns = 500,
                 .banks = 80,
                 .energy_pj_per_byte = 4,
                 .static_power_w = 10};
  ir::Memory sram{.name = "sram0",
                  .kind = ir::MemoryKind::Sram,
                  .capacity_bytes = sram_bytes,
                  .bandwidth_GBps = 2000,
                  .latency_ns = 5,
                  .banks = 32,
                  .energy_pj_per_byte = 1,
                  .static_power_w = 1,
                  .spill_to = 0};
  hw.memories = {dram, hbm, sram};

  const units::CpuParams cpu_params{
      .vector_width = 16, .fma = true, .dispatch_ns = 50, .memory_port_GBps = 100, .dynamic_power_w = 20};
  ir::Unit cpu{.name = "cpu0",
               .kind = &units::cpu_kind(),
               .cores = 4,
               .clock_ghz = 3,
               .static_power_w = 10,
               .memory = 0,
               .model = 0,
               .params = ir::KindParams(cpu_params)};
  // 100 SMs; fp32 on the CUDA cores (64 MACs per cycle per SM), fp16 / int8 on the tensor cores; one
  // 128 x 128 CTA tile stepping 64 bytes of k; shared memory never the bound; efficiencies 1.
  units::GpuParams g;
  g.sms = 100;
  g.cuda_core_macs_per_cycle_per_sm[static_cast<std::size_t>(units::GemmPrecision::Float32)] = 64;
  g.tensor_core_macs_per_cycle_per_sm[static_cast<std::size_t>(units::GemmPrecision::Float16)] = 1024;
  g.tensor_core_macs_per_cycle_per_sm[static_cast<std::size_t>(units::GemmPrecision::Int8)] = 2048;
  g.cta_tiles = {{.m = 128, .n = 128, .k_bytes = 64, .warp_m = 64, .warp_n = 64, .stages = 3}};
  g.shared_memory_per_sm_KiB = 164;
  g.shared_memory_bytes_per_cycle_per_sm = 1024;
  g.launch_latency_ns = 2000;
  g.elementwise_flops_per_cycle_per_sm = 128;
  g.tensor_core_pj_per_mac = 2;
  g.cuda_core_pj_per_op = 10;
  g.memory_bandwidth_GBps = hbm.bandwidth_GBps;
  g.memory_latency_ns = hbm.latency_ns;
  ir::Unit gpu{.name = "gpu0",
               .kind = &units::gpu_kind(),
               .cores = 1,
               .clock_ghz = 1.5,
               .static_power_w = 50,
               .memory = 1,
               .model = 0,
               .params = ir::KindParams(g)};
  units::PhuParams p;
  p.rows = 64;
  p.cols = 64;
  p.wdm_channels = 16;
  p.weight_reload_ns = 10;
  // 10 GS/s at the PHU's 8 bits (90 GHz / 9); 1 pJ and 3 pJ per conversion (FOM x 2^8).
  p.dac = {.count = 2048, .bit_clock_ghz = 90, .fom_fj_per_step = 1000.0 / 256, .bits = {}};
  p.adc = {.count = 2048, .bit_clock_ghz = 90, .fom_fj_per_step = 3000.0 / 256, .bits = {}};
  p.laser_power_w = 1;
  p.mac_energy_pj = 0.02;
  ir::Unit phu{.name = "phu0",
               .kind = &units::phu_kind(),
               .cores = 2,
               .clock_ghz = 10,
               .static_power_w = 5,
               .memory = 2,
               .model = 0,
               .params = ir::KindParams(p)};
  hw.units = {cpu, gpu, phu};

  ir::Link gpu_link{.name = "pcie-gpu",
                    .kind = ir::LinkKind::Pcie,
                    .endpoints = {0, 1},
                    .bandwidth_GBps = 32,
                    .latency_ns = 1000,
                    .max_payload_bytes = 256,
                    .header_bytes = 24,
                    .energy_pj_per_byte = 40};
  ir::Link phu_link{.name = "pcie-phu",
                    .kind = ir::LinkKind::Pcie,
                    .endpoints = {0, 2},
                    .bandwidth_GBps = 32,
                    .latency_ns = 800,
                    .max_payload_bytes = 256,
                    .header_bytes = 24,
                    .energy_pj_per_byte = 40};
  hw.links = {gpu_link, phu_link};
  hw.models.resize(1);
  return hw;
}

// A graph built op by op; tensors are float32.
struct GraphBuilder {
  ir::Graph g;
  ir::TensorId tensor(std::vector<std::int64_t> shape, ir::OpId producer) {
    ir::Tensor t;
    t.shape = std::move(shape);
    t.elements = 1;
    for (std::int64_t d : t.shape)
      t.elements *= static_cast<std::uint64_t>(d);
    t.bytes = t.elements * 4;
    t.producer = producer;
    g.tensors.push_back(t);
    return static_cast<ir::TensorId>(g.tensors.size() - 1);
  }
  ir::OpId op(ir::OpClass cls, std::vector<ir::TensorId> inputs, std::vector<std::int64_t> out_shape) {
    const auto id = static_cast<ir::OpId>(g.ops.size());
    ir::Op o;
    o.name = std::string(cls == ir::OpClass::Input ? "in" : "op") + std::to_string(id);
    o.op_class = cls;
    o.inputs = std::move(inputs);
    o.outputs = {tensor(std::move(out_shape), id)};
    for (ir::TensorId t : o.inputs) {
      o.features.elements_in += static_cast<double>(g.tensors[t].elements);
      o.features.bytes_in += static_cast<double>(g.tensors[t].bytes);
      o.features.elements_read += static_cast<double>(g.tensors[t].elements);
      o.features.bytes_read += static_cast<double>(g.tensors[t].bytes);
    }
    o.features.elements_out = static_cast<double>(g.tensors[o.outputs[0]].elements);
    o.features.bytes_out = static_cast<double>(g.tensors[o.outputs[0]].bytes);
    if (cls == ir::OpClass::Dense) { // data [m, k] x weight [n, k]
      const auto& x = g.tensors[o.inputs[0]].shape;
      const auto& w = g.tensors[o.inputs[1]].shape;
      o.features.gemm_batch = 1;
      o.features.gemm_m = x[0];
      o.features.gemm_k = x[1];
      o.features.gemm_n = w[0];
      o.features.macs = static_cast<double>(x[0] * x[1] * w[0]);
    }
    g.ops.push_back(std::move(o));
    return id;
  }
  ir::TensorId out(ir::OpId op) const { return g.ops[op].outputs[0]; }
};

} // namespace lightsim::test
