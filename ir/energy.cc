#include "ir/energy.h"

namespace lightsim::ir {
namespace {

constexpr std::array<std::string_view, kNumEnergyComponents> kComponentNames = {
    "compute", "tensor_core", "cuda_core", "laser", "dac",   "adc", "optical_mac", "weight_programming",
    "sram",    "hbm",         "dram",      "link",  "static"};

} // namespace

std::string_view energy_component_name(EnergyComponent c) {
  return kComponentNames.at(static_cast<std::size_t>(c));
}

std::optional<EnergyComponent> parse_energy_component(std::string_view name) {
  for (std::size_t c = 0; c < kNumEnergyComponents; ++c)
    if (kComponentNames[c] == name) return static_cast<EnergyComponent>(c);
  return std::nullopt;
}

bool is_op_component(EnergyComponent c) {
  return c != EnergyComponent::Link && c != EnergyComponent::Static && c != EnergyComponent::Count_;
}

double EnergyBreakdown::total() const {
  double sum = 0;
  for (double v : j)
    sum += v;
  return sum;
}

} // namespace lightsim::ir
