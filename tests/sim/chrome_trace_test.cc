// Chrome/Perfetto trace export: the JSON parses, has one slice per compute op on a declared lane, transfer
// slices on link processes, and flows whose ids pair one start with one finish.
#include "ir/error.h"
#include "sim/driver/pipeline.h"
#include "sim/trace/chrome_trace.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim {
namespace {

using nlohmann::json;

json parse(const sched::Schedule& s, const ir::Graph& g, const ir::Hardware& hw) {
  std::ostringstream out;
  write_chrome_trace(out, s, g, hw);
  return json::parse(out.str());
}

// Two units on two memories, two links in series through a DRAM in the middle: a transfer crosses both.
struct TwoHops {
  ir::Hardware hw;
  ir::Graph graph;
  sched::Schedule schedule;

  TwoHops() {
    hw.name = "two-hops";
    hw.memories.resize(3);
    hw.memories[0].name = "hbm0";
    hw.memories[1].name = "dram0";
    hw.memories[2].name = "sram0";
    hw.units.resize(2);
    unit(0, "gpu0", &units::gpu_kind(), 2, 0);
    unit(1, "phu0", &units::phu_kind(), 1, 2);
    hw.links.resize(2);
    link(0, "pcie-gpu", {0, 1});
    link(1, "pcie-phu", {1, 2});
    graph.source = "two_hops.json";
    graph.ops.resize(3);
    op(0, "x", ir::OpClass::Input);
    op(1, "dense0", ir::OpClass::Dense);
    op(2, "dense1", ir::OpClass::Dense);
    schedule.ops = {{0, 0, -1, 0, 0, 0}, {1, 0, 1, 0, 2e-6, 1e-3}, {2, 1, 0, 5e-6, 6e-6, 1e-3}};
    sched::ScheduledTransfer t;
    t.tensor = 1;
    t.src_op = 1;
    t.dst_op = 2;
    t.src_memory = 0;
    t.dst_memory = 2;
    t.links = {0, 1};
    t.hop_start_s = {2e-6, 3.5e-6};
    t.hop_end_s = {3e-6, 5e-6};
    t.bytes = 4096;
    t.start_s = 2e-6;
    t.end_s = 5e-6;
    schedule.transfers.push_back(t);
    schedule.makespan_s = 6e-6;
  }

  void unit(std::size_t i, const char* name, const ir::UnitKind* kind, int cores, int memory) {
    hw.units[i].name = name;
    hw.units[i].kind = kind;
    hw.units[i].params = kind->default_params();
    hw.units[i].cores = cores;
    hw.units[i].memory = memory;
  }
  void link(std::size_t i, const char* name, std::vector<int> endpoints) {
    hw.links[i].name = name;
    hw.links[i].kind = ir::LinkKind::Pcie;
    hw.links[i].endpoints = std::move(endpoints);
  }
  void op(std::size_t i, const char* name, ir::OpClass op_class) {
    graph.ops[i].name = name;
    graph.ops[i].op_class = op_class;
  }
};

std::vector<json> events(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == ph) out.push_back(e);
  return out;
}

TEST(ChromeTrace, ProcessesThreadsSlicesAndFlowThroughEveryHop) {
  const TwoHops t;
  const json trace = parse(t.schedule, t.graph, t.hw);
  std::map<int, std::string> processes;
  std::set<std::pair<int, int>> threads;
  for (const json& m : events(trace, "M")) {
    if (m.at("name") == "process_name") processes[m.at("pid").get<int>()] = m.at("args").at("name");
    if (m.at("name") == "thread_name") threads.insert({m.at("pid").get<int>(), m.at("tid").get<int>()});
  }
  EXPECT_EQ(processes.size(), 4u); // two units, two links
  EXPECT_EQ(processes.at(1), "gpu0 (gpu)");
  EXPECT_EQ(processes.at(4), "link pcie-phu (pcie)");
  EXPECT_EQ(threads.size(), 2u + 1u + 2u); // gpu lanes, phu lane, one per link

  const auto slices = events(trace, "X");
  ASSERT_EQ(slices.size(), 2u + 2u); // two ops (the input has none), one transfer over two links
  EXPECT_EQ(slices[0].at("name"), "dense0");
  EXPECT_EQ(slices[0].at("tid"), 2); // lane 1
  EXPECT_DOUBLE_EQ(slices[0].at("dur").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(slices[3].at("ts").get<double>(), 3.5); // second hop, in microseconds
  EXPECT_EQ(slices[3].at("pid"), 4);
  for (const json& s : slices)
    EXPECT_TRUE(threads.count({s.at("pid").get<int>(), s.at("tid").get<int>()})) << s.dump();

  const auto starts = events(trace, "s"), steps = events(trace, "t"), finishes = events(trace, "f");
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(steps.size(), 2u);
  ASSERT_EQ(finishes.size(), 1u);
  EXPECT_EQ(starts[0].at("id"), finishes[0].at("id"));
  EXPECT_EQ(finishes[0].at("bp"), "e");
  EXPECT_EQ(finishes[0].at("pid"), 2); // the consumer's unit
  EXPECT_EQ(starts[0].at("pid"), 1);   // the producer's unit
}

TEST(ChromeTrace, FlowFromAResidentInputStartsOnTheLink) {
  TwoHops t;
  t.schedule.transfers[0].src_op = 0; // the input x, resident in hbm0
  const json trace = parse(t.schedule, t.graph, t.hw);
  const auto starts = events(trace, "s");
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].at("pid"), 3); // first link
  EXPECT_EQ(events(trace, "t").size(), 1u);
  EXPECT_EQ(events(trace, "f").size(), 1u);
}

TEST(ChromeTrace, RealPipelineHasOneSlicePerComputeOpAndMatchedFlows) {
  PipelineOptions options;
  options.hardware_path = test::source_path("configs/photonic.json");
  options.graph_path = test::source_path("tests/data/transformer_block.json");
  const Pipeline run(options);
  const std::string path = test::temp_dir() + "/trace.json";
  write_chrome_trace_file(path, run.schedule(), run.graph(), run.hardware());
  std::ifstream in(path);
  const json trace = json::parse(in);

  std::size_t op_slices = 0;
  for (const json& e : events(trace, "X"))
    op_slices += e.at("cat") != "transfer";
  EXPECT_EQ(op_slices, run.graph().num_compute_ops());

  std::map<std::uint64_t, std::pair<int, int>> flows; // id -> (starts, finishes)
  for (const json& e : events(trace, "s"))
    ++flows[e.at("id")].first;
  for (const json& e : events(trace, "f"))
    ++flows[e.at("id")].second;
  ASSERT_FALSE(run.schedule().transfers.empty()) << "the example should move tensors between units";
  EXPECT_EQ(flows.size(), run.schedule().transfers.size());
  for (const auto& [id, counts] : flows) {
    EXPECT_EQ(counts.first, 1) << id;
    EXPECT_EQ(counts.second, 1) << id;
  }
  for (const auto& entry : std::filesystem::directory_iterator(test::temp_dir()))
    EXPECT_EQ(entry.path().filename(), "trace.json") << "temporary file left behind";
}

TEST(ChromeTrace, UnwritablePathIsInputErrorAndLeavesNothing) {
  const TwoHops t;
  const std::string path = test::temp_dir() + "/no/such/dir/trace.json";
  try {
    write_chrome_trace_file(path, t.schedule, t.graph, t.hw);
    FAIL() << "wrote into a missing directory";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

} // namespace
} // namespace lightsim
