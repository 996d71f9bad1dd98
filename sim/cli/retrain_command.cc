#include "sim/cli/retrain_command.h"

#include "ir/error.h"
#include "ir/import/graph_import.h"
#include "sim/cli/simulate_command.h"
#include "sim/io/atomic_file.h"
#include "sim/replay/replay.h"
#include "sim/trace/model_trace.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

namespace lightsim {
namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

} // namespace

fit::Observer replay_observer() {
  return [](const Pipeline& run, bool alone) {
    sim::ReplayOptions options;
    options.predicted = &run.schedule();
    options.ops_alone = alone;
    return sim::replay(run.flat(), run.transfers(), options);
  };
}

std::string retrain_report_path(const std::string& output) {
  const std::string suffix = ".json";
  if (output.size() > suffix.size() &&
      output.compare(output.size() - suffix.size(), suffix.size(), suffix) == 0)
    return output.substr(0, output.size() - suffix.size()) + ".report.json";
  return output + ".report.json";
}

fit::RetrainReport run_retrain(const PipelineOptions& pipeline, const RetrainCommand& command,
                               std::ostream& out) {
  if (same_file(command.output, pipeline.hardware_path))
    throw InputError(command.output, "--retrain would overwrite the input config; give another file");
  MachineConfig machine = load_machine_config(pipeline.hardware_path);
  if (pipeline.fuse) machine.compiler.fuse = *pipeline.fuse; // --fuse: also what the new config says
  const ir::Hardware& hw = machine.hardware;
  const std::string& trace_path = command.trace_path;
  const std::string report_path = retrain_report_path(command.output);
  // Fail before the retrain, not after it.
  check_output_path(command.output, "retrained config");
  check_output_path(report_path, "retrain report");
  if (!trace_path.empty()) check_output_path(trace_path, "trace");

  std::vector<std::string> paths{pipeline.graph_path};
  paths.insert(paths.end(), command.graphs.begin(), command.graphs.end());
  std::vector<fit::RetrainInput> inputs;
  // Fused once here (as the config's compiler section says), so that the report's per-op rows and the
  // trace's /model group are those of the graphs the pipelines plan.
  for (const std::string& path : paths)
    inputs.push_back(
        {path, fuse_for(hw, machine.compiler,
                        ir::import_graph_file(path, {pipeline.unknown_ops, pipeline.dims}).graph)});

  fit::LoopOptions options;
  options.objective = pipeline.objective;
  options.max_rounds = command.rounds;
  fit::RetrainReport report = fit::retrain(hw, inputs, replay_observer(), options, &out);
  fit::print_report(out, report);

  report.hardware.source = command.output;
  write_file_atomically(command.output, "retrained config",
                        machine_config_to_json(report.hardware, machine.compiler).dump(2) + "\n");
  write_file_atomically(report_path, "retrain report", fit::report_json(report).dump(2) + "\n");
  out << "wrote " << command.output << " (retrained config) and " << report_path << " (report)\n";
  if (!trace_path.empty()) {
    // The first graph under the retrained config: the usual trace tables, plus the report in /model.
    PipelineOptions first = pipeline;
    first.graph_path = inputs.front().label;
    const Pipeline run(first, MachineConfig{report.hardware, machine.compiler}, inputs.front().graph);
    SimulateOptions simulate_options;
    simulate_options.trace_path = trace_path;
    simulate_options.model = [&](const H5::Group& model, const sim::h5::IoStatus* io) {
      sim::write_model_group(model, report, inputs, io);
    };
    simulate(run, simulate_options);
    out << "wrote " << trace_path << " (trace of " << inputs.front().label << " under the retrained config, "
        << "report in /model)\n";
  }
  return report;
}

} // namespace lightsim
