// --set overrides on the shipped photonic config: every key form, type checks, and one-line errors that
// name the --set argument.
#include "ir/error.h"
#include "ir/hardware/config_override.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"
#include "tests/test_support.h"

#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim::ir {
namespace {

using nlohmann::json;

std::string photonic() {
  return test::source_path("configs/photonic.json");
}

json photonic_json() {
  std::ifstream in(photonic());
  return json::parse(in);
}

Hardware with(const std::vector<std::string>& overrides) {
  return load_hardware(photonic(), overrides);
}

const Unit& unit(const Hardware& hw, const std::string& name) {
  const int u = hw.find_unit(name);
  EXPECT_GE(u, 0) << name;
  return hw.units.at(static_cast<std::size_t>(u));
}

const Link& link(const Hardware& hw, const std::string& name) {
  for (const Link& l : hw.links)
    if (l.name == name) return l;
  ADD_FAILURE() << "no link " << name;
  return hw.links.at(0);
}

// The message of the InputError that loading with `overrides` throws ("" if none is thrown).
std::string error_of(const std::vector<std::string>& overrides) {
  try {
    with(overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& argument, const std::string& needle) {
  const std::string message = error_of({argument});
  ASSERT_FALSE(message.empty()) << argument << " was accepted";
  EXPECT_EQ(message.rfind("--set " + argument + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(needle), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(ConfigOverride, NoOverridesIsTheFileAsLoaded) {
  EXPECT_EQ(with({}), load_hardware(photonic()));
}

TEST(ConfigOverride, UnitFieldByBareName) {
  const Hardware base = load_hardware(photonic());
  ASSERT_NE(unit(base, "phu0").as<units::PhuParams>().wdm_channels, 4);
  const Hardware hw = with({"phu0.wdm_channels=4"});
  EXPECT_EQ(unit(hw, "phu0").as<units::PhuParams>().wdm_channels, 4);
  // Nothing else changed.
  Hardware back = hw;
  back.units[static_cast<std::size_t>(hw.find_unit("phu0"))].as<units::PhuParams>().wdm_channels =
      unit(base, "phu0").as<units::PhuParams>().wdm_channels;
  EXPECT_EQ(back, base);
}

TEST(ConfigOverride, SubfieldsAndExplicitSections) {
  const Hardware hw = with({"phu0.dac.count=512", "units.gpu0.cta_tiles.2.stages=4",
                            "memories.sram0.capacity_MiB=64", "links.pcie-phu.lanes=8", "cpu0.fma=false"});
  EXPECT_EQ(unit(hw, "phu0").as<units::PhuParams>().dac.count, 512);
  EXPECT_EQ(unit(hw, "gpu0").as<units::GpuParams>().cta_tiles.at(2).stages, 4);
  EXPECT_DOUBLE_EQ(hw.memories.at(static_cast<std::size_t>(hw.find_memory("sram0"))).capacity_bytes,
                   64.0 * 1024 * 1024);
  EXPECT_EQ(link(hw, "pcie-phu").pcie_lanes, 8);
  // The bandwidth is derived from generation and lanes after the override, as for a file.
  EXPECT_DOUBLE_EQ(link(hw, "pcie-phu").bandwidth_GBps, pcie_bandwidth_GBps(4, 8));
  EXPECT_FALSE(unit(hw, "cpu0").as<units::CpuParams>().fma);
}

TEST(ConfigOverride, NewOptionalFieldIsJudgedByTheLoader) {
  const Hardware hw = with({"links.pcie-phu.bandwidth_GBps=12.5"});
  EXPECT_DOUBLE_EQ(link(hw, "pcie-phu").bandwidth_GBps, 12.5);
  expect_error("links.pcie-phu.bandwidth_gbps=12.5", "bandwidth_gbps");
}

TEST(ConfigOverride, PlacementTakesUnquotedAndQuotedStrings) {
  EXPECT_EQ(with({"placement.params=phu0"}).placement.params_unit, with({}).find_unit("phu0"));
  EXPECT_EQ(with({"placement.inputs=\"gpu0\""}).placement.inputs_unit, with({}).find_unit("gpu0"));
  expect_error("placement.params=phu9", "phu9");
}

TEST(ConfigOverride, ModelCoefficients) {
  // `input` (a resident weight): an entry no fit replaces (configs/fitted), so one piece with time_s.
  const Hardware hw = with({"models.phu-roofline.input.time_s.macs=2e-15"});
  const int phu = hw.find_unit("phu0");
  const OpClassModel& input = hw.model_of(phu).classes[static_cast<std::size_t>(OpClass::Input)];
  ASSERT_FALSE(input.pieces.empty());
  EXPECT_DOUBLE_EQ(input.pieces.back().time_s.coef[static_cast<std::size_t>(Feature::Macs)], 2e-15);
  expect_error("models.phu-roofline.input.time_s.flops=1", "flops");
  expect_error("models.nosuch.dense.time_s.macs=1", "nosuch");
}

TEST(ConfigOverride, LaterOverrideWinsAndBaseJsonIsUntouched) {
  const json base = photonic_json();
  const Hardware hw =
      hardware_with_overrides(base, photonic(), {"phu0.wdm_channels=4", "phu0.wdm_channels=8"});
  EXPECT_EQ(unit(hw, "phu0").as<units::PhuParams>().wdm_channels, 8);
  EXPECT_EQ(base, photonic_json());
}

TEST(ConfigOverride, UnknownNamesAreOneLineNamingTheArgument) {
  expect_error("phu9.wdm_channels=4", "no unit named 'phu9'");
  expect_error("memories.sram9.capacity_MiB=4", "no memory named 'sram9'");
  expect_error("links.pcie9.lanes=4", "no link named 'pcie9'");
  expect_error("phu0.dax.count=4", "no field 'dax'");
  expect_error("phu0.wdm_chanels=4", "wdm_chanels"); // a new key the loader does not know
  expect_error("phu0", "KEY=VALUE");
  expect_error("=4", "empty");
  expect_error("phu0.dac=4", "expects a JSON object");
  expect_error("phu0.wdm_channels.x=4", "has no field 'x'");
  expect_error("links.pcie-phu.endpoints.2=cpu0", "not an index");
}

TEST(ConfigOverride, WrongTypeOrRangeIsOneLineNamingTheArgument) {
  expect_error("phu0.wdm_channels=many", "expects a number");
  expect_error("phu0.wdm_channels=true", "expects a number");
  expect_error("cpu0.fma=1", "true or false");
  expect_error("phu0.wdm_channels=0", "wdm_channels"); // the loader's range check, blamed on the --set
  expect_error("phu0.wdm_channels=2.5", "wdm_channels");
  expect_error("links.pcie-phu.generation=9", "generation");
}

TEST(ConfigOverride, BlamesTheOverrideThatBreaksTheConfig) {
  const std::string message =
      error_of({"phu0.wdm_channels=8", "memories.sram0.bandwidth_GBps=-1", "cpu0.cores=4"});
  EXPECT_EQ(message.rfind("--set memories.sram0.bandwidth_GBps=-1: ", 0), 0u) << message;
}

// A long list (a generated sweep, the --set fuzz target) is bisected, not replayed prefix by prefix: the
// message still names the one override that breaks the config.
TEST(ConfigOverride, BlamesTheBadOverrideInALongList) {
  std::vector<std::string> list(3000, "phu0.wdm_channels=8");
  list[1234] = "links.pcie-phu.lanes=-3";
  const std::string message = error_of(list);
  EXPECT_EQ(message.rfind("--set links.pcie-phu.lanes=-3: ", 0), 0u) << message;
}

// A value nested too deep is not read as JSON (tests/fuzz found the DOM's cost): it is text, which a
// number field refuses in one line.
// A key applied once is not walked again while the config keeps its shape (a long --set list stays
// linear); an override that replaces the object under it must send the next use of that key into the new
// object, not into the one it replaced.
TEST(ConfigOverride, RepeatedKeyFollowsAReplacedObject) {
  const std::string tiles =
      R"(gpu0.cta_tiles=[{"m": 128, "n": 128, "k_bytes": 128, "warp_m": 64, "warp_n": 128, "stages": 6}])";
  const Hardware hw =
      with({"gpu0.cta_tiles.0.stages=3", "gpu0.cta_tiles.0.stages=2", tiles, "gpu0.cta_tiles.0.stages=5"});
  const auto& cta_tiles = unit(hw, "gpu0").as<units::GpuParams>().cta_tiles;
  ASSERT_EQ(cta_tiles.size(), 1u);
  EXPECT_EQ(cta_tiles[0].n, 128);
  EXPECT_EQ(cta_tiles[0].stages, 5);
  const Hardware again = with({"gpu0.cta_tiles.0.stages=3", "gpu0.cta_tiles.0.stages=2"});
  EXPECT_EQ(unit(again, "gpu0").as<units::GpuParams>().cta_tiles[0].stages, 2);
}

TEST(ConfigOverride, DeeplyNestedValueIsText) {
  expect_error("phu0.wdm_channels=" + std::string(100000, '['), "expects a number");
}

// Found by fuzzing (tests/fuzz): a key with a carriage return was echoed raw, breaking the one-line
// message. InputError writes control characters as escapes.
TEST(ConfigOverride, ControlCharactersInTheKeyStayOnOneLine) {
  const std::string message = error_of({"un\rits.gpu0.tile.m=32"});
  EXPECT_EQ(message.rfind("--set un\\rits.gpu0.tile.m=32: no unit named 'un\\rits'", 0), 0u) << message;
}

TEST(ConfigOverride, ArrayElementsByIndex) {
  const Hardware hw = with({"links.pcie-gpu.endpoints.0=phu0"}); // the GPU hangs off the photonic card
  const Link& l = link(hw, "pcie-gpu");
  EXPECT_EQ(l.endpoints[0], unit(hw, "phu0").memory);
}

TEST(ConfigOverride, FaultOfTheFileIsReportedAsTheFiles) {
  json broken = photonic_json();
  broken["units"][0]["cores"] = 0;
  try {
    hardware_with_overrides(broken, "broken.json", {"phu0.wdm_channels=4"});
    FAIL() << "accepted a config with zero cores";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("broken.json", 0), 0u) << e.what();
  }
}

} // namespace
} // namespace lightsim::ir
