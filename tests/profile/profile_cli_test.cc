// lightsim-profile as users run it: a measurement file from the example MLP with the machine's load, a
// profile under a synthetic load marked disturbed (or refused), and bad input answered with one line and
// exit status 2, leaving no file behind.
#include "sim/profile/gpu.h"
#include "sim/profile/measurements.h"
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

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

// Every CPU profile says what ran on several threads and how busy the machine was while it ran.
TEST(ProfileCli, RecordsWhatRanMultiThreadedAndTheLoad) {
  const std::string out = temp_dir() + "/mlp2t.h5";
  const auto r = run_command(profile_cmd("--graph " + source_path("tests/data/mlp2.json") +
                                         " --unit cpu --threads 2 --repeats 3 --budget-ms 0.1 -q -o " + out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("other_load_cores"), std::string::npos) << r.out;
  const auto file = profile::read_measurement_file(out);
  EXPECT_EQ(file.machine.threads, 2);
  EXPECT_NE(file.machine.threading.find("Eigen GEMMs with OpenMP"), std::string::npos)
      << file.machine.threading;
  EXPECT_EQ(file.machine.intra_op_min_rows, 4);
  EXPECT_DOUBLE_EQ(file.machine.intra_op_min_macs, 50000);
  EXPECT_DOUBLE_EQ(file.machine.max_other_load_cores, 0.1);
  EXPECT_GT(file.machine.self_cpu_s, 0);
  EXPECT_GE(file.machine.other_cpu_s, 0);
  EXPECT_FALSE(file.machine.load_average_end.empty());
  EXPECT_EQ(file.machine.disturbed, !file.machine.disturbance.empty());
}

// A synthetic load: a busy loop runs in another process for the whole profile, and the limit is 0 cores
// of other work. With --require-quiet the profile is refused (exit 3, one line, no file); without, it is
// written and marked disturbed. The profile lasts over half a second (20000 samples of each op, at least 5
// us each), so that /proc/stat's 10 ms ticks see the loop.
TEST(ProfileCli, ProfileUnderASyntheticLoadIsDisturbed) {
  const std::string dir = temp_dir();
  const std::string profile = profile_cmd("--graph " + source_path("tests/data/mlp2.json") +
                                          " --unit cpu --repeats 20000 --max-repeats 20000 -q "
                                          "--max-other-load 0 ");
  const auto under_load = [&](const std::string& command) {
    return run_command("{ sh -c 'while :; do :; done' & spin=$!; sleep 0.3; " + command +
                       "; rc=$?; kill $spin; exit $rc; }");
  };
  const auto refused = under_load(profile + "--require-quiet -o " + dir + "/refused.h5");
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_EQ(line_count(refused.err), 1u) << refused.err;
  EXPECT_NE(refused.err.find("refused"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/refused.h5"));
  const auto marked = under_load(profile + "-o " + dir + "/marked.h5");
  ASSERT_EQ(marked.exit_code, 0) << marked.err;
  EXPECT_NE(marked.out.find("DISTURBED"), std::string::npos) << marked.out;
  const auto file = profile::read_measurement_file(dir + "/marked.h5");
  EXPECT_TRUE(file.machine.disturbed);
  EXPECT_GT(file.machine.other_cpu_s, 0);
  EXPECT_NE(file.machine.disturbance.find("other processes"), std::string::npos) << file.machine.disturbance;
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

// Packed sub-byte tensors (issue 25): the CPU kernels cannot address an int4 element, so the profile refuses
// the graph in one line naming the tensor, not running the kernels over half-size buffers.
TEST(ProfileCli, SubByteGraphExitsTwo) {
  const std::string dir = temp_dir();
  std::stringstream text;
  text << std::ifstream(source_path("tests/data/mlp2.json")).rdbuf();
  std::string graph = text.str();
  for (std::size_t at = graph.find("\"float32\""); at != std::string::npos;
       at = graph.find("\"float32\"", at))
    graph.replace(at, 9, "\"int4\"");
  const std::string path = dir + "/mlp2-int4.json";
  std::ofstream(path) << graph;
  const auto r = run_command(profile_cmd("--graph " + path + " --unit cpu -o " + dir + "/m.h5"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("mlp2-int4.json: tensor 0: dtype int4 is packed below a byte"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/m.h5"));
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
