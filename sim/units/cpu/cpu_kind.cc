#include "sim/units/cpu/cpu_kind.h"

#include "ir/hardware/hardware.h"
#include "ir/hardware/unit_kind_of.h"
#include "sim/units/cpu/cpu_module.h"
#include "sim/units/cpu/cpu_params.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/registration.h"

#include <algorithm>

namespace lightsim {
namespace units {
namespace {

using ir::Feature;

constexpr std::size_t idx(Feature f) {
  return static_cast<std::size_t>(f);
}

class CpuKind final : public ir::UnitKindOf<CpuParams> {
public:
  CpuKind()
      : UnitKindOf(cpu_fields()),
        features_{
            ir::register_feature("memory_cycles",
                                 "CPU: cycles its operand bytes take alone at their cache level's rate, on "
                                 "its cores"),
            ir::register_feature("compute_memory_ratio",
                                 "CPU: compute_cycles (+ tail) / memory_cycles: which side of the "
                                 "roofline an op is on"),
            ir::register_feature("core_cycles",
                                 "CPU GEMMs: cycles the op holds its cores alone x those cores (what "
                                 "dynamic power is charged on)"),
            ir::register_feature("op_cores", "CPU: cores the op holds (a GEMM split over k cores: k)"),
            ir::register_feature("tail_cycles",
                                 "CPU: cycles of the fused tail on one core, each class at its own rate")} {}

  std::string_view name() const override { return "cpu"; }
  std::string_view summary() const override {
    return "CPU cores sharing a memory port, with cache levels and a runtime's intra-op GEMM split";
  }
  std::string_view lane_noun() const override { return "core"; }

  void fill_features(const ir::Unit& unit, const ir::OpFeatures& op, ir::FeatureValues& x) const override {
    const CpuWork w = cpu_work(unit, op, op.bytes_read + op.bytes_out);
    const double clock = unit.clock_ghz;
    x[idx(Feature::ComputeCycles)] = w.compute_cycles;
    x[idx(features_.memory_cycles)] = w.memory_ns * clock;
    // The tail at its classes' rates; the anchor's own rate is one factor per class, which a split absorbs.
    x[idx(features_.tail_cycles)] = cpu_tail_cycles(unit, op);
    x[idx(features_.compute_memory_ratio)] =
        (w.compute_cycles + x[idx(features_.tail_cycles)]) / std::max(1.0, w.memory_ns * clock);
    x[idx(features_.op_cores)] = w.cores;
    // The module charges dynamic power on every core the op holds for its whole duration, its fused tail's
    // included (cpu_compute_ns).
    if (w.gemm)
      x[idx(features_.core_cycles)] =
          w.cores * (cpu_fixed_ns(unit, w) * clock + w.memory_ns * clock +
                     w.compute_cycles / unit.as<CpuParams>().gemm_efficiency + x[idx(features_.tail_cycles)]);
  }
  std::vector<Feature> own_features() const override {
    return {features_.memory_cycles, features_.compute_memory_ratio, features_.core_cycles,
            features_.op_cores, features_.tail_cycles};
  }

  ir::FitFeatures fit_features(ir::OpClass op_class) const override {
    ir::FitFeatures set = ir::default_fit_features(op_class);
    if (set.time.empty()) return set;
    // The CPU module: compute plus memory time for a GEMM (pack, then compute), the larger of the two for
    // other ops; memory time at the rate of the cache level the working set fits in, so the split on their
    // ratio is where the roofline turns. A fused tail runs after the anchor on one core at its own classes'
    // instructions per element (cpu_tail_cycles, which the module times too): a term of its own.
    set.time = {Feature::ComputeCycles, features_.memory_cycles, features_.tail_cycles};
    set.split_on = {features_.compute_memory_ratio, Feature::OperandBytes};
    set.roofline_ratio = features_.compute_memory_ratio;
    // A GEMM split over k cores charges dynamic power on all k (core_cycles); other ops hold one core. Its
    // time adds a fork / join when split, so a GEMM's pieces split first on the cores it holds (pack and
    // compute add: no roofline turn in the module; the ratio split stays for measured CPUs).
    if (ir::is_gemm_like(op_class)) {
      set.set_energy_terms(ir::EnergyComponent::Compute, {features_.core_cycles});
      set.split_on.insert(set.split_on.begin(), features_.op_cores);
    }
    return set;
  }

  int ops_in_flight(const ir::Unit& unit) const override { return cpu_ops_in_flight(unit); }
  int op_lanes(const ir::Unit& unit, const ir::OpFeatures& op) const override {
    return cpu_op_cores(unit, op);
  }
  std::vector<ir::SharedPort> shared_ports(const ir::Unit& unit) const override {
    std::vector<ir::SharedPort> ports;
    for (const CpuLevel& l : cpu_levels(unit))
      ports.push_back({l.shared_GBps, l.core_GBps});
    return ports;
  }
  std::optional<ir::PortFlow> port_flow(const ir::Unit& unit, const ir::OpFeatures& op,
                                        double operand_bytes) const override {
    const CpuWork w = cpu_work(unit, op, operand_bytes);
    return ir::PortFlow{static_cast<int>(w.level.index), w.bytes, w.cores, w.memory_ns,
                        cpu_fixed_ns(unit, w),           w.gemm};
  }

  const CpuFeatures& features() const { return features_; }

private:
  CpuFeatures features_;
};

} // namespace

const ir::UnitKind& cpu_kind() {
  return registered<CpuKind>();
}

const CpuFeatures& cpu_features() {
  return registered<CpuKind>().features();
}

} // namespace units

void register_cpu_kind() {
  units::register_kind<units::CpuKind, units::Cpu>();
}

} // namespace lightsim
