// lightsim: place, schedule and replay one model graph on one machine.
//   lightsim --hw configs/photonic.json --graph model.json [--objective time|energy|edp|makespan] [--json]
//            [--simulate] [--trace run.h5] [--latency-hiding on|off]
//   lightsim --hw configs/photonic.json --graph a.json --retrain out.json [--retrain-graphs b.json ...]
//            [--trace run.h5]
//   lightsim --hw configs/lightcode-cpu.json --retrain out.json --measured a.h5 ...   (real CPU timings;
//            --trace, --simulate, --retrain-graphs and --retrain-rounds are refused with --measured)
//   lightsim --describe-config [all|unit|KIND|memory|link|compiler] [--markdown]   (the config reference)
//   lightsim --batch LIST   (many runs from one process, one forked child each: sim/cli/batch.h)
// Exit status: 0 on success, 2 on bad input (one line on stderr saying what and where), 1 on an
// internal error.
#include "ir/error.h"
#include "sim/cli/batch.h"
#include "sim/cli/count_option.h"
#include "sim/cli/describe_config.h"
#include "sim/cli/fuse_option.h"
#include "sim/cli/name_option.h"
#include "sim/cli/progress.h"
#include "sim/cli/report.h"
#include "sim/cli/retrain_command.h"
#include "sim/cli/simulate_command.h"
#include "sim/cli/tool_main.h"
#include "sim/driver/pipeline.h"
#include "sim/profile/calibrate_command.h"
#include "sim/trace/chrome_trace.h"
#include "sim/units/registry.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unistd.h>

namespace {

struct Args {
  lightsim::PipelineOptions pipeline;
  bool json = false;
  std::size_t top = 10;
  lightsim::RetrainCommand retrain; // --retrain: refit the arithmetic model to the SystemC replay
  std::vector<std::string>
      measured; // --measured: ... or to real measurements (sim/profile/calibrate_command.h)
  lightsim::SimulateOptions simulate; // --simulate, --trace (sim/cli/simulate_command.h)
  std::vector<std::string> overrides; // --set KEY=VALUE (ir/hardware/config_override.h)
  std::string chrome_trace;           // --chrome-trace PATH (sim/trace/chrome_trace.h)
  std::string progress = "auto";      // --progress auto|always|never (sim/cli/progress.h)
  std::string latency_hiding;         // --latency-hiding on|off: the config's latency_hiding switch
  std::string describe;               // --describe-config WHAT (sim/cli/describe_config.h)
  bool markdown = false;              // ... as the Markdown tables of configs/README.md
  std::vector<std::string> dims;      // --dim NAME=VALUE: an ONNX graph's symbolic dimensions
  std::string batch;                  // --batch LIST (sim/cli/batch.h)
};

void add_options(CLI::App& app, Args& args) {
  app.add_option("--hw", args.pipeline.hardware_path, "hardware config (JSON, see configs/README.md)");
  app.add_option(
      "--batch", args.batch,
      "run every line of this list (ARGS<TAB>OUT<TAB>ERR[<TAB>TAG]: a file of one run's arguments, "
      "one per line; its output, written only when it succeeds; its errors; a line printed when it "
      "starts) in a child process of its own, skipping runs whose OUT exists; no other option");
  app.add_option("--describe-config", args.describe,
                 "print the keys of a config part and exit: all, unit, a unit kind (" +
                     lightsim::ir::unit_kind_choices() +
                     "), memory, link or compiler (as sst-info lists a component's parameters)")
      ->expected(0, 1)
      ->default_str("all");
  app.add_flag("--markdown", args.markdown, "with --describe-config: the tables of configs/README.md");
  app.add_option(
      "--graph", args.pipeline.graph_path,
      "model graph (TVM graph-executor JSON or ONNX, told by content); required but with --retrain "
      "--measured");
  app.add_option("--dim", args.dims,
                 "bind a symbolic dimension of an ONNX graph's inputs, e.g. N=1 or x[2]=640 (repeatable)")
      ->allow_extra_args(false);
  lightsim::add_name_option(
      app, "--objective", args.pipeline.objective, lightsim::sched::kObjectives,
      "time: exact minimum of op + transfer seconds; makespan: then shorten the schedule; "
      "energy: total energy (static power over the makespan included); edp: energy x "
      "makespan");
  app.add_option("--search-evaluations", args.pipeline.search_evaluations,
                 "list schedules the makespan / energy / edp search may run (default 2000 / 300 / 300)")
      ->check(lightsim::whole_number_at_least(1));
  lightsim::add_name_option(
      app, "--unknown-op", args.pipeline.unknown_ops, lightsim::ir::kUnknownOpPolicies,
      "error: ops lightsim does not know are an error; cpu: cost them as elementwise on "
      "CPUs");
  lightsim::add_fuse_option(app, args.pipeline.fuse);
  app.add_option("--tp,--tensor-parallel", args.pipeline.tensor_parallel,
                 "run one of this many Megatron-LM tensor-parallel shards of the graph (heads, FFN columns "
                 "and vocabulary divided, an all-reduce after each row-parallel projection and the "
                 "embedding) on as many devices of one kind at once; not for a graph that is a shard "
                 "already (lightsim-graph --tensor-parallel)")
      ->check(lightsim::whole_number_at_least(1));
  app.add_option("--pp,--pipeline-parallel", args.pipeline.pipeline_stages,
                 "pipeline stages: split the fused graph into this many stages of equal weight bytes (a "
                 "transformer: equal layers), stage s on the s-th device of one kind (with a tensor-parallel "
                 "shard's T: the first of the s-th group of T)")
      ->check(lightsim::whole_number_at_least(1));
  app.add_option(
         "--micro-batches", args.pipeline.micro_batches,
         "requests of the graph in flight at once (GPipe's micro-batches through the --pp stages; the "
         "weights shared)")
      ->check(lightsim::whole_number_at_least(1));
  app.add_flag("--json", args.json, "print one JSON object instead of the summary");
  app.add_option("--top", args.top, "how many of the costliest ops to list")
      ->check(lightsim::whole_number_at_least(0));
  app.add_option("--progress", args.progress,
                 "progress line on stderr: auto (when it is a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag(
      "--simulate", args.simulate.simulate,
      "replay the placement on the SystemC modules and print the check table (prediction vs replay)");
  app.add_option("--trace", args.simulate.trace_path,
                 "write the HDF5 trace (implies --simulate; with --retrain: of --graph under the retrained "
                 "config, with the retrain report in /model)");
  // Retrain (sim/cli/retrain_command.h): replay, refit, re-solve until stable; writes a NEW config.
  auto* retrain =
      app.add_option("--retrain", args.retrain.output,
                     "refit the arithmetic model to the SystemC replay and write the new config here");
  app.add_option("--retrain-graphs", args.retrain.graphs,
                 "more graphs (e.g. other models and sequence lengths) pooled with --graph for the fit")
      ->needs(retrain);
  app.add_option("--measured", args.measured,
                 "lightsim-profile files: fit the CPU they measured to them (ground truth) instead of the "
                 "replay; --graph is then not needed")
      ->needs(retrain);
  app.add_option("--retrain-rounds", args.retrain.rounds, "at most this many solve-replay-refit rounds")
      ->check(lightsim::whole_number_at_least(1))
      ->needs(retrain);
  // Config overrides (ir/hardware/config_override.h) and the Chrome trace (sim/trace/chrome_trace.h); not for
  // --retrain, which loads the config itself and writes no schedule.
  app.add_option("--set", args.overrides, "override a config field, e.g. phu0.wdm_channels=16 (repeatable)")
      ->allow_extra_args(false)
      ->excludes(retrain);
  app.add_option("--chrome-trace", args.chrome_trace, "write the schedule as a Chrome/Perfetto trace (JSON)")
      ->excludes(retrain);
  app.add_option("--latency-hiding", args.latency_hiding,
                 "on: PHU weight double-buffering and the units' load stages (prefetch) as the config gives "
                 "them; off: neither (default: the config's latency_hiding)")
      ->check(CLI::IsMember({"on", "off"}))
      ->excludes(retrain);
}

// One lightsim run; `in_batch`: a run of a --batch list, which may not hold --batch itself.
int run_lightsim(int argc, char** argv, bool in_batch) {
  CLI::App app{"lightsim: place and schedule an inference graph on a heterogeneous machine"};
  app.set_version_flag("--version",
                       std::string("lightsim ") + LIGHTSIM_VERSION + " (" + LIGHTSIM_GIT_REVISION + ")");
  Args args;
  add_options(app, args);
  const auto status = lightsim::parse_command_line(app, argc, argv, "lightsim", [&] {
    if (app.count("--batch") > 0) {
      if (in_batch) throw CLI::ValidationError("--batch", "not in a run of a batch list");
      for (const CLI::Option* o : app.get_options())
        if (o->count() > 0 && o->get_name() != "--batch")
          throw CLI::ValidationError("--batch", "takes no other option (got " + o->get_name() + ")");
    } else if (app.count("--describe-config") > 0) {
      if (args.describe.empty()) args.describe = "all";
    } else {
      if (args.pipeline.hardware_path.empty()) throw CLI::RequiredError("--hw");
      if (args.pipeline.graph_path.empty() && args.measured.empty()) throw CLI::RequiredError("--graph");
    }
    // A calibration from measurements fits real timings once: it plans and replays nothing, so it has no
    // rounds, no other graphs and no trace; refused rather than ignored.
    if (!args.measured.empty())
      for (const char* option : {"--trace", "--simulate", "--retrain-graphs", "--retrain-rounds"})
        if (app.count(option) > 0)
          throw CLI::ValidationError(std::string(option) +
                                     " cannot be used with --measured (the calibration replays nothing); "
                                     "for a trace run lightsim --hw NEW.json --graph G.json --trace run.h5");
  });
  if (status) return *status;

  return lightsim::run_reporting_errors("lightsim", [&] {
    if (!args.batch.empty())
      return lightsim::run_batch(
          args.batch, "lightsim", [](int n, char** v) { return run_lightsim(n, v, true); }, std::cout,
          std::cerr);
    if (!args.describe.empty()) {
      lightsim::describe_config(std::cout, args.describe, args.markdown);
      return 0;
    }
    for (const std::string& d : args.dims)
      lightsim::ir::add_dim_binding(args.pipeline.dims, d);
    if (!args.retrain.output.empty() && !args.measured.empty()) {
      lightsim::CalibrateCommand calibrate;
      calibrate.base_path = args.pipeline.hardware_path;
      calibrate.output = args.retrain.output;
      calibrate.measurements = args.measured;
      lightsim::run_calibrate(calibrate, std::cout);
      return 0;
    }
    if (!args.retrain.output.empty()) {
      args.retrain.trace_path = args.simulate.trace_path;
      lightsim::run_retrain(args.pipeline, args.retrain, std::cout);
      return 0;
    }
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    std::optional<lightsim::Progress> progress;
    progress.emplace(args.progress == "always" || (args.progress == "auto" && terminal), std::cerr);
    progress->stage("placing and scheduling");
    if (!args.latency_hiding.empty()) // the last word, after any --set
      args.overrides.push_back(std::string("latency_hiding=") +
                               (args.latency_hiding == "on" ? "true" : "false"));
    const lightsim::Pipeline run(args.pipeline,
                                 lightsim::load_machine_config(args.pipeline.hardware_path, args.overrides));
    if (!args.chrome_trace.empty()) {
      progress->stage("writing the Chrome trace");
      lightsim::write_chrome_trace_file(args.chrome_trace, run.schedule(), run.graph(), run.hardware());
    }
    progress->stage(args.simulate.trace_path.empty() ? "simulating" : "simulating and writing the trace");
    const auto simulation = lightsim::simulate(run, args.simulate);
    progress.reset(); // erase the progress line before printing anything
    for (const std::string& w : run.warnings())
      std::cerr << "lightsim: warning: " << w << "\n";
    if (args.json) {
      nlohmann::json j = lightsim::summary_json(run, args.top);
      if (simulation) j["simulation"] = lightsim::simulation_json(run.hardware(), *simulation);
      std::cout << j.dump(2) << "\n";
    } else {
      lightsim::print_summary(std::cout, run, args.top);
      if (simulation) lightsim::print_simulation(std::cout, run.hardware(), *simulation);
    }
    return 0;
  });
}

} // namespace

int main(int argc, char** argv) {
  lightsim::register_unit_kinds();
  return run_lightsim(argc, argv, false);
}
