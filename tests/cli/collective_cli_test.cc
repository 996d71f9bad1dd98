// lightsim-collective as users run it: nccl-tests' columns for a size sweep on a shipped multi-GPU config,
// the replay beside the closed form, and bad input as one line with exit 2.
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace lightsim::test {
namespace {

std::string collective() {
  return binary_path("sim/lightsim-collective");
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');)
    out.push_back(f);
  return out;
}

TEST(CollectiveCli, RingAllReduceOnEightH100sInCsvWithItsReplay) {
  const CommandResult r = run_command(collective() + " --hw " + shipped_config("h100x8.json") +
                                      " --kind gpu --algorithm ring --csv --simulate -b 1M -e 1G -f 1024");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::stringstream out(r.out);
  std::string header, small, large;
  std::getline(out, header), std::getline(out, small), std::getline(out, large);
  EXPECT_EQ(
      header,
      "size_B,time_us,algbw_GBps,busbw_GBps,algorithm,protocol,energy_uJ,replay_time_us,replay_energy_uJ");
  const std::vector<std::string> a = fields(small), b = fields(large);
  ASSERT_EQ(b.size(), 9u) << large;
  EXPECT_EQ(a[0], "1048576");
  EXPECT_EQ(b[0], "1073741824");
  EXPECT_EQ(b[4], "ring");
  EXPECT_EQ(b[5], "simple"); // LL128's 1/16 flag bytes cost more than its shorter steps save at 1 GiB
  // busbw at 1 GiB: the NVLink port's 450 GB/s x the fitted efficiency, less the steps' fixed costs.
  EXPECT_NEAR(std::stod(b[3]), 360.0, 1.0);
  EXPECT_EQ(b[1], b[7]); // the replay takes the closed form's time on a symmetric switch
  EXPECT_LT(std::stod(a[3]), std::stod(b[3]));
}

TEST(CollectiveCli, BadInputIsOneLine) {
  const std::string hw = " --hw " + shipped_config("h100x8.json");
  expect_bad_input(run_command(collective() + hw + " --units gpu0,gpu9"), "no unit named 'gpu9'");
  expect_bad_input(run_command(collective() + hw + " --kind gpu --op all_gather --algorithm tree"),
                   "the tree runs all-reduce only");
  expect_bad_input(run_command(collective() + hw + " --kind gpu --algorithm ring2d --rows 3"),
                   "rows > 1 that divide the 8 units");
  expect_bad_input(run_command(collective() + hw + " --kind phu"), "the group has 0 unit(s)");
  expect_bad_input(run_command(collective() + hw), "give --units or --kind");
  expect_bad_input(
      run_command(collective() + hw + " --kind gpu --algorithm tree -b 1M -e 800T -f 1024 --simulate"),
      "raise collectives.pipeline_chunk_bytes");
}

} // namespace
} // namespace lightsim::test
