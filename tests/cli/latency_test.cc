// Latency hiding as a user meets it: `--latency-hiding on|off` (the configs' `latency_hiding`), the report's
// and --json's per-unit load figures (predicted and, with --simulate, replayed), and each bad input of the
// latency-hiding fields (PHU weight_buffers outside 1..2, a prefetch depth below 1, prefetch buffers larger
// than their memory, an unknown switch value): one line naming the field, exit status 2.
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim {
namespace {

TEST(LatencyHidingCli, WeightBuffersOutsideOneToTwoIsBadInput) {
  for (const char* value : {"0", "3"})
    test::expect_bad_input(test::run_command(test::photonic_mlp2() + " --set phu0.weight_buffers=" + value),
                           {"units[2].weight_buffers", "must be in 1..2"});
}

TEST(LatencyHidingCli, PrefetchDepthBelowOneIsBadInput) {
  test::expect_bad_input(test::run_command(test::photonic_mlp2() + " --set gpu0.prefetch.depth=0"),
                         {"units[1].prefetch.depth", "must be in 1.."});
}

TEST(LatencyHidingCli, PrefetchBuffersLargerThanTheMemoryAreBadInput) {
  // 2 x 20 MiB of buffers in the PHU's 32 MiB SRAM.
  test::expect_bad_input(test::run_command(test::photonic_mlp2() + " --set phu0.prefetch.buffer_MiB=20"),
                         {"units[2].prefetch.buffer_MiB", "sram0", "capacity_MiB 32"});
  // With latency hiding off the buffers are not reserved: accepted.
  EXPECT_EQ(
      test::run_command(test::photonic_mlp2() + " --set phu0.prefetch.buffer_MiB=20 --latency-hiding off")
          .exit_code,
      0);
}

TEST(LatencyHidingCli, UnknownSwitchValueIsBadInput) {
  test::expect_bad_input(test::run_command(test::photonic_mlp2() + " --latency-hiding maybe"),
                         {"--latency-hiding"});
}

TEST(LatencyHidingCli, ReportAndJsonGiveEveryUnitsLoads) {
  // The shipped card modulates both operands every cycle (nothing to program, so one weight buffer is all
  // it uses); a card that programs its weights double-buffers them with weight_buffers 2.
  const std::string two_buffers = " --set phu0.weight_buffers=2";
  const auto text = test::run_command(test::photonic_mlp2() + two_buffers + " --simulate");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("latency   hiding on: cpu0 load stage 2 x 1024 MiB"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("phu0 2 weight buffers"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("load stages (predicted)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("load stages (SystemC replay)"), std::string::npos) << text.out;

  for (const char* mode : {"on", "off"}) {
    SCOPED_TRACE(mode);
    const auto r = test::run_command(test::photonic_mlp2() + two_buffers +
                                     " --json --simulate --latency-hiding " + mode);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const bool on = std::string(mode) == "on";
    for (const nlohmann::json* block : {&j["latency_hiding"], &j["simulation"]["latency_hiding"]}) {
      EXPECT_EQ((*block)["enabled"].get<bool>(), on);
      ASSERT_EQ((*block)["units"].size(), 3u);
      for (const auto& u : (*block)["units"]) {
        for (const char* key : {"name", "prefetch_depth", "buffer_bytes", "loads", "oversized_loads",
                                "load_bytes", "load_busy_s", "hidden_s", "stall_s"})
          EXPECT_TRUE(u.contains(key)) << key;
        EXPECT_EQ(u["prefetch_depth"].get<int>(), on ? 2 : 0);
        if (!on) {
          EXPECT_EQ(u["loads"].get<int>(), 0);
        }
        EXPECT_GE(u["stall_s"].get<double>(), 0);
        EXPECT_LE(u["hidden_s"].get<double>(), u["load_busy_s"].get<double>() + 1e-15);
      }
      EXPECT_EQ((*block)["units"][2]["weight_buffers"].get<int>(), on ? 2 : 1);
    }
  }
}

// A prefetched weight that does not spill (issue 25): DOTA-B (configs/published/dota-b-8bit.json) holds
// every weight in DRAM and its PHU's load stage streams each into two 0.25 MiB prefetch buffers of the
// 2 MB global buffer ahead of the op that reads it. On one DeiT-T layer (int8, weights folded): the plan
// streams exactly the bytes DRAM holds, the replay moves each over the bus once (its link energy is those
// bytes at the bus's 31.2 pJ/B) and charges no DRAM access (nothing spilled), and the model's energy is
// the replay's.
TEST(LatencyHidingCli, PrefetchedWeightsDoNotSpill) {
  const std::string graph = test::temp_dir() + "/deit_t_1.json";
  const test::CommandResult made = test::run_command(test::binary_path("sim/lightsim-graph") +
                                                     " --model deit-t --layers 1 --dtype int8 -o " + graph);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const test::CommandResult r = test::run_command(test::lightsim() + " --hw " +
                                                  test::source_path("configs/published/dota-b-8bit.json") +
                                                  " --graph " + graph + " --simulate --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  double held = 0, streamed = 0;
  for (const nlohmann::json& m : j["memories"]) {
    if (m["name"] == "dram0") held = m["resident_weight_bytes"].get<double>();
    if (m["name"] == "sram0") streamed = m["streamed_weight_bytes"].get<double>();
  }
  ASSERT_GT(held, 0);
  EXPECT_EQ(streamed, held);
  ASSERT_EQ(j["links"].size(), 1u);
  EXPECT_EQ(j["links"][0]["bytes"].get<double>(), held);
  double link_j = 0, dram_j = 0;
  for (const nlohmann::json& row : j["simulation"]["energy_comparison"]) {
    if (row["component"] == "link") link_j += row["simulated_j"].get<double>();
    if (row["component"] == "dram") dram_j += row["simulated_j"].get<double>();
  }
  EXPECT_NEAR(link_j, held * 31.2e-12, 1e-9 * link_j);
  EXPECT_EQ(dram_j, 0.0);
  EXPECT_NEAR(j["simulation"]["simulated_energy_j"].get<double>(), j["energy_j"].get<double>(),
              1e-9 * j["energy_j"].get<double>());
}

} // namespace
} // namespace lightsim
