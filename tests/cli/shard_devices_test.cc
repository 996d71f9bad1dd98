// Where a tensor-parallel shard runs (ir/cost/device_plan.h) and what its peers share, end to end on
// configs/photonic-x4.json: the host, the GPU and four photonic cards with vector units on one PCIe switch.
#include "ir/hardware/hardware.h"
#include "ir/hardware/transfer.h"
#include "tests/cli/run_command.h"
#include "tests/sim/h5_read.h"
#include "tests/test_support.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>

namespace lightsim {
namespace {

std::string graph_tool() {
  return test::binary_path("sim/lightsim-graph");
}

// A shard's ops stay on its devices (ir/cost/device_plan.h), and the host streams every card its weights
// through its one port of the PCIe switch: GPT-2's fp32 shard at TP 4 on configs/photonic-x4.json runs
// wholly on phu0 (nothing on the host or the GPU, which would serve all four shards at once), and a weight
// sent alone from the host's port takes latency + 4 x wire bytes / bandwidth (the peers' three copies beside
// it), in the solver's schedule and in the replay.
TEST(TensorParallel, PhotonicCardsRunTheirShardAndShareTheHostsSwitchPort) {
  const std::string dir = test::temp_dir();
  ASSERT_EQ(test::run_command(graph_tool() + " --model gpt2 --seq 8 --tensor-parallel 4 --all-reduces -o " +
                              dir + "/tp.json")
                .exit_code,
            0);
  const std::string config = test::shipped_config("photonic-x4.json");
  const test::CommandResult r = test::run_command(test::lightsim() + " --hw " + config + " --graph " + dir +
                                                  "/tp.json --json --trace " + dir +
                                                  "/tp.h5 --chrome-trace " + dir + "/tp_chrome.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ops_by_unit"]["cpu0"], 0);
  EXPECT_EQ(j["ops_by_unit"]["gpu0"], 0);
  EXPECT_GT(j["ops_by_unit"]["phu0"].get<int>(), 0);

  const ir::Hardware hw = ir::load_hardware(config);
  const auto sw = std::find_if(hw.links.begin(), hw.links.end(),
                               [](const ir::Link& l) { return l.name == "pcie-switch"; });
  ASSERT_NE(sw, hw.links.end());
  const H5::H5File f(dir + "/tp.h5", H5F_ACC_RDONLY);
  using test::h5read::column;
  const auto src = test::h5read::strings(f, "/transfers", "src_memory");
  const auto dst = test::h5read::strings(f, "/transfers", "dst_memory");
  const auto bytes = column<std::uint64_t>(f, "/transfers", "bytes");
  const auto ps = column<double>(f, "/transfers", "predicted_start_s"),
             pe = column<double>(f, "/transfers", "predicted_end_s");
  const auto ss = column<double>(f, "/transfers", "simulated_start_s"),
             se = column<double>(f, "/transfers", "simulated_end_s");
  std::size_t streamed = 0, alone = 0;
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (src[i] != "dram0" || dst[i] != "sram0") continue;
    ++streamed;
    const double expected_s =
        (sw->latency_ns + 4 * ir::TransferModel::wire_bytes(*sw, bytes[i]) / sw->bandwidth_GBps) * 1e-9;
    EXPECT_GE(pe[i] - ps[i], expected_s * (1 - 1e-9)) << i;
    EXPECT_GE(se[i] - ss[i], expected_s * (1 - 1e-9)) << i;
    if (std::abs(pe[i] - ps[i] - expected_s) < 1e-9 * expected_s &&
        std::abs(se[i] - ss[i] - expected_s) < 1e-9 * expected_s)
      ++alone;
  }
  EXPECT_GT(streamed, 10u);
  EXPECT_GT(alone, streamed / 2);

  // The Chrome trace: each peer card's lanes repeat phu0's ops (args.mirrors), as it runs them at once.
  std::ifstream chrome(dir + "/tp_chrome.json");
  const nlohmann::json events = nlohmann::json::parse(chrome)["traceEvents"];
  std::map<std::string, std::size_t> ops_on;
  for (const nlohmann::json& e : events) {
    if (e["ph"] != "X" || !e["args"].contains("unit")) continue;
    const std::string unit = e["args"]["unit"];
    ++ops_on[unit];
    if (unit != "phu0") {
      EXPECT_EQ(e["args"]["mirrors"], "phu0") << e.dump();
    }
  }
  EXPECT_GT(ops_on["phu0"], 0u);
  for (const char* peer : {"phu1", "phu2", "phu3"})
    EXPECT_EQ(ops_on[peer], ops_on["phu0"]) << peer;
  EXPECT_EQ(ops_on.count("gpu0"), 0u);

  // Cards without a gather: the embedding has nowhere to run (not the host, not the GPU): one line.
  nlohmann::json no_take = ir::read_hardware_config(config);
  no_take["models"]["phu-vector-roofline"].erase("take");
  std::ofstream(dir + "/no_take.json") << no_take.dump();
  test::expect_bad_input(
      test::run_command(test::lightsim() + " --hw " + dir + "/no_take.json --graph " + dir + "/tp.json"),
      {"fused with", "'take' cannot run on 'phu0', the shard's device in", "runs on its devices only"});
}

} // namespace
} // namespace lightsim
