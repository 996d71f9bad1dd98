// lightsim-profile as users run it: a measurement file from the example MLP, and bad input answered with
// one line and exit status 2, leaving no file behind.
#include "sim/profile/gpu.h"
#include "sim/profile/measurements.h"
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace lightsim::test {
namespace {

std::string profile_cmd(const std::string& args) {
  return binary_path("sim/lightsim-profile") + " " + args;
}

TEST(ProfileCli, WritesAReadableMeasurementFile) {
  const std::string out = temp_dir() + "/mlp.h5";
  const auto r = run_command(profile_cmd("--graph " + source_path("tests/data/mlp2.json") +
                                         " --unit cpu --threads 1 --repeats 3 --budget-ms 0.1 -q -o " + out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("end_to_end_median_s"), std::string::npos) << r.out;
  const auto file = profile::read_measurement_file(out);
  EXPECT_EQ(file.machine.threads, 1);
  EXPECT_EQ(file.ops.size(), 6u); // dense, add, relu, dense, add, relu
}

TEST(ProfileCli, BadOutputPathExitsTwoWithoutFile) {
  const std::string dir = temp_dir();
  const auto r = run_command(
      profile_cmd("--graph " + source_path("tests/data/mlp2.json") + " -o " + dir + "/no/such/dir/m.h5"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(ProfileCli, MissingGraphExitsTwo) {
  const std::string dir = temp_dir();
  auto r = run_command(profile_cmd("--graph " + dir + "/none.json -o " + dir + "/m.h5"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

// --unit gpu: without CUDA support in this build, or without a CUDA device, one line saying which and exit
// status 2; with both, a measurement file of the GPU.
TEST(ProfileCli, GpuUnitSaysWhyNotOrMeasuresTheGpu) {
  const std::string dir = temp_dir();
  const auto r = run_command(profile_cmd("--graph " + source_path("tests/data/mlp2.json") +
                                         " --unit gpu --repeats 3 --budget-ms 0.1 -q -o " + dir + "/m.h5"));
  if (LIGHTSIM_TEST_HAVE_CUDA && profile::gpu_unavailable_reason().empty()) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto file = profile::read_measurement_file(dir + "/m.h5");
    EXPECT_EQ(file.machine.unit, "gpu");
    EXPECT_EQ(file.ops.size(), 6u);
    return;
  }
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(LIGHTSIM_TEST_HAVE_CUDA ? "no CUDA device" : "no CUDA support"), std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

} // namespace
} // namespace lightsim::test
