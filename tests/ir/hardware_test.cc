// Tests of the hardware config loader: the shipped configs load and round-trip, and every kind of bad
// config is rejected with one line naming the file, the JSON path and the problem.
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "sim/units/cpu/cpu_params.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"
#include "tests/ir/hardware_fixture.h"
#include "tests/test_support.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::ir {
namespace {

using nlohmann::json;

constexpr const char* kSource = "bad.json";

void expect_round_trip(const Hardware& hw) {
  json j = hardware_to_json(hw);
  EXPECT_EQ(hardware_from_json(j, hw.source), hw);
  // Through text, as a retrain writes it.
  EXPECT_EQ(hardware_from_json(json::parse(j.dump(2)), hw.source), hw);
  EXPECT_EQ(hardware_to_json(hardware_from_json(j, hw.source)), j);
}

void check_shipped(const std::string& file) {
  Hardware hw = load_hardware(test::source_path("configs/" + file));
  EXPECT_FALSE(hw.name.empty());
  EXPECT_FALSE(hw.description.empty()) << "shipped configs are documented";
  for (const Unit& u : hw.units) {
    EXPECT_GE(u.memory, 0);
    EXPECT_GE(u.model, 0);
  }
  expect_round_trip(hw);
}

TEST(HardwareConfigs, LightcodeCpuLoadsAndRoundTrips) {
  check_shipped("lightcode-cpu.json");
}
TEST(HardwareConfigs, LightcodeLoadsAndRoundTrips) {
  check_shipped("lightcode.json");
}
TEST(HardwareConfigs, PhotonicLoadsAndRoundTrips) {
  check_shipped("photonic.json");
}
TEST(HardwareConfigs, CpuLoadsAndRoundTrips) {
  check_shipped("cpu.json");
}
TEST(HardwareConfigs, GpuLoadsAndRoundTrips) {
  check_shipped("gpu.json");
}

TEST(HardwareConfigs, LightcodeCpuEncodesThePrototypeConstants) {
  Hardware hw = load_hardware(test::source_path("configs/lightcode-cpu.json"));
  ASSERT_EQ(hw.units.size(), 1u);
  EXPECT_EQ(hw.units[0].clock_ghz, 3.208);
  EXPECT_EQ(hw.units[0].cores, 1);
  const ArithmeticModel& m = hw.model_of(0);
  const auto& dense = m.classes[static_cast<std::size_t>(OpClass::Dense)].pieces;
  ASSERT_EQ(dense.size(), 2u);
  EXPECT_EQ(dense[0].when, Feature::MaxDim);
  EXPECT_EQ(dense[0].when_min, 50001);
  EXPECT_EQ(dense[0].time_s.coef[static_cast<std::size_t>(Feature::Macs)], 3.554631597170242e-10);
  EXPECT_EQ(dense[0].time_s.intercept, -0.007057115703999989);
  EXPECT_EQ(dense[1].time_s.coef[static_cast<std::size_t>(Feature::Macs)], 6.845684637179875e-11);
  EXPECT_EQ(dense[1].time_s.intercept, 8.258292187675319e-07);
  EXPECT_EQ(m.classes[static_cast<std::size_t>(OpClass::BatchMatmul)].pieces, dense);
  const auto& add = m.classes[static_cast<std::size_t>(OpClass::Add)].pieces.at(0);
  EXPECT_EQ(add.time_s.coef[static_cast<std::size_t>(Feature::ElementsOut)], 5.728114536194012e-11);
  EXPECT_EQ(add.time_s.intercept, 2.018610633633051e-07);
  const auto& softmax = m.classes[static_cast<std::size_t>(OpClass::Softmax)].pieces.at(0);
  EXPECT_DOUBLE_EQ(softmax.time_s.coef[static_cast<std::size_t>(Feature::ElementsOut)], 6 / 3.208e9);
  // Every class but fused attention, which needs a GPU's shared memory, and the collectives, which the
  // links run (ir/cost/collectives.h), not an arithmetic model.
  for (std::size_t c = 0; c < kNumOpClasses; ++c)
    EXPECT_EQ(m.can_run(static_cast<OpClass>(c)),
              static_cast<OpClass>(c) != OpClass::Attention && !is_collective(static_cast<OpClass>(c)))
        << op_class_name(static_cast<OpClass>(c));
}

TEST(HardwareConfigs, LightcodePhuRunsOnlyMatrixProducts) {
  Hardware hw = load_hardware(test::source_path("configs/lightcode.json"));
  int phu = hw.find_unit("phu0");
  ASSERT_GE(phu, 0);
  EXPECT_EQ(hw.units[phu].clock_ghz, 9.7);
  EXPECT_EQ(hw.units[phu].as<units::PhuParams>().wdm_channels, 20);
  const ArithmeticModel& m = hw.model_of(phu);
  EXPECT_TRUE(m.can_run(OpClass::Dense));
  EXPECT_TRUE(m.can_run(OpClass::BatchMatmul));
  EXPECT_FALSE(m.can_run(OpClass::Add));
  EXPECT_FALSE(m.can_run(OpClass::Softmax));
  const auto& dense = m.classes[static_cast<std::size_t>(OpClass::Dense)].pieces.at(0);
  EXPECT_DOUBLE_EQ(dense.time_s.coef[static_cast<std::size_t>(Feature::Macs)], 1 / (20 * 9.7e9));
  // The prototype's energies, by component: 0.04 pJ per MAC, 3.18 pJ per input element (DAC), 1.6 pJ per
  // output element (ADC); its converters' figures of merit give the same per conversion at 8 bits.
  EXPECT_DOUBLE_EQ(
      dense.energy_j[units::phu_features().optical_mac].coef[static_cast<std::size_t>(Feature::Macs)],
      0.04e-12);
  EXPECT_DOUBLE_EQ(
      dense.energy_j[units::phu_features().dac].coef[static_cast<std::size_t>(Feature::ElementsIn)],
      3.18e-12);
  EXPECT_DOUBLE_EQ(
      dense.energy_j[units::phu_features().adc].coef[static_cast<std::size_t>(Feature::ElementsOut)],
      1.6e-12);
  const PhuParams& p = hw.units[phu].as<units::PhuParams>();
  EXPECT_DOUBLE_EQ(conversion_energy_pj(p, p.dac), 3.18);
  EXPECT_DOUBLE_EQ(conversion_energy_pj(p, p.adc), 1.6);
  EXPECT_DOUBLE_EQ(converter_sample_rate_gsps(p, p.dac), 9.7);
  EXPECT_EQ(hw.placement.inputs_unit, hw.find_unit("cpu0"));
  EXPECT_EQ(hw.placement.params_unit, -1);
}

TEST(Hardware, SmallMachineLoadsWithItsFields) {
  Hardware hw = hardware_from_json(test::small_machine(), "small.json");
  ASSERT_EQ(hw.units.size(), 3u);
  EXPECT_EQ(hw.units[1].kind, &units::gpu_kind());
  EXPECT_EQ(hw.units[1].as<units::GpuParams>().cta_tiles.at(1).n, 64);
  EXPECT_EQ(hw.units[1].as<units::GpuParams>().memory_bandwidth_GBps, 3000); // copied from its memory
  const PhuParams& phu = hw.units[2].as<units::PhuParams>();
  EXPECT_EQ(phu.adc.fom_fj_per_step, 12);
  EXPECT_FALSE(phu.dac.bits.has_value()); // the PHU's 8 bits
  EXPECT_EQ(converter_bits(phu, phu.dac), 8);
  EXPECT_EQ(converter_bits(phu, phu.adc), 6);
  EXPECT_DOUBLE_EQ(conversion_energy_pj(phu, phu.dac), 4e-3 * 256);
  EXPECT_DOUBLE_EQ(conversion_energy_pj(phu, phu.adc), 12e-3 * 64);
  EXPECT_DOUBLE_EQ(converter_sample_rate_gsps(phu, phu.dac), 10); // 90 GHz / (8 + 1)
  EXPECT_DOUBLE_EQ(converter_sample_rate_gsps(phu, phu.adc), 90 / 7.0);
  EXPECT_EQ(hw.units[1].as<units::GpuParams>().tensor_core_pj_per_mac, 2.5);
  EXPECT_EQ(hw.units[0].as<units::CpuParams>().dynamic_power_w, 20);
  EXPECT_EQ(hw.links[0].energy_pj_per_packet, 320);
  // A plain energy form is all `compute`; a split one keeps its components.
  const auto& add = hw.models[0].classes[static_cast<std::size_t>(OpClass::Add)].pieces.at(0);
  EXPECT_EQ(add.energy_j[EnergyComponent::Compute].coef[static_cast<std::size_t>(Feature::ElementsOut)],
            1e-12);
  const auto& dense = hw.models[2].classes[static_cast<std::size_t>(OpClass::Dense)].pieces.at(1);
  EXPECT_FALSE(dense.energy_j.has(EnergyComponent::Compute));
  EXPECT_EQ(dense.energy_j[units::phu_features().adc]
                .coef[static_cast<std::size_t>(units::phu_features().adc_conversion_steps)],
            1.2e-14);
  EXPECT_EQ(hw.memories[2].capacity_bytes, 32.0 * 1024 * 1024);
  EXPECT_EQ(hw.memories[2].spill_to, 0);
  EXPECT_EQ(hw.links[0].endpoints, (std::vector<int>{0, 1})); // a unit name means its memory
  EXPECT_DOUBLE_EQ(hw.links[0].bandwidth_GBps, 32.0 * 16 * 128 / 130 / 8);
  EXPECT_EQ(hw.find_unit("phu0"), 2);
  EXPECT_EQ(hw.find_unit("nope"), -1);
  EXPECT_EQ(hw.find_memory("hbm0"), 1);
  EXPECT_EQ(hw.model_of(2).name, "m-phu");
  expect_round_trip(hw);
}

TEST(Hardware, PcieBandwidthFollowsGenerationAndLanes) {
  EXPECT_DOUBLE_EQ(pcie_bandwidth_GBps(1, 1), 0.25);
  EXPECT_DOUBLE_EQ(pcie_bandwidth_GBps(2, 4), 2.0);
  EXPECT_DOUBLE_EQ(pcie_bandwidth_GBps(3, 16), 8.0 * 16 * 128 / 130 / 8);
  EXPECT_DOUBLE_EQ(pcie_bandwidth_GBps(4, 16), 31.507692307692306);
  EXPECT_DOUBLE_EQ(pcie_bandwidth_GBps(5, 16), 63.01538461538461);
  EXPECT_DOUBLE_EQ(pcie_bandwidth_GBps(6, 16), 64.0 * 16 * 242 / 256 / 8);
}

TEST(Hardware, BandwidthOverrideRoundTrips) {
  json c = test::small_machine();
  c["links"][0]["bandwidth_GBps"] = 50;
  Hardware hw = hardware_from_json(c, "small.json");
  EXPECT_EQ(hw.links[0].bandwidth_GBps, 50);
  expect_round_trip(hw);
}

TEST(Hardware, FitInfoRoundTrips) {
  json c = test::small_machine();
  c["models"]["m-gpu"]["add"]["fit"] = {{"samples", 12},
                                        {"r2", 0.99},
                                        {"feature_min", {{"elements_out", 4}}},
                                        {"feature_max", {{"elements_out", 9e6}}}};
  Hardware hw = hardware_from_json(c, "small.json");
  const auto& fit = hw.models[1].classes[static_cast<std::size_t>(OpClass::Add)].fit;
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->samples, 12u);
  EXPECT_EQ(fit->feature_max[static_cast<std::size_t>(Feature::ElementsOut)], 9e6);
  expect_round_trip(hw);
}

TEST(Hardware, FeatureNamesParseBack) {
  for (std::size_t i = 0; i < feature_count(); ++i)
    EXPECT_EQ(parse_feature(feature_name(static_cast<Feature>(i))), static_cast<Feature>(i));
  EXPECT_FALSE(parse_feature("flops").has_value());
  EXPECT_EQ(units::phu_kind().name(), "phu");
  EXPECT_EQ(find_unit_kind("phu"), &units::phu_kind());
  EXPECT_EQ(memory_kind_name(MemoryKind::Hbm), "hbm");
  EXPECT_EQ(link_kind_name(LinkKind::Pcie), "pcie");
}

TEST(Hardware, LatencyHidingFieldsRoundTripAndReachEveryUnit) {
  json c = test::small_machine();
  c["latency_hiding"] = true;
  c["units"][2]["weight_buffers"] = 2;
  c["units"][1]["prefetch"] = {{"depth", 3}, {"buffer_MiB", 256}};
  const Hardware hw = hardware_from_json(c, kSource);
  EXPECT_TRUE(hw.latency_hiding);
  for (const Unit& u : hw.units)
    EXPECT_TRUE(u.latency_hiding) << u.name;
  EXPECT_EQ(phu_weight_buffers_in_use(hw.units[2]), 2);
  EXPECT_TRUE(has_load_stage(hw.units[1]));
  EXPECT_FALSE(has_load_stage(hw.units[0]));
  EXPECT_EQ(prefetch_reserved_bytes(hw.units[1]), 3 * 256.0 * 1024 * 1024);
  expect_round_trip(hw);
  // Off (the default): the parameters stay, nothing uses them.
  c.erase("latency_hiding");
  const Hardware off = hardware_from_json(c, kSource);
  EXPECT_EQ(phu_weight_buffers_in_use(off.units[2]), 1);
  EXPECT_FALSE(has_load_stage(off.units[1]));
  EXPECT_EQ(off.units[1].prefetch.depth, 3);
  expect_round_trip(off);
}

TEST(HardwareConfigs, RealisticConfigsHideLatencyAndThePrototypesDoNot) {
  for (const char* file : {"photonic.json", "gpu.json", "cpu.json"})
    EXPECT_TRUE(load_hardware(test::source_path(std::string("configs/") + file)).latency_hiding) << file;
  for (const char* file : {"lightcode.json", "lightcode-cpu.json"})
    EXPECT_FALSE(load_hardware(test::source_path(std::string("configs/") + file)).latency_hiding) << file;
  // The shipped card (DOTA-B's core) modulates both operands every cycle: nothing is programmed, so it uses
  // one weight buffer; with weight_buffers 2 a card double-buffers its weight tiles while latency hiding is
  // on.
  Hardware hw = load_hardware(test::source_path("configs/photonic.json"));
  const int phu = hw.find_unit("phu0");
  ASSERT_GE(phu, 0);
  EXPECT_EQ(phu_weight_buffers_in_use(hw.units[phu]), 1);
  hw.units[phu].as<PhuParams>().weight_buffers = 2;
  EXPECT_EQ(phu_weight_buffers_in_use(hw.units[phu]), 2);
}

// The README's main command runs a published design: photonic.json's card has DOTA-B's photonic core at 8
// bits (configs/published/dota-b-8bit.json, from the authors' parameters), on photonic.json's own SRAM.
TEST(HardwareConfigs, PhotonicCardIsDotaBsCore) {
  const Hardware shipped = load_hardware(test::source_path("configs/photonic.json"));
  const Hardware dota = load_hardware(test::source_path("configs/published/dota-b-8bit.json"));
  const Unit& card = shipped.units[static_cast<std::size_t>(shipped.find_unit("phu0"))];
  const Unit& core = dota.units[static_cast<std::size_t>(dota.find_unit("phu0"))];
  EXPECT_TRUE(card.as<PhuParams>() == core.as<PhuParams>());
  EXPECT_EQ(card.clock_ghz, core.clock_ghz);
  EXPECT_EQ(card.as<PhuParams>().operand_encoding, units::OperandEncoding::Dynamic);
  EXPECT_EQ(shipped.memories[static_cast<std::size_t>(card.memory)].name, "sram0");
}

TEST(HardwareBadConfig, WeightBuffersOutsideOneToTwo) {
  for (int buffers : {0, 3}) {
    json c = test::small_machine();
    c["units"][2]["weight_buffers"] = buffers;
    test::expect_config_error(c, "units[2].weight_buffers", "must be in 1..2");
  }
}

// JSON text parses 0 as an unsigned integer: the lower bound holds for it too.
TEST(HardwareBadConfig, ZeroFromJsonTextIsBelowTheRange) {
  json c = test::small_machine();
  c["units"][2]["weight_buffers"] = 1;
  std::string text = c.dump();
  text.replace(text.find("\"weight_buffers\":1"), 18, "\"weight_buffers\":0");
  test::expect_config_error(json::parse(text), "units[2].weight_buffers", "must be in 1..2, got 0");
  c["links"][1]["generation"] = 1;
  text = c.dump();
  text.replace(text.find("\"generation\":1"), 14, "\"generation\":0");
  test::expect_config_error(json::parse(text), "links[1].generation", "must be in 1..6, got 0");
}

TEST(HardwareBadConfig, PrefetchDepthBelowOne) {
  json c = test::small_machine();
  c["units"][1]["prefetch"] = {{"depth", 0}, {"buffer_MiB", 16}};
  test::expect_config_error(c, "units[1].prefetch.depth", "must be in 1..");
}

TEST(HardwareBadConfig, PrefetchBuffersLargerThanTheMemory) {
  json c = test::small_machine();
  c["latency_hiding"] = true;
  c["units"][2]["prefetch"] = {{"depth", 2}, {"buffer_MiB", 20}}; // 40 MiB into a 32 MiB SRAM
  test::expect_config_error(c, "units[2].prefetch.buffer_MiB",
                            "2 buffers of 20 MiB do not fit memory 'sram0'");
  c["latency_hiding"] = false; // unused buffers are not reserved
  EXPECT_EQ(test::config_load_error(c), "");
}

// Converter precision and energy figures: one line naming the unit and the field.
TEST(HardwareBadConfig, NegativeFigureOfMerit) {
  json c = test::small_machine();
  c["units"][2]["adc"]["fom_fj_per_step"] = -1;
  test::expect_config_error(c, "units[2].adc.fom_fj_per_step", "must not be negative, got -1 (unit 'phu0')");
}

TEST(HardwareBadConfig, MissingFigureOfMerit) {
  json c = test::small_machine();
  c["units"][2]["dac"].erase("fom_fj_per_step");
  test::expect_config_error(
      c, "units[2].dac.fom_fj_per_step",
      "missing required field (Walden figure of merit: a conversion at b bits costs fom x "
      "2^b) (unit 'phu0')");
}

TEST(HardwareBadConfig, ConverterBitsOutOfRange) {
  for (const json& bits : {json(0), json(17), json(-3), json(8.5), json("8")}) {
    json c = test::small_machine();
    c["units"][2]["adc"]["bits"] = bits;
    // Integers outside the range, and anything that is not an integer: the value and the unit named.
    test::expect_config_error(
        c, "units[2].adc.bits",
        (bits.is_number_integer() ? "must be in 1..16, got " : "expected an integer, found ") + bits.dump() +
            " (unit 'phu0')");
  }
}

TEST(HardwareBadConfig, PhuBitsOutOfRange) {
  json c = test::small_machine();
  c["units"][2]["bits"] = 17;
  test::expect_config_error(c, "units[2].bits", "must be in 1..16, got 17 (unit 'phu0')");
}

TEST(HardwareBadConfig, GpuEnergyPerOperationMissingOrNegative) {
  json c = test::small_machine();
  c["units"][1].erase("tensor_core_pj_per_mac");
  test::expect_config_error(c, "units[1].tensor_core_pj_per_mac", "missing");
  c = test::small_machine();
  c["units"][1]["cuda_core_pj_per_op"] = -2;
  test::expect_config_error(c, "units[1].cuda_core_pj_per_op", "must not be negative");
}

TEST(HardwareBadConfig, DynamicPowerOnlyOnACpu) {
  json c = test::small_machine();
  c["units"][1]["dynamic_power_w"] = 600;
  test::expect_config_error(
      c, "units[1].dynamic_power_w",
      "unknown key: a gpu unit has no such key (lightsim --describe-config gpu lists its "
      "keys) (unit 'gpu0')");
}

TEST(HardwareBadConfig, UnknownOrNonOpEnergyComponent) {
  json c = test::small_machine();
  c["models"]["m-phu"]["dense"]["pieces"][1]["energy_j"]["lazer"] = {{"macs", 1e-15}};
  test::expect_config_error(c, "models.m-phu.dense.pieces[1].energy_j.lazer", "unknown energy component");
  c = test::small_machine();
  c["models"]["m-phu"]["dense"]["pieces"][1]["energy_j"]["static"] = {{"intercept", 1e-9}};
  test::expect_config_error(c, "models.m-phu.dense.pieces[1].energy_j.static", "not an op energy");
  c = test::small_machine();
  c["models"]["m-phu"]["dense"]["pieces"][1]["energy_j"]["macs"] = 1e-15; // a form mixed with components
  test::expect_config_error(c, "models.m-phu.dense.pieces[1].energy_j",
                            "mixes a linear form with per-component forms");
}

TEST(HardwareBadConfig, PacketEnergyNeedsPackets) {
  json c = test::small_machine();
  c["links"].push_back({{"name", "bus"},
                        {"kind", "bus"},
                        {"endpoints", {"gpu0", "phu0"}},
                        {"latency_ns", 1},
                        {"energy_pj_per_byte", 1},
                        {"bandwidth_GBps", 64},
                        {"energy_pj_per_packet", 5}});
  test::expect_config_error(c, "links[2].energy_pj_per_packet", "needs max_payload_bytes");
}

TEST(HardwareBadConfig, NotJson) {
  std::string path = test::temp_dir() + "/truncated.json";
  std::ofstream(path) << test::small_machine().dump().substr(0, 100);
  try {
    load_hardware(path);
    FAIL() << "accepted a truncated file";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": byte offset 100: not valid JSON (the file ends early", 0),
              0u)
        << e.what();
  }
}

// Found by fuzzing (tests/fuzz): nlohmann's parser built any depth of nesting, ~50 bytes per '[' of input.
TEST(HardwareBadConfig, NestingTooDeep) {
  const std::string text = R"({"name": "x", "units": )" + std::string(100000, '[');
  try {
    parse_hardware_config(text, "deep.json");
    FAIL() << "accepted 100000 nested arrays";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "deep.json: JSON nested deeper than 64 levels");
  }
  // Brackets inside strings are text, not nesting.
  EXPECT_NO_THROW(parse_hardware_config(R"({"name": ")" + std::string(100, '[') + R"("})", "brackets.json"));
  // A number beyond double's range is one line too.
  try {
    parse_hardware_config(R"({"x": 1e999})", "huge.json");
    FAIL() << "accepted 1e999";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "huge.json: not valid JSON: number overflow parsing '1e999'");
  }
}

TEST(HardwareBadConfig, MissingFile) {
  std::string path = test::temp_dir() + "/absent.json";
  try {
    load_hardware(path);
    FAIL() << "accepted a missing file";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open hardware config");
  }
}

} // namespace
} // namespace lightsim::ir
