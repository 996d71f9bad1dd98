// lightsim-profile: run every op of a model graph for real on this machine and record how long each takes.
//   lightsim-profile --graph g.json --unit cpu|gpu [--threads 1] [--repeats N] -o measured.h5
// --unit gpu needs a build with CUDA support and a CUDA device (sim/profile/gpu.h); without either it says
// which in one line and exits with status 2.
// A CPU profile records how busy the machine was (other processes' and the hypervisor's CPU time while it
// ran) and is marked disturbed above --max-other-load cores of such time on average; with --require-quiet
// a disturbed profile is refused instead: nothing is written and the exit status is 3.
// Exit status: 0 on success, 2 on bad input (one line on stderr saying what and where), 3 when
// --require-quiet refused a disturbed profile, 1 on an internal error. The output file is written whole or
// not at all.
#include "ir/error.h"
#include "ir/import/graph_import.h"
#include "sim/cli/tool_main.h"
#include "sim/io/atomic_file.h"
#include "sim/profile/gpu.h"
#include "sim/profile/profiler.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

namespace {

struct Args {
  std::string graph, output, unit = "cpu";
  std::vector<std::string> dims; // --dim NAME=VALUE (ONNX graphs)
  lightsim::profile::ProfileOptions options;
  double budget_ms = 10;
  bool quiet = false;
  bool require_quiet = false;
};

constexpr int kExitDisturbed = 3;

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"lightsim-profile: execute every op of a graph on this machine and measure it"};
  Args args;
  app.add_option("--graph", args.graph, "model graph (TVM graph-executor JSON or ONNX, told by content)")
      ->required();
  app.add_option("--dim", args.dims, "bind a symbolic dimension of an ONNX graph, NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--unit", args.unit, "unit to measure: cpu, or gpu (CUDA device 0; needs a build with CUDA)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_option("-o,--output", args.output, "measurement file to write (HDF5)")->required();
  app.add_option("--threads", args.options.threads, "threads for the GEMMs (Eigen)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--repeats", args.options.min_samples, "minimum timed samples per op")
      ->check(CLI::Range(1, 100000));
  app.add_option("--max-repeats", args.options.max_samples, "maximum timed samples per op")
      ->check(CLI::Range(1, 100000));
  app.add_option("--budget-ms", args.budget_ms, "time budget per op for its samples, in ms")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--graph-runs", args.options.graph_runs, "whole-graph runs (each of the two kinds)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--seed", args.options.seed, "seed of the random input and weight data");
  app.add_option(
         "--max-other-load", args.options.max_other_load_cores,
         "CPU profiles: mark the profile disturbed when other processes used more than this many cores "
         "on average while it ran")
      ->check(CLI::Range(0.0, 1e6));
  app.add_flag("--require-quiet", args.require_quiet,
               "refuse (write nothing, exit 3) a CPU profile that other work disturbed");
  app.add_flag("-q,--quiet", args.quiet, "no progress lines on stderr");
  if (const auto status = lightsim::parse_command_line(app, argc, argv, "lightsim-profile")) return *status;
  args.options.op_budget_s = args.budget_ms * 1e-3;

  return lightsim::run_reporting_errors("lightsim-profile", [&] {
    const bool gpu = args.unit == "gpu";
    if (gpu) {
      const std::string why = lightsim::profile::gpu_unavailable_reason();
      if (!why.empty()) throw lightsim::profile::GpuUnavailable("--unit gpu", why);
    }
    lightsim::check_output_path(args.output, "measurement file"); // before profiling, which takes a while
    lightsim::ir::ImportOptions import_options;
    for (const std::string& d : args.dims)
      lightsim::ir::add_dim_binding(import_options.dims, d);
    const auto imported = lightsim::ir::import_graph_file(args.graph, import_options);
    for (const std::string& w : imported.warnings)
      std::cerr << "lightsim-profile: warning: " << w << "\n";
    const auto progress = [&](const std::string& line) {
      if (!args.quiet) std::cerr << "lightsim-profile: " << line << "\n";
    };
    const lightsim::profile::MeasurementFile file =
        gpu ? lightsim::profile::profile_graph_gpu(imported.graph, args.options, progress)
            : lightsim::profile::profile_graph(imported.graph, args.options, progress);
    if (!gpu && file.machine.disturbed && args.require_quiet) {
      std::cerr << "lightsim-profile: refused: the machine was busy (" << file.machine.disturbance
                << "); nothing written to " << args.output << "\n";
      return kExitDisturbed;
    }
    lightsim::profile::write_measurement_file(args.output, file);
    double isolated = 0, in_graph = 0;
    for (const auto& m : file.ops) {
      isolated += m.median_s;
      in_graph += m.in_graph_median_s;
    }
    std::cout << "ops " << file.ops.size() << "  end_to_end_median_s " << file.end_to_end_median_s
              << "  sum_in_graph_s " << in_graph << "  sum_isolated_s " << isolated << "  profile_wall_s "
              << file.profile_wall_s;
    if (gpu)
      std::cout << "  gpu '" << file.machine.gpu.name << "'\n";
    else
      std::cout << "  cpu '" << file.machine.cpu_model << "'  threads " << file.machine.threads
                << "  other_load_cores " << file.machine.other_load_cores
                << (file.machine.disturbed ? "  DISTURBED" : "") << "\n";
    return 0;
  });
}
