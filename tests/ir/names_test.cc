// ir/text_format.h: format() never cuts its text.
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

} // namespace
} // namespace lightsim::ir
