// Helpers shared by the tests: where the project's sources and the shared TVM exports are, and the rule
// for tests that need ../shared/models (skip with a message on a user's machine, fail in CI where
// LIGHTSIM_REQUIRE_SHARED=1).
#pragma once

#include <gtest/gtest.h>
#include <string>

namespace lightsim::test {

std::string source_path(const std::string& relative); // inside the project checkout
std::string binary_path(const std::string& relative); // inside the build directory
std::string shared_models_dir(); // $LIGHTSIM_SHARED_DIR/models or <checkout>/../shared/models
bool shared_models_available();
bool shared_models_required();                   // LIGHTSIM_REQUIRE_SHARED=1
std::string model_path(const std::string& file); // shared_models_dir() + "/" + file

// A fresh, empty directory under the system temp dir, unique to this test process. It is removed when
// the test ends, unless the test failed (then it stays, for a look at what the test wrote).
std::string temp_dir();
void remove_at_test_end(const std::string& path); // the same for a path a test makes itself
void remove_test_paths();                         // called by the test main at the end of each test

} // namespace lightsim::test

// Use at the top of a test that reads ../shared/models.
#define LIGHTSIM_NEED_SHARED_MODELS()                                                                        \
  do {                                                                                                       \
    if (!::lightsim::test::shared_models_available()) {                                                      \
      if (::lightsim::test::shared_models_required())                                                        \
        FAIL() << "LIGHTSIM_REQUIRE_SHARED=1 but " << ::lightsim::test::shared_models_dir()                  \
               << " is missing";                                                                             \
      GTEST_SKIP() << ::lightsim::test::shared_models_dir() << " not found (the shared TVM exports)";        \
    }                                                                                                        \
  } while (0)
