// The list scheduler's SRAM spills (scheduler/sram_residency.h) on a machine small enough to follow by
// hand: one accelerator on a 10000-byte SRAM that spills to a DRAM (10 GB/s, 100 ns, 20 pJ/B), every
// tensor 4000 bytes, every op 1 us and 1 nJ in the model.
#include "ir/cost/cost_model.h"
#include "scheduler/list_scheduler.h"
#include "scheduler/solver.h"
#include "tests/scheduler/hand_graphs.h"

#include <gtest/gtest.h>

namespace lightsim::sched {
namespace {

ir::Hardware machine(double sram_bytes) {
  ir::Hardware hw;
  hw.name = "spill";
  hw.source = "spill.json";
  hw.memories = {{.name = "dram0",
                  .kind = ir::MemoryKind::Dram,
                  .capacity_bytes = 1e9,
                  .bandwidth_GBps = 10,
                  .latency_ns = 100,
                  .energy_pj_per_byte = 20},
                 {.name = "sram0",
                  .kind = ir::MemoryKind::Sram,
                  .capacity_bytes = sram_bytes,
                  .bandwidth_GBps = 100,
                  .spill_to = 0}};
  ir::ArithmeticModel model;
  model.name = "acc";
  model.classes[static_cast<std::size_t>(ir::OpClass::Add)].pieces = {testing::constant_time(1e-6, 1e-9)};
  hw.models = {model};
  hw.units = {testing::accelerator("acc0", 1, 0)};
  hw.placement.inputs_unit = 0;
  hw.placement.params_unit = 0;
  return hw;
}

// x -> a = add(x) -> b = add(a) -> c = add(x, b), the graph's output.
ir::Graph graph() {
  ir::Graph g;
  g.source = "spill-graph.json";
  auto op = [&](const char* name, ir::OpClass c, std::vector<ir::TensorId> inputs) {
    return testing::add_op(g, name, c, std::move(inputs));
  };
  const ir::TensorId x = op("x", ir::OpClass::Input, {});
  const ir::TensorId a = op("a", ir::OpClass::Add, {x});
  const ir::TensorId b = op("b", ir::OpClass::Add, {a});
  g.heads = {op("c", ir::OpClass::Add, {x, b})};
  return g;
}

Schedule schedule_on(const ir::Hardware& hw) {
  const ir::Graph g = graph();
  const ir::TransferModel transfers(hw);
  return list_schedule(solve(ir::build_stacked_graph(g, hw, transfers)));
}

// x and a fill 8000 of the 10000 bytes, so b's output goes to the DRAM: b writes it there (+100 ns + 4000 B
// at 10 B/ns = 0.5 us, +4000 B x 20 pJ = 80 nJ) and ends at 2.5 us; a is freed when b ends, so c's output
// fits, but c reads b from the DRAM: another 0.5 us and 80 nJ, to 4 us.
TEST(SramSpill, AnOutputThatDoesNotFitIsWrittenAndReadInTheSpillMemory) {
  const Schedule s = schedule_on(machine(10000));
  EXPECT_EQ(s.ops[1].spilled_bytes, 0);
  EXPECT_EQ(s.ops[2].spilled_bytes, 4000);
  EXPECT_EQ(s.ops[3].spilled_bytes, 4000);
  EXPECT_EQ(s.ops[2].spill_memory, 0);
  EXPECT_NEAR(s.ops[1].end_s, 1.0e-6, 1e-15);
  EXPECT_NEAR(s.ops[2].end_s, 2.5e-6, 1e-15);
  EXPECT_NEAR(s.ops[3].start_s, 2.5e-6, 1e-15);
  EXPECT_NEAR(s.makespan_s, 4.0e-6, 1e-15);
  EXPECT_NEAR(s.ops[2].energy_j, 81e-9, 1e-15);
  EXPECT_NEAR(s.ops[3].energy_j, 81e-9, 1e-15);
}

// With 12000 bytes b fits (x, a and b together), nothing spills, and the schedule is the model's alone.
TEST(SramSpill, NothingSpillsWhereEverythingFits) {
  const Schedule s = schedule_on(machine(12000));
  for (const ScheduledOp& op : s.ops) {
    EXPECT_EQ(op.spilled_bytes, 0);
    EXPECT_EQ(op.spill_memory, -1);
  }
  EXPECT_NEAR(s.makespan_s, 3.0e-6, 1e-15);
  EXPECT_NEAR(s.energy_j, 3e-9, 1e-15);
}

} // namespace
} // namespace lightsim::sched
