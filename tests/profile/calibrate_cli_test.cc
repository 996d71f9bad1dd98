// Calibration from the command line: `lightsim --retrain out.json --measured m.h5` and lightsim-calibrate
// are one command (same config from the same measurements); bad measurement files and writing over the
// base config are answered with one line and exit status 2, leaving no output behind.
#include "ir/hardware/hardware.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace lightsim::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CalibrateCli : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = temp_dir();
    measured_ = dir_ + "/mlp.h5";
    const auto r =
        run_command(binary_path("sim/lightsim-profile") + " --graph " + source_path("tests/data/mlp2.json") +
                    " --unit cpu --threads 1 --repeats 3 --budget-ms 0.1 -q -o " + measured_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string lightsim(const std::string& args) const {
    return binary_path("sim/lightsim") + " --hw " + source_path("configs/lightcode-cpu.json") + " " + args;
  }
  std::string dir_, measured_;
};

TEST_F(CalibrateCli, RetrainOnMeasurementsEqualsLightsimCalibrate) {
  const std::string a = dir_ + "/a.json", b = dir_ + "/b.json";
  const auto r = run_command(lightsim("--retrain " + a + " --measured " + measured_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cpu module: dispatch_ns"), std::string::npos) << r.out;
  const auto c = run_command(binary_path("sim/lightsim-calibrate") + " --base " +
                             source_path("configs/lightcode-cpu.json") + " -o " + b + " " + measured_);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(slurp(a), slurp(b));
  const ir::Hardware hw = ir::load_hardware(a);
  EXPECT_EQ(hw.units[0].cores, 1);
  EXPECT_GT(hw.units[0].as<units::CpuParams>().memory_port_GBps, 0);
}

TEST_F(CalibrateCli, BadMeasurementsOrOverwritingTheBaseExitTwo) {
  const std::string out = dir_ + "/out.json";
  auto r = run_command(lightsim("--retrain " + out + " --measured " + dir_ + "/none.h5"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  r = run_command(lightsim("--retrain " + out + " --measured " + source_path("tests/data/mlp2.json")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string base = dir_ + "/base.json";
  std::filesystem::copy_file(source_path("configs/lightcode-cpu.json"), base);
  const std::string before = slurp(base);
  r = run_command(binary_path("sim/lightsim-calibrate") + " --base " + base + " -o " + base + " " +
                  measured_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("base config"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(base), before);
}

// The replay retrain's options mean nothing to a calibration from measurements (nothing is planned or
// replayed): each is refused in one line with exit status 2, and nothing is written.
TEST_F(CalibrateCli, ReplayOptionsAreRefusedWithMeasured) {
  const std::string out = dir_ + "/out.json", trace = dir_ + "/run.h5";
  for (const std::string& option :
       {"--trace " + trace, std::string("--simulate"),
        "--retrain-graphs " + source_path("tests/data/mlp2.json"), std::string("--retrain-rounds 2")}) {
    SCOPED_TRACE(option);
    const auto r = run_command(lightsim("--retrain " + out + " --measured " + measured_ + " " + option));
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(line_count(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(option.substr(0, option.find(' ')) + " cannot be used with --measured"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_FALSE(std::filesystem::exists(trace));
  }
}

} // namespace
} // namespace lightsim::test
