// `lightsim` and energy (issue 14): the per-unit breakdown in the summary and --json; sweeping the PHU's
// ADC precision with --set changes its energy exactly as the Walden formula says (FOM x 2^bits per
// conversion: x2 per bit), in the arithmetic model and in the SystemC replay, and slows the converters
// (bit_clock / (bits + 1)); bad converter figures are one line naming the unit and field, exit 2.
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <vector>

namespace lightsim {
namespace {

using nlohmann::json;

std::string base_command() {
  return test::binary_path("sim/lightsim") + " --hw " + test::source_path("configs/photonic.json") +
         " --graph " + test::source_path("tests/data/transformer_block.json");
}

const json& named(const json& array, const std::string& name) {
  for (const json& x : array)
    if (x["name"] == name) return x;
  throw std::runtime_error("no " + name);
}

double component(const json& by_component, const char* c) {
  return by_component.contains(c) ? by_component[c].get<double>() : 0.0;
}

TEST(EnergyCli, SummaryAndJsonGiveTheBreakdownPerUnit) {
  const auto text = test::run_command(base_command());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* s :
       {"energy by component (predicted)", "unit phu0", "laser", "local_buffer", "memory sram0", "static"})
    EXPECT_NE(text.out.find(s), std::string::npos) << s << "\n" << text.out;

  const auto r = test::run_command(base_command() + " --json --simulate");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  // Per unit: its components sum to its energy; every owner's sum to the run's.
  for (const json& u : j["units"]) {
    double sum = 0;
    for (const auto& [c, v] : u["energy_by_component"].items())
      sum += v.get<double>();
    EXPECT_NEAR(sum, u["energy_j"].get<double>(), 1e-12 * sum) << u["name"];
  }
  for (const char* side : {"predicted", "simulated"}) {
    const json& owners =
        std::string(side) == "predicted" ? j["energy_by_owner"] : j["simulation"]["energy_by_owner"];
    double sum = 0;
    for (const json& o : owners)
      sum += o["energy_j"].get<double>();
    const double total = std::string(side) == "predicted"
                             ? j["energy_j"].get<double>()
                             : j["simulation"]["simulated_energy_j"].get<double>();
    EXPECT_NEAR(sum, total, 1e-12 * total) << side;
  }
  const json& phu = named(j["units"], "phu0")["energy_by_component"];
  // The card's core (DOTA-B's) modulates both operands every cycle: nothing is programmed; its buffer levels
  // (local buffers, registers, partial-sum network) carry every GEMM's operands and partial sums.
  for (const char* c : {"laser", "dac", "adc", "optical_mac", "local_buffer", "register_file",
                        "partial_sum_network", "sram", "static"})
    EXPECT_GT(component(phu, c), 0) << c;
  EXPECT_EQ(component(phu, "weight_programming"), 0);
  EXPECT_FALSE(j["simulation"]["energy_comparison"].empty());
}

TEST(EnergyCli, AdcBitsSweepScalesAdcEnergyAsTheFormula) {
  json at8;
  std::vector<json> runs;
  for (int bits = 4; bits <= 12; ++bits) {
    const auto r =
        test::run_command(base_command() + " --json --simulate --set phu0.adc.bits=" + std::to_string(bits));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    runs.push_back(json::parse(r.out));
  }
  const json& ref = runs[4]; // 8 bits: the PHU's own
  const double adc8 = component(named(ref["units"], "phu0")["energy_by_component"], "adc");
  const double adc8_sim =
      component(named(ref["simulation"]["energy_by_owner"], "phu0")["energy_by_component"], "adc");
  const double dac8 = component(named(ref["units"], "phu0")["energy_by_component"], "dac");
  ASSERT_GT(adc8, 0);
  double busy_before = 0;
  for (int bits = 4; bits <= 12; ++bits) {
    SCOPED_TRACE(bits);
    const json& j = runs[static_cast<std::size_t>(bits - 4)];
    EXPECT_EQ(j["ops_by_unit"], ref["ops_by_unit"]) << "the placement stays the same";
    const json& phu = named(j["units"], "phu0");
    const json& phu_sim = named(j["simulation"]["energy_by_owner"], "phu0")["energy_by_component"];
    const double ratio = std::ldexp(1.0, bits - 8); // E = FOM x 2^bits per conversion
    EXPECT_NEAR(component(phu["energy_by_component"], "adc"), adc8 * ratio, 1e-12 * adc8 * ratio);
    EXPECT_NEAR(component(phu_sim, "adc"), adc8_sim * ratio, 1e-12 * adc8_sim * ratio);
    EXPECT_NEAR(component(phu["energy_by_component"], "dac"), dac8, 1e-15 * dac8); // the DACs keep 8 bits
    // Fewer samples per ns with more bits: the PHU is never faster.
    EXPECT_GE(phu["busy_s"].get<double>(), busy_before);
    busy_before = phu["busy_s"].get<double>();
  }
  // At 12 bits the ADCs (90 GHz / 13 = 6.9 GS/s) pace some weight tiles: the PHU is busy longer than at 8.
  EXPECT_GT(named(runs[8]["units"], "phu0")["busy_s"].get<double>(),
            named(ref["units"], "phu0")["busy_s"].get<double>());
}

TEST(EnergyCli, BadConverterFiguresAreOneLineNamingUnitAndField) {
  for (const char* bits : {"0", "17"})
    test::expect_bad_input(test::run_command(base_command() + " --set phu0.adc.bits=" + bits),
                           "units[2].adc.bits: must be in 1..16, got " + std::string(bits) +
                               " (unit 'phu0')");
  test::expect_bad_input(test::run_command(base_command() + " --set phu0.bits=40"),
                         "units[2].bits: must be in 1..16, got 40 (unit 'phu0')");
  test::expect_bad_input(test::run_command(base_command() + " --set phu0.dac.fom_fj_per_step=-1"),
                         "units[2].dac.fom_fj_per_step: must not be negative, got -1 (unit 'phu0')");
  // A config without the ADC's figure of merit.
  json c = json::parse(std::ifstream(test::source_path("configs/photonic.json")));
  for (json& u : c["units"])
    if (u["name"] == "phu0") u["adc"].erase("fom_fj_per_step");
  const std::string path = test::temp_dir() + "/no_fom.json";
  std::ofstream(path) << c.dump();
  test::expect_bad_input(test::run_command(test::binary_path("sim/lightsim") + " --hw " + path + " --graph " +
                                           test::source_path("tests/data/transformer_block.json")),
                         "units[2].adc.fom_fj_per_step: missing required field (Walden figure of merit");
}

// Analog accumulation (issue 25): accumulation_cycles 4 samples the ADCs on fewer passes, in the model and
// in the replay alike (the same count), and leaves the DACs alone; 0 is one line naming unit and field.
TEST(EnergyCli, AccumulationCyclesCutAdcEnergyInModelAndReplay) {
  std::vector<json> runs;
  for (const char* a : {"1", "4"}) {
    const auto r =
        test::run_command(base_command() + " --json --simulate --set phu0.accumulation_cycles=" + a);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    runs.push_back(json::parse(r.out));
  }
  ASSERT_EQ(runs[0]["ops_by_unit"], runs[1]["ops_by_unit"]);
  const auto adc = [](const json& j, bool replay) {
    return component(replay ? named(j["simulation"]["energy_by_owner"], "phu0")["energy_by_component"]
                            : named(j["units"], "phu0")["energy_by_component"],
                     "adc");
  };
  ASSERT_GT(adc(runs[0], false), 0);
  for (const bool replay : {false, true}) {
    SCOPED_TRACE(replay ? "replay" : "model");
    EXPECT_LT(adc(runs[1], replay), adc(runs[0], replay));
    EXPECT_GE(adc(runs[1], replay), adc(runs[0], replay) / 4 * (1 - 1e-12)); // at most 4 x fewer samples
  }
  EXPECT_NEAR(adc(runs[1], false) / adc(runs[0], false), adc(runs[1], true) / adc(runs[0], true), 1e-9);
  const json& dac1 = named(runs[0]["units"], "phu0")["energy_by_component"]["dac"];
  EXPECT_EQ(named(runs[1]["units"], "phu0")["energy_by_component"]["dac"], dac1);
  test::expect_bad_input(test::run_command(base_command() + " --set phu0.accumulation_cycles=0"),
                         "units[2].accumulation_cycles: must be positive, got 0 (unit 'phu0')");
}

// Dynamic operand encoding (issue 25): the model and the replay charge no weight programming and more DAC
// conversions, alike; an unknown encoding is one line naming unit and field.
TEST(EnergyCli, DynamicOperandsChargeNoProgrammingInModelAndReplay) {
  const auto r = test::run_command(base_command() + " --json --simulate --set phu0.operand_encoding=dynamic");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  const json& model = named(j["units"], "phu0")["energy_by_component"];
  const json& replay = named(j["simulation"]["energy_by_owner"], "phu0")["energy_by_component"];
  ASSERT_GT(named(j["units"], "phu0")["launches"].get<int>(), 0);
  EXPECT_EQ(component(model, "weight_programming"), 0.0);
  EXPECT_EQ(component(replay, "weight_programming"), 0.0);
  EXPECT_GT(component(model, "dac"), 0.0);
  EXPECT_NEAR(component(model, "dac"), component(replay, "dac"), 1e-9 * component(replay, "dac"));
  test::expect_bad_input(test::run_command(base_command() + " --set phu0.operand_encoding=optical"),
                         "units[2].operand_encoding: unknown operand encoding 'optical'");
}

// Buffer levels (issue 25): on DOTA-B (configs/published/, `buffers` set) the model and the replay charge
// the local buffer, registers and partial-sum network alike; a local buffer of 0 KiB is one line naming
// unit and field.
TEST(EnergyCli, BufferLevelsChargedAlikeInModelAndReplay) {
  const std::string command = test::binary_path("sim/lightsim") + " --hw " +
                              test::source_path("configs/published/dota-b-8bit.json") + " --graph " +
                              test::source_path("tests/data/transformer_block.json");
  const auto r = test::run_command(command + " --json --simulate");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_GT(named(j["units"], "phu0")["launches"].get<int>(), 0);
  const json& model = named(j["units"], "phu0")["energy_by_component"];
  const json& replay = named(j["simulation"]["energy_by_owner"], "phu0")["energy_by_component"];
  for (const char* c : {"local_buffer", "register_file", "partial_sum_network", "sram"}) {
    SCOPED_TRACE(c);
    EXPECT_GT(component(replay, c), 0.0);
    EXPECT_NEAR(component(model, c), component(replay, c), 1e-9 * component(replay, c));
  }
  test::expect_bad_input(test::run_command(command + " --set phu0.buffers.local_buffer_KiB=0"),
                         "units[0].buffers.local_buffer_KiB: must be positive");
}

// Tiles (issue 25): DOTA-B's tiles with private streams instead of its broadcast run the transformer
// block's attention in no more passes, the model and the replay counting the same DAC samples; tiles or
// cores that do not divide the array, and an unknown tile operand, are one line naming unit and field.
// The transformer block on a published config (`hw`), once per value of PHU field `field`, each run's PHU
// energy components `compared` equal in the model and the replay; the command (without --set) in `command`.
std::vector<json> phu_runs(const std::string& hw, const std::string& field,
                           const std::vector<std::string>& values, const std::vector<std::string>& compared,
                           std::string& command) {
  command = test::binary_path("sim/lightsim") + " --hw " + test::source_path("configs/published/" + hw) +
            " --graph " + test::source_path("tests/data/transformer_block.json");
  std::vector<json> runs;
  for (const std::string& value : values) {
    const auto r = test::run_command(command + " --json --simulate --set phu0." + field + "=" + value);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    runs.push_back(r.exit_code == 0 ? json::parse(r.out) : json::object());
  }
  for (const json& j : runs) {
    if (!j.contains("units")) continue;
    const json& model = named(j["units"], "phu0")["energy_by_component"];
    const json& replay = named(j["simulation"]["energy_by_owner"], "phu0")["energy_by_component"];
    EXPECT_GT(named(j["units"], "phu0")["launches"].get<int>(), 0);
    for (const std::string& c : compared)
      EXPECT_NEAR(component(model, c.c_str()), component(replay, c.c_str()),
                  1e-9 * component(replay, c.c_str()))
          << c;
  }
  return runs;
}

TEST(EnergyCli, PrivateTilesCountedAlikeInModelAndReplay) {
  std::string command;
  const std::vector<json> runs =
      phu_runs("dota-b-8bit.json", "tile_operand", {"broadcast", "private"}, {"dac", "adc"}, command);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_LE(named(runs[1]["units"], "phu0")["busy_s"].get<double>(),
            named(runs[0]["units"], "phu0")["busy_s"].get<double>() * (1 + 1e-12));
  test::expect_bad_input(test::run_command(command + " --set phu0.tiles=5"),
                         "units[0].tiles: 5 tiles do not divide the array's 48 cols (unit 'phu0')");
  test::expect_bad_input(test::run_command(command + " --set phu0.cores_per_tile=5"),
                         "units[0].cores_per_tile: 5 cores do not divide the array's 24 rows (unit 'phu0')");
  test::expect_bad_input(test::run_command(command + " --set phu0.tile_operand=shared"),
                         "units[0].tile_operand: unknown tile operand 'shared'");
}

// The microring weight bank (issue 25): independent tiles and signed inputs in two passes, counted alike by
// the model and the replay on a transformer block; analog accumulation across independent tiles, converters
// that do not split over them, and a third sign pass are one line naming unit and field.
TEST(EnergyCli, IndependentTilesAndSignPassesCountedAlikeInModelAndReplay) {
  std::string command;
  const std::vector<json> runs = phu_runs("mrr-bank-8bit.json", "input_sign_passes", {"1", "2"},
                                          {"dac", "adc", "optical_mac", "laser"}, command);
  ASSERT_TRUE(runs[0].contains("units") && runs[1].contains("units"));
  // Two passes: the ring hold (per optical MAC) and the ADC samples double where every input is signed.
  EXPECT_GT(component(named(runs[1]["units"], "phu0")["energy_by_component"], "optical_mac"),
            1.5 * component(named(runs[0]["units"], "phu0")["energy_by_component"], "optical_mac"));
  test::expect_bad_input(test::run_command(command + " --set phu0.accumulation_cycles=2"),
                         "units[0].accumulation_cycles: 2 cycles need an output's k blocks on one tile");
  test::expect_bad_input(test::run_command(command + " --set phu0.dac.count=100"),
                         "units[0].dac: 14 independent tiles need their own converters: dac.count 100");
  test::expect_bad_input(test::run_command(command + " --set phu0.input_sign_passes=3"),
                         "units[0].input_sign_passes");
}

} // namespace
} // namespace lightsim
