#include "sim/driver/pipeline.h"

#include "ir/fusion/fusion.h"
#include "scheduler/list_scheduler.h"

#include <chrono>
#include <stdexcept>

namespace lightsim {
namespace {

class Stopwatch {
public:
  double lap_ms() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

} // namespace

ir::Graph fuse_for(const ir::Hardware& hw, ir::Graph graph, FusionStats* stats,
                   std::vector<std::string>* warnings) {
  ir::fusion::FusionOptions fusion{hw.compiler.fuse, hw.compiler.max_depth};
  if (fusion.mode == ir::FuseMode::Flash) {
    bool runs_attention = false;
    for (int u = 0; u < static_cast<int>(hw.units.size()); ++u)
      runs_attention = runs_attention || hw.model_of(u).can_run(ir::OpClass::Attention);
    if (!runs_attention) {
      if (warnings)
        warnings->push_back(hw.source +
                            ": no unit runs fused attention (an 'attention' model entry on a GPU with "
                            "shared_memory_per_sm_KiB): --fuse flash fuses as tvm");
      fusion.mode = ir::FuseMode::Tvm;
    }
  }
  FusionStats s;
  s.mode = fusion.mode;
  s.ops_before = graph.num_compute_ops();
  s.arrived_fused = ir::fusion::is_fused(graph);
  if (fusion.mode != ir::FuseMode::None && !s.arrived_fused) {
    ir::fusion::FusionResult fused = ir::fusion::fuse(std::move(graph), fusion);
    s.attention_ops = fused.attention_ops;
    graph = std::move(fused.graph);
  }
  s.ops_after = graph.num_compute_ops();
  if (stats) *stats = s;
  return graph;
}

Pipeline::Pipeline(const PipelineOptions& options) : options_(options) {
  hw_ = ir::load_hardware(options_.hardware_path);
  run();
}

Pipeline::Pipeline(const PipelineOptions& options, ir::Hardware hardware)
    : options_(options), hw_(std::move(hardware)) {
  run();
}

Pipeline::Pipeline(const PipelineOptions& options, ir::Hardware hardware, ir::Graph graph)
    : options_(options), graph_(std::move(graph)), hw_(std::move(hardware)) {
  fuse();
  plan();
}

void Pipeline::run() {
  Stopwatch clock;
  ir::ImportResult imported = ir::import_tvm_graph_file(options_.graph_path, {options_.unknown_ops});
  graph_ = std::move(imported.graph);
  warnings_ = std::move(imported.warnings);
  times_.import_ms = clock.lap_ms();
  fuse();
  plan();
}

void Pipeline::fuse() {
  Stopwatch clock;
  if (options_.fuse) hw_.compiler.fuse = *options_.fuse;
  graph_ = fuse_for(hw_, std::move(graph_), &fusion_, &warnings_);
  times_.fuse_ms = clock.lap_ms();
}

void Pipeline::plan() {
  Stopwatch clock;
  transfers_ = std::make_unique<ir::TransferModel>(hw_);
  stacked_ = std::make_unique<ir::StackedGraph>(ir::build_stacked_graph(graph_, hw_, *transfers_));
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
  const bool makespan = options_.objective == sched::Objective::Makespan;
  const sched::SolveOptions solve_options{makespan ? sched::Objective::Time : options_.objective};
  if (solve_plan_) {
    flat_ = sched::solve(*stacked_, *solve_plan_, solve_options, &solve_stats_);
  } else {
    solve_plan_.emplace();
    flat_ = sched::solve(*stacked_, solve_options, &solve_stats_, &*solve_plan_);
  }
  times_.solve_ms = clock.lap_ms();

  if (makespan) {
    flat_ = sched::improve_makespan(flat_, schedule_, {}, &search_stats_);
  } else {
    schedule_ = sched::list_schedule(flat_);
  }
  times_.schedule_ms = clock.lap_ms();
}

} // namespace lightsim
