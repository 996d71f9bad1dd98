// Pipeline: the core flow of one lightsim run, without SystemC: import the graph, load the machine config
// (sim/driver/machine_config.h), fuse the graph as its compiler section (or --fuse) says
// (ir/fusion/fusion.h), split it into pipeline stages and micro-batches when asked (ir/partition/), build the
// stacked graph, then plan for the objective (scheduler/objective.h: exact solves under the
// memories' capacities, list schedules, and for makespan, energy and edp a schedule search). Owns every
// stage's data, which later stages point into, so it is neither copyable nor movable. Used by the CLI and
// the benchmarks.
//
// It is not the replay: sim/replay/replay.h simulates a pipeline's FlatGraph in SystemC.
#pragma once

#include "ir/cost/stacked_graph.h"
#include "ir/fusion/compiler_config.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/transfer.h"
#include "ir/tvm/tvm_import.h"
#include "scheduler/capacity.h"
#include "scheduler/flat_graph.h"
#include "scheduler/objective.h"
#include "scheduler/schedule.h"
#include "scheduler/solver.h"
#include "sim/driver/machine_config.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lightsim {

struct PipelineOptions {
  std::string hardware_path;
  std::string graph_path;
  sched::Objective objective = sched::Objective::Time;
  ir::UnknownOpPolicy unknown_ops = ir::UnknownOpPolicy::Error;
  ir::DimBindings dims{}; // --dim NAME=VALUE: an ONNX graph's symbolic dimensions (ir/import_options.h)
  std::optional<ir::fusion::FuseMode> fuse = std::nullopt; // --fuse: replaces the config's compiler.fuse
  std::size_t search_evaluations = 0; // the schedule search's budget; 0: ObjectiveOptions' default
  // --tp: run one of this many Megatron-LM tensor-parallel shards of the imported graph, all-reduces
  // included (ir/partition/tensor_parallel.h); 1: the graph as it is.
  int tensor_parallel = 1;
  int pipeline_stages = 1; // --pp: the fused graph's stages (ir/partition/pipeline_stages.h)
  int micro_batches = 1;   // --micro-batches: requests in flight at once (ir/partition/micro_batches.h)
};

struct StageTimes {
  double import_ms = 0, fuse_ms = 0, stack_ms = 0, solve_ms = 0, schedule_ms = 0;
};

// What the fusion pass did (ir/fusion/fusion.h).
struct FusionStats {
  ir::fusion::FuseMode mode = ir::fusion::FuseMode::None; // as applied (flash falls back to tvm without an
                                                          // attention unit)
  std::size_t ops_before = 0, ops_after = 0;              // compute ops (inputs excluded)
  std::size_t attention_ops = 0;
  bool arrived_fused = false;
  std::size_t folded_ops = 0; // done ahead of time (compiler.fold_constants), before fusion
};

// The compiler's passes as `compiler` says: constant folding when asked for, then the fusion pass on `hw`
// (flash falls back to tvm, with a warning, when no unit of hw runs fused attention). Fills `stats` (and
// `warnings`) when given. A graph that arrived fused is not fused again.
ir::Graph fuse_for(const ir::Hardware& hw, const ir::fusion::CompilerConfig& compiler, ir::Graph graph,
                   FusionStats* stats = nullptr, std::vector<std::string>* warnings = nullptr);

class Pipeline {
public:
  // Runs every stage; throws InputError on bad input.
  explicit Pipeline(const PipelineOptions& options);
  // The same on a machine config already loaded (sweeps, tests).
  Pipeline(const PipelineOptions& options, MachineConfig machine);
  // The same on a graph already imported (retrain re-solves one graph under changing models);
  // options.graph_path is only a label then. The graph is fused here too.
  Pipeline(const PipelineOptions& options, MachineConfig machine, ir::Graph graph);
  // Plans the same graph again under `hardware`, which must equal the current hardware but for its
  // arithmetic models (a refit: the retrain loop). Re-costs the stacked graph's nodes and re-solves with
  // the first solve's elimination order (scheduler/solver.h), both exact; rebuilds the stacked graph when
  // the units able to run some op changed. Throws std::invalid_argument for any other difference.
  void replan(ir::Hardware hardware);
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  const PipelineOptions& options() const { return options_; }
  const ir::Graph& graph() const { return graph_; }
  const ir::Hardware& hardware() const { return hw_; }
  const ir::fusion::CompilerConfig& compiler() const { return compiler_; } // --fuse applied
  const ir::TransferModel& transfers() const { return *transfers_; }
  const ir::StackedGraph& stacked() const { return *stacked_; }
  const sched::FlatGraph& flat() const { return flat_; }
  const sched::Schedule& schedule() const { return schedule_; }
  const sched::SolveStats& solve_stats() const { return solve_stats_; }
  const sched::ScheduleSearchStats& search_stats() const { return objective_report_.search; }
  const sched::ObjectiveReport& objective_report() const { return objective_report_; }
  const sched::CapacityProblem& capacity() const { return capacity_; }
  const StageTimes& times() const { return times_; }
  const FusionStats& fusion() const { return fusion_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

private:
  void run();
  void fuse();  // the fusion pass on graph_
  void plan();  // every stage after fusion
  void solve(); // plan for the objective (in solve_plan_'s order once there is one) and schedule

  PipelineOptions options_;
  ir::Graph graph_;
  ir::Hardware hw_;
  ir::fusion::CompilerConfig compiler_;
  std::unique_ptr<ir::TransferModel> transfers_;
  std::unique_ptr<ir::StackedGraph> stacked_;
  std::optional<sched::SolvePlan> solve_plan_; // the first solve's elimination order, for replan()
  sched::CapacityProblem capacity_;
  sched::FlatGraph flat_;
  sched::Schedule schedule_;
  sched::SolveStats solve_stats_;
  sched::ObjectiveReport objective_report_;
  StageTimes times_;
  FusionStats fusion_;
  std::vector<std::string> warnings_;
};

} // namespace lightsim
