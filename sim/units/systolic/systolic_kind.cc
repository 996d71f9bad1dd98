#include "sim/units/systolic/systolic_kind.h"

#include "ir/cost/unit_work.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/unit_kind_of.h"
#include "sim/units/registration.h"
#include "sim/units/systolic/systolic_module.h"
#include "sim/units/systolic/systolic_params.h"
#include "sim/units/systolic/systolic_work.h"

#include <algorithm>

namespace lightsim {
namespace units {
namespace {

using ir::Feature;

constexpr std::size_t idx(Feature f) {
  return static_cast<std::size_t>(f);
}

class SystolicKind final : public ir::UnitKindOf<SystolicParams> {
public:
  SystolicKind()
      : UnitKindOf(systolic_fields()),
        features_{
            ir::register_feature("fill_stall_cycles",
                                 "systolic: cycles the folds wait for scratchpad fills and drains the double "
                                 "buffers cannot hide (the first fill and last drain included)"),
            ir::register_feature("fold_memory_bytes",
                                 "systolic: bytes the folds move to and from the unit's memory, reuse in "
                                 "the scratchpads included (an op without a GEMM: its operand bytes)"),
            ir::register_feature("ifmap_sram_bytes", "systolic: bytes through the ifmap scratchpad"),
            ir::register_feature("filter_sram_bytes", "systolic: bytes through the filter scratchpad"),
            ir::register_feature("ofmap_sram_bytes", "systolic: bytes through the ofmap scratchpad"),
            ir::register_energy_component("systolic_mac", "systolic array MACs"),
            ir::register_energy_component("scratchpad", "systolic array scratchpad accesses"),
            ir::register_energy_component("systolic_vector",
                                          "systolic array vector-unit element operations")} {}

  std::string_view name() const override { return "systolic"; }
  std::string_view summary() const override {
    return "a systolic array (TPU-like): rows x cols MAC PEs under a ws / os / is dataflow, double-buffered "
           "scratchpads, a vector unit; timed as SCALE-Sim times it";
  }
  std::string_view lane_noun() const override { return "array"; }

  // Scratchpads fill from the unit's memory.
  void bind(ir::Unit& unit, const ir::Memory& home) const override {
    unit.as<SystolicParams>().memory_bandwidth_GBps = home.bandwidth_GBps;
  }

  void fill_features(const ir::Unit& unit, const ir::OpFeatures& op, ir::FeatureValues& x) const override {
    const double vector = systolic_vector_cycles(unit, x[idx(Feature::ElementwiseOps)]);
    const SystolicGemm g = systolic_gemm(unit, op);
    if (g.folds == 0) { // the vector unit, on operands staged through the ifmap scratchpad
      x[idx(Feature::ComputeCycles)] = vector;
      x[idx(features_.fold_memory_bytes)] = x[idx(Feature::OperandBytes)];
      x[idx(features_.ifmap_sram_bytes)] = x[idx(Feature::OperandBytes)];
      return;
    }
    // A fused tail runs on the vector unit as the results leave the array: the longer of the two.
    x[idx(Feature::ComputeCycles)] = std::max(g.compute_cycles, vector);
    x[idx(features_.fill_stall_cycles)] = g.stall_cycles;
    x[idx(features_.fold_memory_bytes)] = g.memory_bytes;
    x[idx(features_.ifmap_sram_bytes)] = g.ifmap_sram_bytes;
    x[idx(features_.filter_sram_bytes)] = g.filter_sram_bytes;
    x[idx(features_.ofmap_sram_bytes)] = g.ofmap_sram_bytes;
  }
  std::vector<Feature> own_features() const override {
    return {features_.fill_stall_cycles, features_.fold_memory_bytes, features_.ifmap_sram_bytes,
            features_.filter_sram_bytes, features_.ofmap_sram_bytes};
  }
  std::vector<ir::EnergyComponent> own_energy_components() const override {
    return {features_.systolic_mac, features_.scratchpad, features_.systolic_vector};
  }

  // Time on the folds' cycles and their stalls (a GEMM: exactly the module's), and on operand bytes (the
  // vector unit's roofline); energy on the counts the module charges: MACs, bytes per scratchpad, element
  // operations, and the folds' memory traffic (not the op's operands: reuse and refetches change it).
  ir::FitFeatures fit_features(ir::OpClass op_class) const override {
    ir::FitFeatures set = ir::default_fit_features(op_class);
    if (set.time.empty()) return set;
    set.time = {Feature::ComputeCycles, features_.fill_stall_cycles, Feature::OperandBytes};
    set.set_energy_terms(features_.systolic_mac, {Feature::Macs});
    set.set_energy_terms(features_.scratchpad, {features_.ifmap_sram_bytes, features_.filter_sram_bytes,
                                                features_.ofmap_sram_bytes});
    set.set_energy_terms(features_.systolic_vector, {Feature::ElementwiseOps});
    for (ir::EnergyComponent c :
         {ir::EnergyComponent::Sram, ir::EnergyComponent::Hbm, ir::EnergyComponent::Dram})
      set.set_energy_terms(c, {features_.fold_memory_bytes});
    return set;
  }

  // A GEMM needs MACs for its dtype; the vector unit runs every other op its model allows.
  bool supports(const ir::Unit& unit, const ir::OpFeatures& op) const override {
    return !ir::has_gemm_view(op) || systolic_mac_rate(unit, op) > 0;
  }

  const SystolicFeatures& features() const { return features_; }

private:
  SystolicFeatures features_;
};

} // namespace

const ir::UnitKind& systolic_kind() {
  return registered<SystolicKind>();
}

const SystolicFeatures& systolic_features() {
  return registered<SystolicKind>().features();
}

} // namespace units

void register_systolic_kind() {
  units::register_kind<units::SystolicKind, units::SystolicArray>();
}

} // namespace lightsim
