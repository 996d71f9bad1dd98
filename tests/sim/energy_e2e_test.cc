// Energy by component end to end, on the real TVM exports and the shipped configs (issue 14): the
// components of every op, predicted (arithmetic model) and simulated (SystemC modules), sum to its energy;
// each unit kind only spends energy on its own components; the per-owner totals sum to the run's energy;
// and the shipped GPU's simulated dynamic energy equals the arithmetic model's per op class and component
// (the GPU is charged per operation in both, so the two agree exactly, whatever their timings); after a
// retrain on the replay, every op-energy component of the fitted model agrees with the module's.
#include "ir/tvm/tvm_import.h"
#include "sim/check/energy_breakdown.h"
#include "sim/cli/retrain_command.h"
#include "sim/driver/pipeline.h"
#include "sim/replay/replay.h"
#include "sim/retrain/retrain_loop.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"
#include "tests/test_support.h"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <set>
#include <string>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim {
namespace {

using C = ir::EnergyComponent;

const char* const kModels[] = {"gpt2_prefill_5.json", "gpt2_decoder_5.json", "llama2_7b_prefill.json",
                               "llama2_7b_decoder.json"};

struct Replayed {
  std::unique_ptr<Pipeline> pipeline;
  sched::Schedule simulated;
};

Replayed run(const std::string& config, const std::string& model, sched::Objective objective) {
  PipelineOptions o;
  o.hardware_path = test::source_path(config);
  o.graph_path = test::model_path(model);
  o.objective = objective;
  Replayed r;
  r.pipeline = std::make_unique<Pipeline>(o);
  r.simulated =
      sim::replay(r.pipeline->flat(), r.pipeline->transfers(), {.predicted = &r.pipeline->schedule()});
  return r;
}

// The components each unit kind may spend an op's energy on (its memory's and a spill memory's included).
std::set<C> allowed(const ir::UnitKind& kind) {
  std::set<C> out{C::Sram, C::Hbm, C::Dram};
  const std::vector<C> own = kind.own_energy_components();
  if (own.empty()) out.insert(C::Compute); // a kind with no components of its own charges `compute`
  out.insert(own.begin(), own.end());
  return out;
}

void expect_sums(const ir::Graph& g, const ir::Hardware& hw, const sched::Schedule& s, const char* which) {
  SCOPED_TRACE(which);
  ASSERT_EQ(s.op_energy.size(), g.ops.size()) << "every op's components recorded";
  std::size_t split = 0;
  for (std::size_t op = 0; op < g.ops.size(); ++op) {
    const ir::EnergyBreakdown& e = s.op_energy[op];
    EXPECT_NEAR(e.total(), s.ops[op].energy_j, 1e-12 * s.ops[op].energy_j) << g.ops[op].name;
    const std::set<C> ok = allowed(*hw.units[static_cast<std::size_t>(s.ops[op].unit)].kind);
    int nonzero = 0;
    for (std::size_t c = 0; c < ir::kMaxEnergyComponents; ++c) {
      EXPECT_GE(e.j[c], 0) << g.ops[op].name;
      if (e.j[c] == 0) continue;
      ++nonzero;
      EXPECT_TRUE(ok.contains(static_cast<C>(c)))
          << g.ops[op].name << " on " << hw.units[static_cast<std::size_t>(s.ops[op].unit)].name
          << " spends on " << ir::energy_component_name(static_cast<C>(c));
    }
    split += nonzero > 1;
  }
  EXPECT_GT(split, 0u) << "some ops have more than one component";
  double owners = 0;
  for (const sim::OwnerEnergy& o : sim::energy_by_owner(g, hw, s))
    owners += o.energy.total();
  EXPECT_NEAR(owners, s.energy_j, 1e-12 * s.energy_j);
}

TEST(EnergyComponents, EveryOpsComponentsSumToItsEnergyOnEveryShippedConfig) {
  LIGHTSIM_NEED_SHARED_MODELS();
  for (const char* config : {"configs/photonic.json", "configs/gpu.json", "configs/cpu.json"})
    for (const char* model : kModels)
      for (sched::Objective objective : {sched::Objective::Time, sched::Objective::Energy}) {
        SCOPED_TRACE(std::string(model) + " on " + config + ", " +
                     std::string(sched::objective_name(objective)));
        const Replayed r = run(config, model, objective);
        expect_sums(r.pipeline->graph(), r.pipeline->hardware(), r.pipeline->schedule(), "predicted");
        expect_sums(r.pipeline->graph(), r.pipeline->hardware(), r.simulated, "simulated");
      }
}

// Per (op class, component) on the GPU: predicted and simulated joules.
using ClassParts = std::map<std::pair<ir::OpClass, C>, std::pair<double, double>>;

TEST(EnergyComponents, ShippedGpuDynamicEnergyMatchesTheModelPerOpClass) {
  LIGHTSIM_NEED_SHARED_MODELS();
  double worst = 0;
  for (const char* model : kModels) {
    SCOPED_TRACE(model);
    const Replayed r = run("configs/gpu.json", model, sched::Objective::Time);
    const ir::Graph& g = r.pipeline->graph();
    const int gpu = r.pipeline->hardware().find_unit("gpu0");
    ClassParts parts;
    double dynamic = 0;
    for (std::size_t op = 0; op < g.ops.size(); ++op) {
      if (r.simulated.ops[op].unit != gpu || g.ops[op].op_class == ir::OpClass::Input) continue;
      for (std::size_t c = 0; c < ir::kMaxEnergyComponents; ++c) {
        auto& [pred, sim] = parts[{g.ops[op].op_class, static_cast<C>(c)}];
        pred += r.pipeline->schedule().op_energy[op].j[c];
        sim += r.simulated.op_energy[op].j[c];
        dynamic += r.simulated.op_energy[op].j[c];
      }
    }
    ASSERT_FALSE(parts.empty()) << "no op on the GPU";
    // The GPU does real dynamic work: its ops spend a visible share of its static energy (the issue's
    // replay charged ~0).
    const double gpu_static = r.simulated.units[static_cast<std::size_t>(gpu)].static_energy_j;
    EXPECT_GT(dynamic, 0.01 * gpu_static);
    for (const auto& [key, v] : parts) {
      if (v.first == 0 && v.second == 0) continue;
      const double err = std::abs(v.second - v.first) / v.second;
      worst = std::max(worst, err);
      EXPECT_LE(err, 1e-9) << ir::op_class_name(key.first) << " " << ir::energy_component_name(key.second)
                           << ": predicted " << v.first << " J, simulated " << v.second << " J";
    }
    std::printf("%s: GPU dynamic energy %.6g J (static %.6g J)\n", model, dynamic, gpu_static);
  }
  std::printf("largest per (op class, component) |error| of the GPU's dynamic energy: %.3g\n", worst);
}

// The retrain fits each component on the count the module charges it on: afterwards the plan's predicted
// components equal the replay's for the GPU and the PHU (per operation and per conversion step: exact) and
// for memory accesses and links; a CPU's compute (dynamic power x time) and all static energy follow the
// time fit, so they are within its error.
TEST(EnergyComponents, RetrainedModelAgreesWithTheModulesPerComponent) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const ir::Hardware hw = ir::load_hardware(test::source_path("configs/photonic.json"));
  const std::string path = test::model_path("gpt2_prefill_5.json");
  const std::vector<fit::RetrainInput> inputs = {{path, ir::import_tvm_graph_file(path).graph}};
  const fit::RetrainReport report = fit::retrain(hw, inputs, replay_observer(), {});
  PipelineOptions o;
  o.graph_path = path;
  const Pipeline plan(o, MachineConfig{report.hardware, {}}, inputs[0].graph);
  const sched::Schedule simulated =
      sim::replay(plan.flat(), plan.transfers(), {.predicted = &plan.schedule()});
  const auto predicted = sim::energy_by_owner(plan.graph(), plan.hardware(), plan.schedule());
  const auto observed = sim::energy_by_owner(plan.graph(), plan.hardware(), simulated);
  ASSERT_EQ(predicted.size(), observed.size());
  std::size_t compared = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i)
    for (std::size_t c = 0; c < ir::kMaxEnergyComponents; ++c) {
      const C comp = static_cast<C>(c);
      const double p = predicted[i].energy.j[c], s = observed[i].energy.j[c];
      if (p == 0 && s == 0) continue;
      const double err = std::abs(s - p) / s;
      const bool timed = comp == C::Compute || comp == C::Static;
      std::printf("%s %s %s: predicted %.6g J, simulated %.6g J, error %.3g%%\n",
                  std::string(sim::owner_kind_name(predicted[i].kind)).c_str(), predicted[i].name.c_str(),
                  std::string(ir::energy_component_name(comp)).c_str(), p, s, 100 * err);
      EXPECT_LE(err, timed ? 0.05 : 1e-6) << predicted[i].name << " " << ir::energy_component_name(comp);
      ++compared;
    }
  EXPECT_GT(compared, 10u);
}

} // namespace
} // namespace lightsim
