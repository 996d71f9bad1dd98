// The main() of every lightsim test binary. It lives in an object file so that it, not the main() in
// libsystemc.so, is the program's entry point (see tests/CMakeLists.txt). It registers the unit kinds
// (sim/units/registry.h) before any test loads a config.
#include "sim/units/registry.h"

#include <gtest/gtest.h>
#include <systemc>

int main(int argc, char** argv) {
  lightsim::register_unit_kinds();
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// Every binary that links SystemC (all of them: the unit kinds' modules) needs an sc_main. If SystemC's
// own main() ever ran instead of the one above, this makes the binary fail rather than pass silently.
int sc_main(int, char**) {
  return 3;
}
