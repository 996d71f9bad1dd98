#include "sim/units/phu/phu_kind.h"

#include "ir/hardware/hardware.h"
#include "ir/hardware/unit_kind_of.h"
#include "sim/units/phu/photonic_mac_array.h"
#include "sim/units/phu/phu_params.h"
#include "sim/units/phu/phu_work.h"
#include "sim/units/registration.h"

#include <algorithm>

namespace lightsim {
namespace units {
namespace {

using ir::Feature;

constexpr std::size_t idx(Feature f) {
  return static_cast<std::size_t>(f);
}

class PhuKind final : public ir::UnitKindOf<PhuParams> {
public:
  PhuKind()
      : UnitKindOf(phu_fields()),
        features_{
            ir::register_feature("weight_tiles",
                                 "PHU: batch x ceil(k / rows) x ceil(n / cols) weight tiles programmed"),
            ir::register_feature("dac_conversions",
                                 "PHU: input samples through the DACs, over all weight tiles"),
            ir::register_feature("adc_conversions",
                                 "PHU: result samples through the ADCs, over all weight tiles"),
            ir::register_feature("dac_conversion_steps", "PHU: dac_conversions x 2^(DAC bits)"),
            ir::register_feature("adc_conversion_steps", "PHU: adc_conversions x 2^(ADC bits)"),
            ir::register_feature("weight_conversion_steps",
                                 "PHU: weight cells programmed (batch x k x n) x 2^(DAC bits)"),
            ir::register_feature("local_buffer_bytes",
                                 "PHU: bytes written to and read from the local buffer (buffers)"),
            ir::register_feature("register_file_bytes",
                                 "PHU: bytes written to and read from the converters' registers (buffers)"),
            ir::register_feature("partial_sum_network_bytes",
                                 "PHU: bytes of ADC samples sent to the adders (buffers)"),
            ir::register_feature("optical_macs", "PHU: MACs x the streamed operand's sign passes"),
            ir::register_feature("laser_cycles",
                                 "PHU: cycles the lasers draw power: the array's busy cycles, its streaming "
                                 "cycles alone with laser_gated"),
            ir::register_energy_component("laser", "PHU laser wall-plug power while the lasers are on"),
            ir::register_energy_component("dac", "PHU input conversions (modulator drive)"),
            ir::register_energy_component("adc", "PHU output conversions"),
            ir::register_energy_component("optical_mac",
                                          "PHU optical MACs: modulation and photodetection per MAC"),
            ir::register_energy_component("weight_programming", "PHU weight cells set through DACs"),
            ir::register_energy_component("local_buffer", "PHU local buffer accesses (buffers)"),
            ir::register_energy_component("register_file", "PHU converter register accesses (buffers)"),
            ir::register_energy_component("partial_sum_network",
                                          "PHU ADC samples sent to the adders (buffers)"),
            ir::register_energy_component("periphery",
                                          "PHU periphery ALUs: element operations (tails, non-GEMM ops)")} {}

  std::string_view name() const override { return "phu"; }
  std::string_view summary() const override {
    return "a photonic MAC array: weight tiles programmed, inputs through DACs, results through ADCs, WDM "
           "channels, an electronic periphery";
  }
  std::string_view lane_noun() const override { return "array"; }

  void fill_features(const ir::Unit& unit, const ir::OpFeatures& op, ir::FeatureValues& x) const override {
    const PhuOpWork work = phu_op_work(unit, op); // the tiling once for every PHU feature
    const PhuGemmWork& w = work.gemm;
    const PhuConversionSteps steps = phu_conversion_steps(unit, w);
    const PhuBufferTraffic& traffic = work.traffic;
    x[idx(Feature::ComputeCycles)] =
        std::max(w.busy_ns, phu_periphery_ns(unit.as<PhuParams>(), x[idx(Feature::ElementwiseOps)])) *
        unit.clock_ghz;
    x[idx(features_.weight_tiles)] = static_cast<double>(w.weight_tiles);
    x[idx(features_.dac_conversions)] = w.dac_samples;
    x[idx(features_.adc_conversions)] = w.adc_samples;
    x[idx(features_.dac_conversion_steps)] = steps.dac;
    x[idx(features_.adc_conversion_steps)] = steps.adc;
    x[idx(features_.weight_conversion_steps)] = steps.weight;
    x[idx(features_.local_buffer_bytes)] = traffic.local_buffer_bytes;
    x[idx(features_.register_file_bytes)] = traffic.register_file_bytes;
    x[idx(features_.partial_sum_network_bytes)] = traffic.partial_sum_network_bytes;
    x[idx(features_.optical_macs)] = w.optical_macs;
    x[idx(features_.laser_cycles)] = phu_laser_ns(unit.as<PhuParams>(), w) * unit.clock_ghz;
  }
  std::vector<Feature> own_features() const override {
    return {
        features_.weight_tiles,         features_.dac_conversions,      features_.adc_conversions,
        features_.dac_conversion_steps, features_.adc_conversion_steps, features_.weight_conversion_steps,
        features_.local_buffer_bytes,   features_.register_file_bytes,  features_.partial_sum_network_bytes,
        features_.optical_macs,         features_.laser_cycles};
  }
  std::vector<ir::EnergyComponent> own_energy_components() const override {
    return {features_.laser,
            features_.dac,
            features_.adc,
            features_.optical_mac,
            features_.weight_programming,
            features_.local_buffer,
            features_.register_file,
            features_.partial_sum_network,
            features_.periphery};
  }

  // Energy on the count the module charges it on: the laser on the cycles it draws power, converters and
  // weight programming on their conversion steps (so the fitted coefficient is the figure of merit and
  // follows the bits), optical MACs on MACs x sign passes, the periphery's ALUs on element operations. The
  // periphery (ops without a GEMM view) is a roofline like the others.
  ir::FitFeatures fit_features(ir::OpClass op_class) const override {
    ir::FitFeatures set = ir::default_fit_features(op_class);
    if (set.time.empty()) return set;
    set.set_energy_terms(features_.laser, {features_.laser_cycles});
    set.set_energy_terms(features_.dac, {features_.dac_conversion_steps});
    set.set_energy_terms(features_.adc, {features_.adc_conversion_steps});
    set.set_energy_terms(features_.optical_mac, {features_.optical_macs});
    set.set_energy_terms(features_.weight_programming, {features_.weight_conversion_steps});
    set.set_energy_terms(features_.local_buffer, {features_.local_buffer_bytes});
    set.set_energy_terms(features_.register_file, {features_.register_file_bytes});
    set.set_energy_terms(features_.partial_sum_network, {features_.partial_sum_network_bytes});
    set.set_energy_terms(features_.periphery, {Feature::ElementwiseOps});
    return set;
  }

  double materialised_bytes(const ir::Unit& unit, const ir::OpFeatures& op) const override {
    return phu_materialised_bytes(unit, op);
  }
  double attention_on_chip_bytes(const ir::Unit& unit) const override {
    return phu_attention_on_chip_bytes(unit);
  }
  int weight_buffers_in_use(const ir::Unit& unit) const override { return phu_weight_buffers_in_use(unit); }

  const PhuFeatures& features() const { return features_; }

private:
  PhuFeatures features_;
};

} // namespace

const ir::UnitKind& phu_kind() {
  return registered<PhuKind>();
}

const PhuFeatures& phu_features() {
  return registered<PhuKind>().features();
}

} // namespace units

void register_phu_kind() {
  units::register_kind<units::PhuKind, units::PhotonicMacArray>();
}

} // namespace lightsim
