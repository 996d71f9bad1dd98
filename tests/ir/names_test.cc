// ir/text_format.h (format() never cuts its text), Hardware::unit_name / memory_name (empty out of range) and
// the NameTables of ir/ that replaced hand-written name functions.
#include "ir/hardware/hardware.h"
#include "ir/import_options.h"
#include "ir/text_format.h"

#include <gtest/gtest.h>
#include <string>

namespace lightsim::ir {
namespace {

TEST(TextFormat, FormatsLikePrintf) {
  EXPECT_EQ(format("%-6s|%7.3f|%zu", "unit", 1.5, std::size_t{42}), "unit  |  1.500|42");
  EXPECT_EQ(format("%s", ""), "");
}

TEST(TextFormat, NeverCutsLongText) {
  // Around the first pass's 256-byte buffer, and far past it.
  for (std::size_t n : {254u, 255u, 256u, 257u, 5000u}) {
    const std::string long_name(n, 'x');
    const std::string out = format("[%s] %d", long_name.c_str(), 7);
    EXPECT_EQ(out, "[" + long_name + "] 7") << n;
  }
}

TEST(HardwareNames, UnitAndMemoryNamesAreEmptyOutOfRange) {
  Hardware hw;
  hw.units.resize(2);
  hw.units[0].name = "cpu0";
  hw.units[1].name = "phu0";
  hw.memories.resize(1);
  hw.memories[0].name = "dram0";
  EXPECT_EQ(hw.unit_name(1), "phu0");
  EXPECT_EQ(hw.memory_name(0), "dram0");
  for (int bad : {-1, 2, 100})
    EXPECT_EQ(hw.unit_name(bad), "") << bad;
  for (int bad : {-1, 1})
    EXPECT_EQ(hw.memory_name(bad), "") << bad;
}

TEST(NameTables, UnknownOpPoliciesRoundTrip) {
  for (const auto& [policy, name] : kUnknownOpPolicies.entries())
    EXPECT_EQ(kUnknownOpPolicies.parse(name), policy) << name;
  EXPECT_EQ(kUnknownOpPolicies.name(UnknownOpPolicy::Cpu), "cpu");
  EXPECT_FALSE(kUnknownOpPolicies.parse("gpu"));
  EXPECT_EQ(kUnknownOpPolicies.choices(), "error or cpu");
}

} // namespace
} // namespace lightsim::ir
