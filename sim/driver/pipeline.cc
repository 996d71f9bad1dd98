#include "sim/driver/pipeline.h"

#include "ir/cost/collectives.h"
#include "ir/cost/cost_model.h"
#include "ir/cost/device_plan.h"
#include "ir/fusion/fold_constants.h"
#include "ir/fusion/fusion.h"
#include "ir/import/graph_import.h"
#include "ir/partition/micro_batches.h"
#include "ir/partition/pipeline_stages.h"
#include "ir/partition/tensor_parallel.h"
#include "scheduler/list_scheduler.h"
#include "scheduler/sram_residency.h"
#include "scheduler/stopwatch.h"

#include <stdexcept>

namespace lightsim {

using sched::Stopwatch;

namespace {

// The arithmetic model's energy of every op by component, on the unit the plan chose (sums to the
// schedule's op energies: the same model evaluation; a collective's is its links').
std::vector<ir::EnergyBreakdown> model_op_energy(const ir::Graph& graph, const ir::Hardware& hw,
                                                 const ir::TransferModel& transfers,
                                                 const sched::Schedule& schedule) {
  std::vector<ir::EnergyBreakdown> energy(graph.ops.size());
  for (std::size_t op = 0; op < graph.ops.size(); ++op) {
    const ir::Op& o = graph.ops[op];
    const sched::ScheduledOp& s = schedule.ops[op];
    energy[op] = ir::is_collective(o.op_class) ? ir::collective_op_energy(transfers, s.unit, o, graph.source)
                                               : ir::op_energy(hw, s.unit, o);
    sched::add_spill_energy(hw, s.unit, s.spill_memory, s.spill_traffic_bytes, energy[op]);
  }
  return energy;
}

} // namespace

ir::Graph fuse_for(const ir::Hardware& hw, const ir::fusion::CompilerConfig& compiler, ir::Graph graph,
                   FusionStats* stats, std::vector<std::string>* warnings) {
  using ir::fusion::FuseMode;
  ir::fusion::FusionOptions fusion = ir::fusion::fusion_options(compiler);
  if (fusion.mode == FuseMode::Flash || fusion.mode == FuseMode::Vllm) {
    bool runs_attention = false;
    for (int u = 0; u < static_cast<int>(hw.units.size()); ++u)
      runs_attention = runs_attention || hw.model_of(u).can_run(ir::OpClass::Attention);
    if (!runs_attention) {
      if (warnings)
        warnings->push_back(hw.source +
                            ": no unit runs fused attention (an 'attention' model entry on a GPU with "
                            "shared_memory_per_sm_KiB or a PHU with buffers): --fuse " +
                            std::string(ir::fusion::kFuseModes.name(fusion.mode)) +
                            " leaves attention unfused");
      if (fusion.mode == FuseMode::Flash) fusion.mode = FuseMode::Tvm;
      fusion.attention = false;
    }
  }
  FusionStats s;
  s.mode = fusion.mode;
  s.ops_before = graph.num_compute_ops();
  if (compiler.fold_constants) {
    ir::fusion::FoldResult folded = ir::fusion::fold_constants(graph);
    s.folded_ops = folded.folded_ops;
    graph = std::move(folded.graph);
  }
  s.arrived_fused = ir::fusion::is_fused(graph);
  if (fusion.mode != FuseMode::None && !s.arrived_fused) {
    ir::fusion::FusionResult fused = ir::fusion::fuse(std::move(graph), fusion);
    s.attention_ops = fused.attention_ops;
    graph = std::move(fused.graph);
  }
  s.ops_after = graph.num_compute_ops();
  if (stats) *stats = s;
  return graph;
}

Pipeline::Pipeline(const PipelineOptions& options) : options_(options) {
  MachineConfig machine = load_machine_config(options_.hardware_path);
  hw_ = std::move(machine.hardware);
  compiler_ = machine.compiler;
  run();
}

Pipeline::Pipeline(const PipelineOptions& options, MachineConfig machine)
    : options_(options), hw_(std::move(machine.hardware)), compiler_(machine.compiler) {
  run();
}

Pipeline::Pipeline(const PipelineOptions& options, MachineConfig machine, ir::Graph graph)
    : options_(options), graph_(std::move(graph)), hw_(std::move(machine.hardware)),
      compiler_(machine.compiler) {
  fuse();
  plan();
}

void Pipeline::run() {
  Stopwatch clock;
  ir::ImportResult imported =
      ir::import_graph_file(options_.graph_path, {options_.unknown_ops, options_.dims});
  graph_ = std::move(imported.graph);
  if (options_.tensor_parallel != 1) graph_ = ir::shard_tensor_parallel(graph_, options_.tensor_parallel);
  warnings_ = std::move(imported.warnings);
  times_.import_ms = clock.lap_ms();
  fuse();
  plan();
}

void Pipeline::fuse() {
  Stopwatch clock;
  if (options_.fuse) compiler_.fuse = *options_.fuse;
  graph_ = fuse_for(hw_, compiler_, std::move(graph_), &fusion_, &warnings_);
  if (options_.pipeline_stages != 1) ir::assign_pipeline_stages(graph_, options_.pipeline_stages);
  if (options_.micro_batches != 1)
    graph_ = ir::replicate_micro_batches(std::move(graph_), options_.micro_batches);
  times_.fuse_ms = clock.lap_ms();
}

void Pipeline::plan() {
  Stopwatch clock;
  transfers_ = std::make_unique<ir::TransferModel>(hw_);
  transfers_->set_replicas(ir::replica_memories(ir::device_plan(graph_, hw_), hw_)); // a shard's peers
  stacked_ = std::make_unique<ir::StackedGraph>(ir::build_stacked_graph(graph_, hw_, *transfers_));
  capacity_ = sched::weight_capacity_problem(*stacked_);
  times_.stack_ms = clock.lap_ms();
  solve_plan_.reset();
  solve();
}

void Pipeline::replan(ir::Hardware hardware) {
  if (hardware.units != hw_.units || hardware.memories != hw_.memories || hardware.links != hw_.links ||
      hardware.placement != hw_.placement || hardware.models.size() != hw_.models.size())
    throw std::invalid_argument("Pipeline::replan: the hardware differs in more than its arithmetic models");
  hw_.models = std::move(hardware.models); // in place: the transfer model and stacked graph point to hw_
  Stopwatch clock;
  if (!stacked_->recost_nodes()) {
    plan();
    return;
  }
  times_.stack_ms = clock.lap_ms();
  solve();
}

void Pipeline::solve() {
  Stopwatch clock;
  if (!solve_plan_) solve_plan_ = sched::plan_elimination(*stacked_);
  solve_stats_ = solve_plan_->stats;
  const double order_ms = clock.lap_ms();
  sched::ObjectiveOptions objective;
  objective.objective = options_.objective;
  if (options_.search_evaluations > 0)
    objective.makespan_evaluations = objective.energy_evaluations = options_.search_evaluations;
  flat_ = sched::plan_objective(*stacked_, *solve_plan_, capacity_, objective, schedule_, &objective_report_);
  schedule_.op_energy = model_op_energy(graph_, hw_, *transfers_, schedule_);
  times_.solve_ms = order_ms + objective_report_.solve_ms;
  times_.schedule_ms = objective_report_.schedule_ms;
}

} // namespace lightsim
