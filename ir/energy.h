// Energy components: the fixed set of places an op, a transfer or the idle machine spends energy, and
// EnergyBreakdown, joules per component. Every SystemC module fills one per op (its sum is the op's
// energy), the arithmetic model gives one linear form per component (configs/README.md, "Models"), and the
// trace, the report and scripts/analyze_trace.py show them per op and per unit.
//
// Which unit kind uses which components (configs/README.md, "Energy"):
//   CPU  compute (cores: dynamic power x op time), its memory's access component, static
//   GPU  tensor_core (per MAC), cuda_core (per element operation), its memory's access component, static
//   PHU  laser, dac, adc, optical_mac, weight_programming, its memory's access component, static
//   memory accesses: sram, hbm or dram by the kind of memory touched (a spilled operand: its spill memory)
//   links: link (per wire byte and per packet); memories: static
//
// It is not a power model: the modules and the config decide the joules; this only names and adds them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace lightsim::ir {

// Keep in step with kComponentNames in energy.cc; the names are config keys and trace column names.
enum class EnergyComponent : std::uint8_t {
  Compute,           // dynamic energy of a CPU's cores; also any model energy that is not split
  TensorCore,        // GPU tensor-core MACs
  CudaCore,          // GPU CUDA-core (non-GEMM) element operations
  Laser,             // PHU laser wall-plug power while the array is busy
  Dac,               // PHU input conversions (modulator drive)
  Adc,               // PHU output conversions
  OpticalMac,        // PHU optical MACs: modulation and photodetection per MAC
  WeightProgramming, // PHU weight cells set through DACs
  Sram,              // accesses to an SRAM
  Hbm,               // accesses to an HBM
  Dram,              // accesses to a DRAM
  Link,              // bytes and packets on links (transfers)
  Static,            // static power over the makespan (units and memories)
  Count_
};
inline constexpr std::size_t kNumEnergyComponents = static_cast<std::size_t>(EnergyComponent::Count_);

std::string_view energy_component_name(EnergyComponent c); // "compute", "tensor_core", ...
std::optional<EnergyComponent> parse_energy_component(std::string_view name);
// True for the components an op can have (all but link and static, which belong to transfers and to the
// makespan).
bool is_op_component(EnergyComponent c);

// Joules per component.
struct EnergyBreakdown {
  std::array<double, kNumEnergyComponents> j{};

  double& operator[](EnergyComponent c) { return j[static_cast<std::size_t>(c)]; }
  double operator[](EnergyComponent c) const { return j[static_cast<std::size_t>(c)]; }
  double total() const; // the sum, in component order
  EnergyBreakdown& operator+=(const EnergyBreakdown& o) {
    for (std::size_t c = 0; c < kNumEnergyComponents; ++c)
      j[c] += o.j[c];
    return *this;
  }
  friend bool operator==(const EnergyBreakdown&, const EnergyBreakdown&) = default;
};

} // namespace lightsim::ir
