#include "sim/units/gpu/gpu_kind.h"

#include "ir/cost/unit_work.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/unit_kind_of.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_module.h"
#include "sim/units/gpu/gpu_params.h"
#include "sim/units/registration.h"

#include <algorithm>

namespace lightsim {
namespace units {
namespace {

using ir::Feature;

constexpr std::size_t idx(Feature f) {
  return static_cast<std::size_t>(f);
}

class GpuKind final : public ir::UnitKindOf<GpuParams> {
public:
  GpuKind()
      : UnitKindOf(gpu_fields()),
        features_{
            ir::register_feature(
                "tile_pass_waves",
                "GPU: main-loop steps one SM runs in the chosen GEMM kernel (waves of CTA tiles x steps per "
                "CTA; a stream-K kernel's steps per SM)"),
            ir::register_feature(
                "row_kernel_cycles",
                "GPU: cycles of a row kernel beyond its launch (its waves of access steps, or "
                "its CUDA-core work when that is longer); 0 for every other op"),
            ir::register_feature(
                "row_reread_bytes",
                "GPU: bytes a softmax or norm whose rows exceed one_pass_row_elements reads again "
                "after its first pass; 0 for every other op"),
            ir::register_feature("memory_operand_bytes",
                                 "GPU: operand bytes streamed from the unit's memory, not the L2"),
            ir::register_feature("l2_operand_bytes",
                                 "GPU: operand bytes streamed through the L2 (activations that fit in "
                                 "the L2's reach); 0 without an L2"),
            ir::register_feature("memory_round_trip_us",
                                 "GPU: how much longer than the L2's the round trip of a streaming kernel "
                                 "that reaches the unit's memory is, in us (0 when the L2 serves every byte "
                                 "or has no latency of its own)"),
            ir::register_feature("stream_cycles",
                                 "GPU: cycles a streaming (non-GEMM, non-row) kernel moves its operands: the "
                                 "round trip, the bytes from memory at stream_memory_efficiency and the L2's "
                                 "at its bandwidth, a multi-pass row's re-reads included; 0 for others"),
            ir::register_feature("compute_stream_ratio",
                                 "GPU: compute_cycles / stream_cycles: which side of the roofline a "
                                 "streaming kernel is on"),
            ir::register_energy_component("tensor_core", "GPU tensor-core MACs"),
            ir::register_energy_component("cuda_core", "GPU CUDA-core (non-GEMM) element operations")} {}

  std::string_view name() const override { return "gpu"; }
  std::string_view summary() const override {
    return "a GPU: SMs with tensor and CUDA cores, GEMMs as tiled kernels in waves, kernel launches and gaps";
  }
  std::string_view lane_noun() const override { return "stream"; }
  bool launches_kernels() const override { return true; }

  // The kernel model streams operands from the unit's memory.
  void bind(ir::Unit& unit, const ir::Memory& home) const override {
    GpuParams& p = unit.as<GpuParams>();
    p.memory_bandwidth_GBps = home.bandwidth_GBps;
    p.memory_latency_ns = home.latency_ns;
  }

  void fill_features(const ir::Unit& unit, const ir::OpFeatures& op, ir::FeatureValues& x) const override {
    x[idx(Feature::ComputeCycles)] = gpu_compute_cycles(unit, op);
    if (ir::has_gemm_view(op)) {
      const GpuGemmKernel g = gpu_gemm_kernel(unit, gpu_gemm_shape(op));
      x[idx(features_.tile_pass_waves)] = static_cast<double>(g.steps_per_sm());
    }
    const double bytes = ir::operand_bytes(unit, op);
    const double l2 = gpu_l2_bytes(unit.as<GpuParams>(), bytes, op.param_bytes);
    x[idx(features_.memory_operand_bytes)] = bytes - l2;
    x[idx(features_.l2_operand_bytes)] = l2;
    x[idx(features_.memory_round_trip_us)] = gpu_memory_round_trip_ns(unit.as<GpuParams>(), bytes, l2) / 1000;
    x[idx(features_.row_reread_bytes)] = gpu_reread_bytes(unit.as<GpuParams>(), op);
    // A streaming kernel takes the larger of its CUDA cores' time and its stream (Gpu::kernel_ns), the stream
    // at an element kernel's efficiency (a kernel that reduces along rows streams slower: its entry's turn
    // is above 1).
    if (!ir::has_gemm_view(op) && op.row_kernel.rows == 0) {
      const GpuParams& gpu = unit.as<GpuParams>();
      const double reread = x[idx(features_.row_reread_bytes)];
      x[idx(features_.stream_cycles)] =
          gpu_stream_ns(gpu, gpu_stream_efficiency(gpu, ir::OpClass::Elementwise), bytes + reread,
                        l2 > 0 ? l2 + reread : 0) *
          unit.clock_ghz;
      x[idx(features_.compute_stream_ratio)] =
          x[idx(Feature::ComputeCycles)] / std::max(1.0, x[idx(features_.stream_cycles)]);
    }
    if (op.row_kernel.rows > 0) // the module's time: max(CUDA cores, steps)
      x[idx(features_.row_kernel_cycles)] = std::max(
          x[idx(Feature::ComputeCycles)],
          gpu_row_kernel(unit, op.row_kernel, op.bytes_read + op.bytes_out).main_ns * unit.clock_ghz);
  }
  std::vector<Feature> own_features() const override {
    return {features_.tile_pass_waves,      features_.row_kernel_cycles,   features_.row_reread_bytes,
            features_.memory_operand_bytes, features_.l2_operand_bytes,    features_.memory_round_trip_us,
            features_.stream_cycles,        features_.compute_stream_ratio};
  }
  std::vector<ir::EnergyComponent> own_energy_components() const override {
    return {features_.tensor_core, features_.cuda_core};
  }

  ir::FitFeatures fit_features(ir::OpClass op_class) const override {
    ir::FitFeatures set = ir::default_fit_features(op_class);
    if (set.time.empty()) return set;
    // Operand bytes stream at two rates: the memory's and, for activations that fit, the L2's.
    std::erase(set.time, Feature::OperandBytes);
    set.time.push_back(features_.memory_operand_bytes);
    set.time.push_back(features_.l2_operand_bytes);
    // A GPU's row kernels (--fuse vllm) are timed by their waves of access steps (row_kernel_cycles, 0 for
    // every other op): a term of its own, and a split that separates them from the streaming kernels.
    // A streaming kernel whose operands are all in the L2 waits the L2's round trip, one that reaches
    // memory the memory's (memory_round_trip_us: the difference, 0 or a constant). It takes the larger of
    // its CUDA cores' cycles and that stream, so its pieces turn on their ratio (compute_stream_ratio).
    if (!ir::is_gemm_like(op_class)) {
      set.time.push_back(features_.row_kernel_cycles);
      set.time.push_back(features_.memory_round_trip_us);
      set.split_on = {features_.row_kernel_cycles, features_.compute_stream_ratio, Feature::OperandBytes};
      set.roofline_ratio = features_.compute_stream_ratio;
    }
    // Softmax and norms whose rows take several passes read their input again (row_reread_bytes).
    if (op_class == ir::OpClass::Softmax || op_class == ir::OpClass::LogSoftmax ||
        op_class == ir::OpClass::LayerNorm)
      set.time.push_back(features_.row_reread_bytes);
    // The module charges its tensor cores per MAC and its CUDA cores per element operation.
    set.set_energy_terms(features_.tensor_core, {Feature::Macs});
    set.set_energy_terms(features_.cuda_core, {Feature::ElementwiseOps});
    return set;
  }

  double op_gap_ns(const ir::Unit& unit, const ir::Op& op) const override {
    return op.op_class == ir::OpClass::Nop ? 0 : unit.as<GpuParams>().kernel_gap_ns;
  }

  double attention_on_chip_bytes(const ir::Unit& unit) const override {
    return unit.as<GpuParams>().shared_memory_per_sm_KiB * 1024.0;
  }
  void check_graph(const ir::Hardware& hw, int unit, const ir::Graph& graph) const override {
    check_gpu_gemm_rates(hw, unit, graph);
  }

  const GpuFeatures& features() const { return features_; }

private:
  GpuFeatures features_;
};

} // namespace

const ir::UnitKind& gpu_kind() {
  return registered<GpuKind>();
}

const GpuFeatures& gpu_features() {
  return registered<GpuKind>().features();
}

} // namespace units

void register_gpu_kind() {
  units::register_kind<units::GpuKind, units::Gpu>();
}

} // namespace lightsim
