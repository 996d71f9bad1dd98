// lightsim-collective: what a collective across a machine's units costs, message size by message size, in
// the layout of nccl-tests (size, time, algorithm and bus bandwidth), from the arithmetic model's closed
// forms (ir/cost/collectives.h) on the config's links and `collectives` section.
//   lightsim-collective --hw configs/h100x8.json --op all_reduce --kind gpu --min-bytes 1M --max-bytes 1G
// Exit status: 0 on success, 2 on bad input (one line on stderr), 1 on an internal error.
#include "ir/cost/collectives.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "sim/cli/tool_main.h"
#include "sim/hw/collective_engine.h"
#include "sim/hw/kernel.h"
#include "sim/units/registry.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace lightsim;

struct Args {
  std::string hw_path, op = "all_reduce", kind, algorithm = "auto", protocol = "auto";
  std::vector<std::string> units;
  double min_bytes = 1 << 20, max_bytes = 1 << 30, factor = 2;
  int rows = 0;
  bool csv = false, simulate = false;
};

template <class Table> std::vector<std::string> names_of(const Table& table) {
  std::vector<std::string> names;
  for (const auto& entry : table.entries())
    names.emplace_back(entry.second);
  return names;
}

std::vector<int> group(const ir::Hardware& hw, const Args& args) {
  std::vector<int> units;
  for (const std::string& name : args.units) {
    const int u = hw.find_unit(name);
    if (u < 0) throw InputError("--units", "no unit named '" + name + "' in " + hw.source);
    units.push_back(u);
  }
  if (!args.kind.empty())
    for (std::size_t u = 0; u < hw.units.size(); ++u)
      if (hw.units[u].kind_name() == args.kind) units.push_back(static_cast<int>(u));
  if (units.size() < 2)
    throw InputError(args.kind.empty() ? "--units" : "--kind",
                     "the group has " + std::to_string(units.size()) + " unit(s) in " + hw.source +
                         "; a collective needs two or more");
  return units;
}

int run(const Args& args) {
  const nlohmann::json config = ir::read_hardware_config(args.hw_path);
  const ir::Hardware hw = ir::hardware_from_json(config, args.hw_path);
  const ir::CollectiveConfig& library = hw.collectives;
  const ir::TransferModel transfers(hw);
  ir::CollectiveRequest request;
  request.kind = *ir::kCollectiveKinds.parse(args.op);
  request.algorithm = *ir::kCollectiveAlgorithms.parse(args.algorithm);
  request.protocol = *ir::kCollectiveProtocols.parse(args.protocol);
  request.rows = args.rows;
  request.units = group(hw, args);
  const int n = static_cast<int>(request.units.size());
  // The whole table is written at the end, so that bad input (a replay refused) leaves nothing on stdout.
  std::string table;
  auto append = [&table](const char* format, auto... values) {
    char line[512];
    std::snprintf(line, sizeof line, format, values...);
    table += line;
  };
  if (args.csv)
    append("size_B,time_us,algbw_GBps,busbw_GBps,algorithm,protocol,energy_uJ%s\n",
           args.simulate ? ",replay_time_us,replay_energy_uJ" : "");
  else
    append("# %s on %d units of %s\n# %14s %12s %10s %10s %9s %8s %12s%s\n", args.op.c_str(), n,
           hw.name.c_str(), "size(B)", "time(us)", "algbw", "busbw", "algorithm", "protocol", "energy(uJ)",
           args.simulate ? "  replay(us) replay(uJ)" : "");
  for (double bytes = args.min_bytes; bytes <= args.max_bytes * (1 + 1e-12); bytes *= args.factor) {
    request.bytes = bytes;
    const ir::CollectiveCost cost = ir::collective_cost(transfers, library, request, args.hw_path);
    const double ns = cost.time_s * 1e9;
    const auto algorithm = std::string(ir::kCollectiveAlgorithms.name(cost.algorithm));
    const auto protocol = std::string(ir::kCollectiveProtocols.name(cost.protocol));
    append(args.csv ? "%.0f,%.3f,%.3f,%.3f,%s,%s,%.4f" : "  %14.0f %12.2f %10.2f %10.2f %9s %8s %12.3f",
           bytes, ns * 1e-3, bytes / ns, ir::bus_bandwidth_GBps(request.kind, n, bytes, ns),
           algorithm.c_str(), protocol.c_str(), cost.energy_j * 1e6);
    if (args.simulate) { // the SystemC replay of the chosen algorithm and protocol, chunk by chunk
      ir::CollectiveRequest chosen = request;
      chosen.algorithm = cost.algorithm;
      chosen.protocol = cost.protocol;
      sim::fresh_simulation();
      sim::CollectiveEngine engine("collective", transfers, library, {chosen}, args.hw_path);
      const sim::CollectiveReplay replay = engine.run().front();
      append(args.csv ? ",%.3f,%.4f" : " %11.2f %10.3f", replay.time_s * 1e6, replay.energy_j * 1e6);
    }
    table += "\n";
  }
  std::fputs(table.c_str(), stdout);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  register_unit_kinds();
  CLI::App app{
      "lightsim-collective: a collective's time and bus bandwidth by message size (nccl-tests' layout)"};
  Args args;
  app.add_option("--hw", args.hw_path, "hardware config (JSON)")->required();
  app.add_option("--op", args.op, "collective")->check(CLI::IsMember(names_of(ir::kCollectiveKinds)));
  app.add_option("--units", args.units, "units of the group, in ring order (comma separated)")
      ->delimiter(',');
  app.add_option("--kind", args.kind, "or: every unit of this kind, in config order (e.g. gpu)");
  app.add_option("--algorithm", args.algorithm, "algorithm; auto: the cheapest, as NCCL's tuner picks")
      ->check(CLI::IsMember(names_of(ir::kCollectiveAlgorithms)));
  app.add_option("--protocol", args.protocol, "protocol; auto: the cheapest")
      ->check(CLI::IsMember(names_of(ir::kCollectiveProtocols)));
  app.add_option("--rows", args.rows, "ring2d: rows of the grid (units are taken row by row)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("-b,--min-bytes", args.min_bytes,
                 "smallest message (bytes; K, M, G suffixes: 2^10, 2^20, 2^30)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(1.0, 1e15));
  app.add_option("-e,--max-bytes", args.max_bytes, "largest message (bytes; K, M, G suffixes)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(1.0, 1e15));
  app.add_option("-f,--factor", args.factor, "size step factor")->check(CLI::Range(1.0001, 1024.0));
  app.add_flag("--csv", args.csv, "CSV instead of the table");
  app.add_flag("--simulate", args.simulate, "also replay each size chunk by chunk on the SystemC links");
  const auto validate = [&] {
    if (args.units.empty() == args.kind.empty())
      throw CLI::ValidationError("give --units or --kind (one of them)");
    if (args.min_bytes > args.max_bytes) throw CLI::ValidationError("--min-bytes is larger than --max-bytes");
  };
  if (const auto status = parse_command_line(app, argc, argv, "lightsim-collective", validate))
    return *status;
  return run_reporting_errors("lightsim-collective", [&] { return run(args); });
}
