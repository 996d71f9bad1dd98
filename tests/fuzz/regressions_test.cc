// Every committed fuzz input (tests/fuzz/regressions/<target>/: the minimised inputs of crashes the fuzzers
// found, each fixed; tests/fuzz/seeds/<target>/: the hand-written seeds) through its target's entry
// (tests/fuzz/fuzz_entries.h), in every build: no crash, and (in the sanitizer build) no memory error.
// An entry aborts on a multi-line rejection; any exception but InputError fails the test here.
#include "tests/fuzz/fuzz_entries.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace lightsim::fuzz {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class FuzzInputs : public ::testing::TestWithParam<Target> {};

} // namespace

// gtest names the parameter by this (ctest lists it).
void PrintTo(const Target& target, std::ostream* out) {
  *out << target.name;
}

namespace {

TEST_P(FuzzInputs, CommittedInputsAreAcceptedOrRejectedInOneLine) {
  const Target& target = GetParam();
  std::size_t inputs = 0;
  for (const char* kind : {"regressions", "seeds"}) {
    const fs::path dir = fs::path(test::source_path("tests/fuzz")) / kind / target.name;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      SCOPED_TRACE(entry.path().string());
      EXPECT_NO_THROW(target.run(slurp(entry.path())));
      ++inputs;
    }
  }
  std::printf("%s: %zu committed inputs\n", target.name, inputs);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, FuzzInputs, ::testing::ValuesIn(targets()),
                         [](const ::testing::TestParamInfo<Target>& param) {
                           return std::string(param.param.name);
                         });

} // namespace
} // namespace lightsim::fuzz
