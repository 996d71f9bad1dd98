// Energy components: the named places an op, a transfer or the idle machine spends energy, and
// EnergyBreakdown, joules per component. Every SystemC module fills one per op (its sum is the op's
// energy), the arithmetic model gives one linear form per component (configs/README.md, "Models"), and the
// trace, the report and scripts/analyze_trace.py show them per op and per unit.
//
// The components every machine has are fixed here: `compute` (a unit's dynamic energy that no component
// of its kind names; a config's plain `energy_j` form), the memory accesses (`sram`, `hbm`, `dram`, by the
// kind of memory touched; a spilled operand: its spill memory's), `link` (transfers) and `static` (power
// over the makespan). A unit kind adds its own when it registers (ir/hardware/unit_kind.h: a GPU's
// `tensor_core` and `cuda_core`, a PHU's `laser`, `dac`, ...), so that adding a kind adds no line here.
// Components are listed (energy_components(): trace columns, tables, sums) as `compute`, then each kind's
// in the order the kinds register (sim/units/kinds.def), then the memories', `link` and `static`.
//
// It is not a power model: the modules and the config decide the joules; this only names and adds them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::ir {

// A component id. The named values are the fixed components; a kind's components take the ids after
// kNumFixedEnergyComponents as it registers them.
enum class EnergyComponent : std::uint8_t {
  Compute, // dynamic energy of a unit that its kind does not split (a CPU's cores); unsplit model energy
  Sram,    // accesses to an SRAM
  Hbm,     // accesses to an HBM
  Dram,    // accesses to a DRAM
  Link,    // bytes and packets on links (transfers)
  Static,  // static power over the makespan (units and memories)
};
inline constexpr std::size_t kNumFixedEnergyComponents = 6;
// Room for the kinds' components; registering more is an error that names this constant.
inline constexpr std::size_t kMaxEnergyComponents = 24;

// Registers a component a unit kind charges (its name is a config key and a trace column); returns its
// id. Registering a name again returns the same id, so two kinds may share a component.
EnergyComponent register_energy_component(std::string_view name, std::string_view doc);
// Every component registered so far, in listing order (above).
const std::vector<EnergyComponent>& energy_components();
std::string_view energy_component_name(EnergyComponent c); // "compute", "tensor_core", ...
std::string_view energy_component_doc(EnergyComponent c);
std::optional<EnergyComponent> parse_energy_component(std::string_view name);
// "compute, sram, ... or laser", for messages.
std::string energy_component_choices();
// True for the components an op can have (all but link and static, which belong to transfers and to the
// makespan).
bool is_op_component(EnergyComponent c);

// Joules per component.
struct EnergyBreakdown {
  std::array<double, kMaxEnergyComponents> j{};

  double& operator[](EnergyComponent c) { return j[static_cast<std::size_t>(c)]; }
  double operator[](EnergyComponent c) const { return j[static_cast<std::size_t>(c)]; }
  // The sum in listing order (compute, the kinds' components, the memories', link, static), written out so
  // that it needs no registry: components not registered are 0 and add nothing.
  double total() const {
    double sum = j[0];
    for (std::size_t c = kNumFixedEnergyComponents; c < kMaxEnergyComponents; ++c)
      sum += j[c];
    for (std::size_t c = 1; c < kNumFixedEnergyComponents; ++c)
      sum += j[c];
    return sum;
  }
  EnergyBreakdown& operator+=(const EnergyBreakdown& o) {
    for (std::size_t c = 0; c < kMaxEnergyComponents; ++c)
      j[c] += o.j[c];
    return *this;
  }
  friend bool operator==(const EnergyBreakdown&, const EnergyBreakdown&) = default;
};

} // namespace lightsim::ir
