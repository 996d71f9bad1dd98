// The list scheduler on a hand-made machine and graph whose schedule can be worked out on paper:
// a 2-core CPU on DRAM, an accelerator on its own SRAM, one bus between them (1 GB/s, 100 ns).
#include "ir/cost/cost_model.h"
#include "scheduler/list_scheduler.h"
#include "scheduler/schedule_search.h"
#include "scheduler/solver.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/phu/phu_work.h"
#include "tests/scheduler/hand_graphs.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace lightsim::sched {
namespace {

using testing::add_op;
using testing::constant_time;

ir::Hardware machine() {
  ir::Hardware hw;
  hw.name = "hand";
  hw.source = "hand.json";
  hw.memories = {
      {.name = "dram0", .kind = ir::MemoryKind::Dram, .capacity_bytes = 1e9, .bandwidth_GBps = 10},
      {.name = "sram0", .kind = ir::MemoryKind::Sram, .capacity_bytes = 1e6, .bandwidth_GBps = 100}};
  ir::Link bus;
  bus.name = "bus0";
  bus.endpoints = {0, 1};
  bus.bandwidth_GBps = 1; // 1 byte per ns
  bus.latency_ns = 100;
  bus.energy_pj_per_byte = 1;
  hw.links = {bus};
  ir::ArithmeticModel cpu_model, acc_model;
  cpu_model.name = "cpu";
  acc_model.name = "acc";
  cpu_model.classes[static_cast<std::size_t>(ir::OpClass::Add)].pieces = {constant_time(1e-6, 1e-9)};
  acc_model.classes[static_cast<std::size_t>(ir::OpClass::Dense)].pieces = {constant_time(2e-6, 1e-9)};
  hw.models = {cpu_model, acc_model};
  ir::Unit cpu;
  cpu.name = "cpu0";
  cpu.kind = &units::cpu_kind();
  cpu.params = units::cpu_kind().default_params();
  cpu.cores = 2;
  cpu.memory = 0;
  cpu.model = 0;
  cpu.static_power_w = 1;
  hw.units = {cpu, testing::accelerator("acc0", 1, 1)};
  hw.placement.inputs_unit = 0;
  hw.placement.params_unit = 0;
  return hw;
}

// x -> a(add) -> b(dense) -> c(add);  x -> d(add).  Every tensor 4000 bytes.
ir::Graph graph() {
  ir::Graph g;
  g.source = "hand-graph.json";
  auto op = [&](const char* name, ir::OpClass c, std::vector<ir::TensorId> inputs) {
    return add_op(g, name, c, std::move(inputs));
  };
  const ir::TensorId x = op("x", ir::OpClass::Input, {});
  const ir::TensorId a = op("a", ir::OpClass::Add, {x});
  const ir::TensorId b = op("b", ir::OpClass::Dense, {a});
  op("c", ir::OpClass::Add, {b});
  op("d", ir::OpClass::Add, {x});
  return g;
}

TEST(ListScheduler, HandComputedScheduleWithTransfersAndLanes) {
  const ir::Hardware hw = machine();
  const ir::Graph g = graph();
  const ir::TransferModel transfers(hw);
  const ir::StackedGraph sg = ir::build_stacked_graph(g, hw, transfers);
  const FlatGraph flat = solve(sg);
  std::vector<ir::OpId> binding;
  const Schedule s = list_schedule(flat, &binding);

  // a and d start together on the two CPU lanes; a has the longer tail so it takes lane 0.
  EXPECT_EQ(s.ops[1].lane, 0);
  EXPECT_EQ(s.ops[4].lane, 1);
  EXPECT_DOUBLE_EQ(s.ops[1].start_s, 0);
  EXPECT_DOUBLE_EQ(s.ops[4].start_s, 0);
  // a's output crosses the bus: 100 ns + 4000 B / (1 B/ns) = 4.1 us; b runs 2 us on acc0.
  EXPECT_NEAR(s.ops[2].start_s, 1e-6 + 4.1e-6, 1e-15);
  EXPECT_NEAR(s.ops[2].end_s, 7.1e-6, 1e-15);
  EXPECT_NEAR(s.ops[3].start_s, 7.1e-6 + 4.1e-6, 1e-15);
  EXPECT_NEAR(s.makespan_s, 12.2e-6, 1e-15);
  ASSERT_EQ(s.transfers.size(), 2u);
  EXPECT_EQ(s.link_bytes[0], 8000u);
  EXPECT_NEAR(s.link_busy_s[0], 8.2e-6, 1e-15);
  // Energy: 4 ops x 1 nJ + 8000 bytes x 1 pJ + 1 W static x makespan.
  EXPECT_NEAR(s.energy_j, 4e-9 + 8e-9 + 12.2e-6, 1e-15);
  EXPECT_NEAR(s.units[0].busy_s, 3e-6, 1e-15);

  // The critical path runs c <- b <- a <- x.
  EXPECT_EQ(critical_path(s, binding), (std::vector<ir::OpId>{3, 2, 1, 0}));
}

TEST(ListScheduler, OneCoreSerialisesIndependentOps) {
  ir::Hardware hw = machine();
  hw.units[0].cores = 1;
  const ir::Graph g = graph();
  const ir::TransferModel transfers(hw);
  const ir::StackedGraph sg = ir::build_stacked_graph(g, hw, transfers);
  const Schedule s = list_schedule(solve(sg));
  // d waits for a on the single lane: it has the smaller rank.
  EXPECT_DOUBLE_EQ(s.ops[4].start_s, 1e-6);
  EXPECT_NEAR(s.makespan_s, 12.2e-6, 1e-15);
}

// The CPU's two cores share an 8 GB/s memory port (dispatch 100 ns). An add (1 us in the model) moves
// its 8000 operand bytes, capped at what the port moves in its 900 ns before dispatch: 7200 bytes.
// a and d start together, each gets 4 B/ns: both flows end at 1.8 us, both ops at 1.9 us. c runs alone
// and keeps its model time, 1 us.
TEST(ListScheduler, CoresSharingAMemoryPortStretchOverlappingOps) {
  ir::Hardware hw = machine();
  hw.units[0].as<units::CpuParams>().memory_port_GBps = 8;
  hw.units[0].as<units::CpuParams>().dispatch_ns = 100;
  ir::Graph g = graph();
  for (ir::Op& op : g.ops) {
    op.features.bytes_read = 4000;
    op.features.bytes_out = 4000;
  }
  const ir::TransferModel transfers(hw);
  const ir::StackedGraph sg = ir::build_stacked_graph(g, hw, transfers);
  const Schedule s = list_schedule(solve(sg));
  for (ir::OpId op : {1, 4}) {
    EXPECT_DOUBLE_EQ(s.ops[op].start_s, 0) << op;
    EXPECT_NEAR(s.ops[op].end_s, 1.9e-6, 1e-15) << op;
  }
  EXPECT_NEAR(s.ops[2].start_s, 1.9e-6 + 4.1e-6, 1e-15);
  EXPECT_NEAR(s.ops[3].end_s - s.ops[3].start_s, 1e-6, 1e-15);
  EXPECT_NEAR(s.makespan_s, 13.1e-6, 1e-15);
  EXPECT_NEAR(s.units[0].busy_s, 1.9e-6 + 1.9e-6 + 1e-6, 1e-15);

  // One core: nothing overlaps, every add keeps its model time.
  hw.units[0].cores = 1;
  const ir::StackedGraph one_core = ir::build_stacked_graph(g, hw, transfers);
  const Schedule serial = list_schedule(solve(one_core));
  for (ir::OpId op : {1, 3, 4})
    EXPECT_NEAR(serial.ops[op].end_s - serial.ops[op].start_s, 1e-6, 1e-15) << op;
}

// A CPU of 4 cores whose runtime splits a GEMM over 2 (intra_op_threads 2, 1 row each): x feeds a dense
// (m = 4, 3 us, the highest rank) and three adds (1 us each). The dense takes lanes 0 and 1, two adds
// lanes 2 and 3, the third add waits for a lane (1 us). With concurrent_ops 2 the dense and one add run,
// the other adds follow one at a time: 1 us, 2 us.
TEST(ListScheduler, SplitGemmHoldsItsCoresAndConcurrentOpsAreCapped) {
  ir::Hardware hw = machine();
  ir::Unit& cpu = hw.units[0];
  cpu.cores = 4;
  cpu.as<units::CpuParams>().intra_op_threads = 2;
  hw.models[0].classes[static_cast<std::size_t>(ir::OpClass::Dense)].pieces = {constant_time(3e-6, 1e-9)};
  hw.models[1].classes[static_cast<std::size_t>(ir::OpClass::Dense)].pieces.clear(); // dense on the CPU
  ir::Graph g = graph();
  g.ops.resize(2); // x, then a becomes the dense; three adds on x follow
  g.tensors.resize(2);
  g.ops[1].name = "dense";
  g.ops[1].op_class = ir::OpClass::Dense;
  g.ops[1].features = {.macs = 4.0 * 8 * 8, .gemm_batch = 1, .gemm_m = 4, .gemm_n = 8, .gemm_k = 8};
  for (const char* name : {"a1", "a2", "a3"}) {
    ir::Op op;
    op.name = name;
    op.op_class = ir::OpClass::Add;
    op.inputs = {g.ops[0].outputs[0]};
    g.tensors.push_back(g.tensors[1]);
    g.tensors.back().producer = static_cast<ir::OpId>(g.ops.size());
    op.outputs = {static_cast<ir::TensorId>(g.tensors.size() - 1)};
    g.ops.push_back(op);
  }
  const ir::TransferModel transfers(hw);
  Schedule s = list_schedule(solve(ir::build_stacked_graph(g, hw, transfers)));
  EXPECT_EQ(s.ops[1].lane, 0);
  EXPECT_DOUBLE_EQ(s.ops[1].start_s, 0);
  EXPECT_NEAR(s.ops[1].end_s, 3e-6, 1e-15);
  std::vector<double> add_starts;
  for (ir::OpId op : {2, 3, 4})
    add_starts.push_back(s.ops[op].start_s);
  std::sort(add_starts.begin(), add_starts.end());
  EXPECT_NEAR(add_starts[0], 0, 1e-15);
  EXPECT_NEAR(add_starts[1], 0, 1e-15);
  EXPECT_NEAR(add_starts[2], 1e-6, 1e-15);
  for (ir::OpId op : {2, 3, 4})
    EXPECT_GE(s.ops[op].lane, 2) << op; // lanes 0 and 1 are the dense's until 3 us

  cpu.as<units::CpuParams>().concurrent_ops = 2;
  s = list_schedule(solve(ir::build_stacked_graph(g, hw, transfers)));
  add_starts.clear();
  for (ir::OpId op : {2, 3, 4})
    add_starts.push_back(s.ops[op].start_s);
  std::sort(add_starts.begin(), add_starts.end());
  EXPECT_NEAR(add_starts[0], 0, 1e-15);
  EXPECT_NEAR(add_starts[1], 1e-6, 1e-15);
  EXPECT_NEAR(add_starts[2], 2e-6, 1e-15);
}

TEST(MakespanSearch, MovesWorkOffABusyUnitWhenThatShortensTheSchedule) {
  // Two independent adds; the accelerator can also add, a bit slower but in parallel with the CPU.
  ir::Hardware hw = machine();
  hw.units[0].cores = 1;
  hw.links[0].latency_ns = 0;
  hw.links[0].bandwidth_GBps = 1e6;
  hw.models[1].classes[static_cast<std::size_t>(ir::OpClass::Add)].pieces = {constant_time(1.5e-6, 1e-9)};
  ir::Graph g = graph();
  g.ops[2].op_class = ir::OpClass::Add; // b is an add now: a, b, c chain + d alone
  const ir::TransferModel transfers(hw);
  const ir::StackedGraph sg = ir::build_stacked_graph(g, hw, transfers);
  const FlatGraph start = solve(sg);
  Schedule start_schedule = list_schedule(start);
  Schedule schedule;
  ScheduleSearchStats stats;
  const FlatGraph best = improve_makespan(start, schedule, 2000, &stats);
  EXPECT_DOUBLE_EQ(stats.start_value, start_schedule.makespan_s);
  EXPECT_FALSE(stats.gave_up);
  EXPECT_LT(schedule.makespan_s, start_schedule.makespan_s);
  EXPECT_GE(stats.moves, 1u);
  EXPECT_EQ(best.objective, Objective::Makespan);
  EXPECT_DOUBLE_EQ(best.objective_value, schedule.makespan_s);
}

} // namespace
} // namespace lightsim::sched
