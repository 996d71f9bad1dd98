// The main() of every lightsim test binary. It lives in an object file so that it, not the main() in
// libsystemc.so, is the program's entry point (see tests/CMakeLists.txt). It registers the unit kinds
// (sim/units/registry.h) before any test loads a config, and removes each passing test's temp files.
#include "sim/units/registry.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <systemc>

namespace {

// Removes the directories a test made through test::temp_dir() once it has passed; a failed test's stay
// (CI runs the suite twice, and a full run writes about a gigabyte there).
class RemoveTempPaths : public testing::EmptyTestEventListener {
  void OnTestEnd(const testing::TestInfo& info) override {
    if (!info.result()->Failed()) lightsim::test::remove_test_paths();
  }
};

} // namespace

int main(int argc, char** argv) {
  lightsim::register_unit_kinds();
  testing::InitGoogleTest(&argc, argv);
  testing::UnitTest::GetInstance()->listeners().Append(new RemoveTempPaths);
  return RUN_ALL_TESTS();
}

// Every binary that links SystemC (all of them: the unit kinds' modules) needs an sc_main. If SystemC's
// own main() ever ran instead of the one above, this makes the binary fail rather than pass silently.
int sc_main(int, char**) {
  return 3;
}
