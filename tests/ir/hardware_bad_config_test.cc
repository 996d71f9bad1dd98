// Tests of the hardware config loader's errors: one test per kind of bad config (a missing, zero, negative
// or mistyped rate, an unknown key or one of another unit kind, a model naming an unknown op class or
// feature, names that repeat or point nowhere, unreachable memories), each rejected with one line naming
// the file, the JSON path and the problem. (The shipped configs and the fields: hardware_test.cc.)
#include "ir/hardware/hardware.h"
#include "tests/ir/hardware_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim::ir {
namespace {

using nlohmann::json;

// ---- One test per kind of bad config --------------------------------------------------------------

TEST(HardwareBadConfig, MissingRate) {
  json c = test::small_machine();
  c["units"][0].erase("clock_ghz");
  test::expect_config_error(c, "units[0].clock_ghz", "missing");
}

TEST(HardwareBadConfig, ZeroRate) {
  json c = test::small_machine();
  c["memories"][1]["bandwidth_GBps"] = 0;
  test::expect_config_error(c, "memories[1].bandwidth_GBps", "must be positive");
}

TEST(HardwareBadConfig, NegativeRate) {
  json c = test::small_machine();
  c["units"][2]["dac"]["bit_clock_ghz"] = -10;
  test::expect_config_error(c, "units[2].dac.bit_clock_ghz", "must be positive");
}

TEST(HardwareBadConfig, ZeroCount) {
  json c = test::small_machine();
  c["units"][1]["sms"] = 0;
  test::expect_config_error(c, "units[1].sms", "must be positive");
}

TEST(HardwareBadConfig, RateOfWrongType) {
  json c = test::small_machine();
  c["units"][0]["clock_ghz"] = "fast";
  test::expect_config_error(c, "units[0].clock_ghz", "expected a number");
}

TEST(HardwareBadConfig, PcieGenerationOutOfRange) {
  json c = test::small_machine();
  c["links"][1]["generation"] = 7;
  test::expect_config_error(c, "links[1].generation", "must be in 1..6");
}

TEST(HardwareBadConfig, LinkNamingAMissingUnit) {
  json c = test::small_machine();
  c["links"][1]["endpoints"][1] = "phu9";
  test::expect_config_error(c, "links[1].endpoints[1]", "no unit or memory named 'phu9'");
}

TEST(HardwareBadConfig, UnknownKey) {
  json c = test::small_machine();
  c["units"][0]["clok_ghz"] = 3.0;
  test::expect_config_error(c, "units[0].clok_ghz", "unknown key");
}

TEST(HardwareBadConfig, KeyOfAnotherUnitKind) {
  json c = test::small_machine();
  c["units"][0]["sms"] = 10; // a GPU field on a CPU
  test::expect_config_error(c, "units[0].sms", "unknown key");
}

TEST(HardwareBadConfig, UnknownOpClassInModel) {
  json c = test::small_machine();
  c["models"]["m-gpu"]["convolution"] = c["models"]["m-gpu"]["add"];
  test::expect_config_error(c, "models.m-gpu.convolution", "unknown op class 'convolution'");
}

TEST(HardwareBadConfig, UnknownFeatureInModel) {
  json c = test::small_machine();
  c["models"]["m-gpu"]["add"]["time_s"]["flops"] = 1e-12;
  test::expect_config_error(c, "models.m-gpu.add.time_s.flops", "unknown feature");
}

TEST(HardwareBadConfig, PieceWithoutConditionBeforeTheLast) {
  json c = test::small_machine();
  c["models"]["m-phu"]["dense"]["pieces"][0].erase("when");
  test::expect_config_error(c, "models.m-phu.dense.pieces[0].when", "only the last piece");
}

TEST(HardwareBadConfig, DuplicateUnitName) {
  json c = test::small_machine();
  c["units"][2]["name"] = "gpu0";
  test::expect_config_error(c, "units[2].name", "duplicate name 'gpu0'");
}

TEST(HardwareBadConfig, UnitMemoryMissing) {
  json c = test::small_machine();
  c["units"][1]["memory"] = "hbm7";
  test::expect_config_error(c, "units[1].memory", "no memory named 'hbm7'");
}

TEST(HardwareBadConfig, UnitModelMissing) {
  json c = test::small_machine();
  c["units"][1]["model"] = "h100";
  test::expect_config_error(c, "units[1].model", "no model named 'h100'");
}

TEST(HardwareBadConfig, UnreachableMemory) {
  json c = test::small_machine();
  c["links"].erase(1); // the PHU's SRAM is now an island
  test::expect_config_error(c, "links",
                            "no route from memory 'dram0' (unit 'cpu0') to memory 'sram0' (unit 'phu0')");
}

TEST(HardwareBadConfig, PlacementNamingAMissingUnit) {
  json c = test::small_machine();
  c["placement"]["params"] = "tpu0";
  test::expect_config_error(c, "placement.params", "no unit named 'tpu0'");
}

// ---- Latency hiding: the switch, PHU weight buffers, the units' load stages -------------------------

} // namespace
} // namespace lightsim::ir
