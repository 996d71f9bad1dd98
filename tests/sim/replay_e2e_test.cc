// The replay on the real TVM exports with configs/photonic.json, placed by the pipeline (solver + list
// scheduler): every op simulated once on its chosen unit, no op before its inputs arrived, no two ops on
// one lane at once, and the SystemC timing following the module parameters, not the linear model: the
// shipped models are fitted to the modules (configs/fitted), so the test doubles the CPU's dispatch and the
// GPU's kernel gap in the modules' parameters only, and ops must then differ.
#include "ir/hardware/hardware.h"
#include "sim/driver/pipeline.h"
#include "sim/replay/replay.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "tests/sim/replay_checks.h"
#include "tests/test_support.h"

#include <cmath>
#include <gtest/gtest.h>
#include <string>

namespace lightsim {
namespace {

void replay_model(const std::string& model) {
  PipelineOptions o;
  o.hardware_path = test::source_path("configs/photonic.json");
  o.graph_path = test::model_path(model);
  ir::Hardware hw = ir::load_hardware(o.hardware_path);
  for (ir::Unit& u : hw.units) {
    if (u.kind == &units::cpu_kind()) u.as<units::CpuParams>().dispatch_ns *= 2;
    if (u.kind == &units::gpu_kind()) u.as<units::GpuParams>().kernel_gap_ns *= 2;
  }
  const Pipeline run(o, MachineConfig{hw, load_machine_config(o.hardware_path).compiler});
  sim::ReplayStats stats;
  const sched::Schedule s = sim::replay(run.flat(), run.transfers(), {.predicted = &run.schedule()}, &stats);
  std::vector<int> units(run.graph().ops.size());
  for (std::size_t op = 0; op < units.size(); ++op)
    units[op] = run.flat().unit_of(static_cast<ir::OpId>(op));
  test::expect_valid_replay(run.graph(), units, run.transfers(), s);
  EXPECT_EQ(stats.ops, run.graph().num_compute_ops());
  EXPECT_GT(s.makespan_s, 0);
  EXPECT_GT(s.energy_j, 0);
  // The detailed model is not the linear one: with its parameters changed, op durations differ by > 1%.
  std::size_t differ = 0;
  for (std::size_t op = 0; op < s.ops.size(); ++op) {
    if (run.graph().ops[op].op_class == ir::OpClass::Input) continue;
    const double sim = s.ops[op].end_s - s.ops[op].start_s;
    const double pred = run.schedule().ops[op].end_s - run.schedule().ops[op].start_s;
    differ += std::abs(sim - pred) > 0.01 * std::max(sim, pred);
  }
  EXPECT_GT(differ, 0u);
  std::printf(
      "%s: %zu ops, %zu transfers, predicted makespan %.6g s, simulated %.6g s, %zu ops differ > 1%%\n",
      model.c_str(), static_cast<std::size_t>(stats.ops), static_cast<std::size_t>(stats.transfers),
      run.schedule().makespan_s, s.makespan_s, differ);
}

TEST(ReplayEndToEnd, Gpt2Prefill) {
  LIGHTSIM_NEED_SHARED_MODELS();
  replay_model("gpt2_prefill_5.json");
}
TEST(ReplayEndToEnd, Gpt2Decoder) {
  LIGHTSIM_NEED_SHARED_MODELS();
  replay_model("gpt2_decoder_5.json");
}
TEST(ReplayEndToEnd, Llama2Prefill) {
  LIGHTSIM_NEED_SHARED_MODELS();
  replay_model("llama2_7b_prefill.json");
}
TEST(ReplayEndToEnd, Llama2Decoder) {
  LIGHTSIM_NEED_SHARED_MODELS();
  replay_model("llama2_7b_decoder.json");
}

} // namespace
} // namespace lightsim
