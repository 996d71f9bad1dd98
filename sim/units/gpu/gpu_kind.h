// The GPU unit kind (`kind: gpu`): SMs with tensor and CUDA cores, GEMMs as tiled kernels in waves,
// streaming and row kernels, launch latency and gaps, HBM. Its descriptor (ir::UnitKind) answers for it
// everywhere outside this folder; register_gpu_kind() registers it with its SystemC module
// (sim/units/kinds.def lists it).
//
// It is not the timing: gpu_kernel.h times kernels, gpu_module.h runs them in the replay.
#pragma once

#include "ir/hardware/unit_kind.h"

namespace lightsim {

void register_gpu_kind();

namespace units {

// What the GPU kind adds to the arithmetic model (configs/README.md, "Models", "Energy").
struct GpuFeatures {
  ir::Feature tile_pass_waves;      // main-loop steps one SM runs (GpuGemmKernel::steps_per_sm)
  ir::Feature row_kernel_cycles;    // a row kernel's cycles beyond its launch (0 for every other op)
  ir::Feature row_reread_bytes;     // bytes a multi-pass softmax / norm reads again (gpu_reread_bytes)
  ir::Feature memory_operand_bytes; // operand_bytes streamed from memory (all of them without an L2)
  ir::Feature l2_operand_bytes;     // operand_bytes streamed through the L2 (gpu_l2_bytes)
  ir::Feature memory_round_trip_us; // a streaming kernel's wait beyond the L2's round trip (gpu_stream_ns)
  ir::Feature stream_cycles;        // a streaming kernel's stream (gpu_stream_ns) in cycles; 0 for GEMMs
  ir::Feature compute_stream_ratio; // compute_cycles / stream_cycles: which side of its roofline a kernel is
  ir::EnergyComponent tensor_core;  // tensor-core MACs
  ir::EnergyComponent cuda_core;    // CUDA-core element operations
};
// The registered GPU kind and its features (std::logic_error before register_gpu_kind()).
const ir::UnitKind& gpu_kind();
const GpuFeatures& gpu_features();

} // namespace units
} // namespace lightsim
