// The main() of every lightsim test binary. It lives in an object file so that it, not the main() in
// libsystemc.so, is the program's entry point (see tests/CMakeLists.txt).
#include <cstdio>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
