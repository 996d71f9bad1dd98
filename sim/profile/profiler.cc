#include "sim/profile/profiler.h"

#include "sim/profile/graph_executor.h"
#include "sim/profile/host_cpu.h"
#include "sim/profile/shape_rules.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#ifndef LIGHTSIM_PROFILE_CXX_FLAGS
#define LIGHTSIM_PROFILE_CXX_FLAGS "unknown"
#endif
#ifndef LIGHTSIM_GIT_REVISION
#define LIGHTSIM_GIT_REVISION "unknown"
#endif

namespace lightsim::profile {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Order statistics of a sample (sorted in place): the element at quantile q, nearest rank.
double quantile(std::vector<double>& v, double q) {
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string shapes_text(const ir::Graph& g, const std::vector<ir::TensorId>& ids) {
  std::string text;
  for (ir::TensorId id : ids) {
    const ir::Tensor& t = g.tensors[static_cast<std::size_t>(id)];
    if (!text.empty()) text += " ";
    text += std::string(ir::dtype_name(t.dtype)) + shape_text(t.shape);
  }
  return text;
}

std::string read_load_average() {
  std::ifstream load("/proc/loadavg");
  std::string line;
  std::getline(load, line);
  return line;
}

// Volatile sink: a byte of every timed op's output is read after each sample, so no run is dead code.
volatile unsigned char g_sink = 0;

// This CPU: GraphExecutor's kernels, timed with steady_clock.
class CpuRunner final : public OpRunner {
public:
  CpuRunner(const ir::Graph& graph, std::uint64_t seed) : ex_(graph, seed) {}

  const std::vector<ir::OpId>& compute_ops() const override { return ex_.compute_ops(); }
  double time_graph() override {
    const auto t0 = Clock::now();
    ex_.run_all();
    return seconds_since(t0);
  }
  void time_graph_ops(std::vector<double>& per_op) override {
    const std::vector<ir::OpId>& ops = ex_.compute_ops();
    stamps_.resize(ops.size() + 1);
    stamps_[0] = Clock::now();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      ex_.run_op(ops[i]);
      stamps_[i + 1] = Clock::now();
    }
    per_op.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
      per_op[i] = std::chrono::duration<double>(stamps_[i + 1] - stamps_[i]).count();
  }
  double time_op(ir::OpId op, int batch) override {
    const auto t0 = Clock::now();
    for (int b = 0; b < batch; ++b)
      ex_.run_op(op);
    const double s = seconds_since(t0) / batch;
    consume(op);
    return s;
  }
  std::uint64_t output_checksum(ir::OpId op) override { return ex_.output_checksum(op); }

private:
  void consume(ir::OpId op) const {
    const ir::Op& o = ex_.graph().ops[static_cast<std::size_t>(op)];
    const TensorRef t = ex_.tensor(o.outputs.front());
    if (ex_.graph().tensors[static_cast<std::size_t>(o.outputs.front())].bytes > 0)
      g_sink = static_cast<unsigned char>(g_sink + static_cast<unsigned char>(t.data[0]));
  }

  GraphExecutor ex_;
  std::vector<Clock::time_point> stamps_;
};

} // namespace

MachineInfo describe_machine(int threads) {
  MachineInfo m;
  const HostCpu host = read_host_cpu();
  m.cpu_model = host.model.empty() ? "unknown" : host.model;
  m.cpu_mhz = host.mhz;
  m.simd_fp32_lanes = host.fp32_lanes;
  m.fma = host.fma;
  m.l1d_cache_bytes = host.l1d_bytes;
  m.l2_cache_bytes = host.l2_bytes;
  m.l3_cache_bytes = host.l3_bytes;
  m.logical_cpus = static_cast<std::int32_t>(std::thread::hardware_concurrency());
  set_kernel_threads(threads);
  m.threads = static_cast<std::int32_t>(kernel_threads());
  // Eigen's GEMM parallelizer (Eigen/src/Core/products/Parallelizer.h, row-major results): threads =
  // min(nbThreads, rows of m / nr, m*n*k / kMinTaskSize) with nr = 4 and kMinTaskSize = 50000; every
  // thread but the last takes (m / threads) rounded down to a multiple of 4 rows, the last the rest.
  m.intra_op_min_rows = 4;
  m.intra_op_min_macs = 50000;
  m.intra_op_row_block = 4;
  m.threading = m.threads > 1
                    ? "dense and batch_matmul: Eigen GEMMs with OpenMP, each GEMM's rows of m split over up "
                      "to " +
                          std::to_string(m.threads) +
                          " threads (at least 4 rows and 50000 MACs per thread); every other kernel on "
                          "one thread"
                    : "every kernel on one thread";
#if defined(__clang__)
  m.compiler = std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
  m.compiler = std::string("GCC ") + __VERSION__;
#else
  m.compiler = "unknown";
#endif
  m.compiler_flags = LIGHTSIM_PROFILE_CXX_FLAGS;
  m.eigen_version = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                    std::to_string(EIGEN_MINOR_VERSION);
  m.load_average = read_load_average();
  return m;
}

void record_load(MachineInfo& machine, const LoadReport& load, double max_other_cores) {
  machine.load_average_end = read_load_average();
  machine.self_cpu_s = load.self_cpu_s;
  machine.other_cpu_s = load.other_cpu_s;
  machine.steal_s = load.steal_s;
  machine.other_load_cores = load.other_cores;
  machine.steal_cores = load.steal_cores;
  machine.max_other_load_cores = max_other_cores;
  machine.disturbed = load.disturbed;
  machine.disturbance = load.disturbance;
}

MeasurementFile profile_graph(const ir::Graph& graph, const ProfileOptions& options,
                              const std::function<void(const std::string&)>& progress) {
  const auto t_start = Clock::now();
  const LoadMonitor load(options.max_other_load_cores);
  MachineInfo machine = describe_machine(options.threads);
  CpuRunner runner(graph, options.seed);
  if (progress)
    progress("buffers and kernels ready (" + std::to_string(runner.compute_ops().size()) + " ops), " +
             std::to_string(seconds_since(t_start)) + " s");
  MeasurementFile file = profile_with(runner, graph, options, std::move(machine), progress);
  file.profile_wall_s = seconds_since(t_start);
  record_load(file.machine, load.report(), options.max_other_load_cores);
  if (progress)
    progress(file.machine.disturbed
                 ? "DISTURBED: " + file.machine.disturbance
                 : "load: other processes " + std::to_string(file.machine.other_load_cores) +
                       " cores on average, steal " + std::to_string(file.machine.steal_cores));
  return file;
}

MeasurementFile profile_with(OpRunner& runner, const ir::Graph& graph, const ProfileOptions& options,
                             MachineInfo machine, const std::function<void(const std::string&)>& progress) {
  const auto t_start = Clock::now();
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  MeasurementFile file;
  file.graph = graph.source;
  file.lightsim_revision = LIGHTSIM_GIT_REVISION;
  file.machine = std::move(machine);
  file.seed = options.seed;
  const std::vector<ir::OpId>& ops = runner.compute_ops();

  // Whole graph: one warm-up run, then timed runs without and with per-op timestamps.
  runner.time_graph();
  const int runs = std::max(1, options.graph_runs);
  for (int r = 0; r < runs; ++r)
    file.end_to_end_s.push_back(runner.time_graph());
  std::vector<std::vector<double>> in_graph(ops.size());
  std::vector<double> per_op;
  for (int r = 0; r < runs; ++r) {
    runner.time_graph_ops(per_op);
    for (std::size_t i = 0; i < ops.size(); ++i)
      in_graph[i].push_back(per_op[i]);
  }
  file.end_to_end_median_s = median(file.end_to_end_s);
  file.end_to_end_min_s = *std::min_element(file.end_to_end_s.begin(), file.end_to_end_s.end());
  say("end to end: median " + std::to_string(file.end_to_end_median_s) + " s over " + std::to_string(runs) +
      " runs");

  // Each op alone.
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const ir::OpId id = ops[i];
    const ir::Op& op = graph.ops[static_cast<std::size_t>(id)];
    const auto time_batch = [&](int batch) { return runner.time_op(id, batch); };
    const double first = time_batch(1);
    const int batch =
        first >= options.min_sample_s
            ? 1
            : static_cast<int>(std::min(1e6, std::ceil(options.min_sample_s / std::max(first, 1e-9))));
    const double per_sample = std::max(first * batch, 1e-9);
    const int samples = std::clamp(static_cast<int>(options.op_budget_s / per_sample), options.min_samples,
                                   std::max(options.min_samples, options.max_samples));
    std::vector<double> t(static_cast<std::size_t>(samples));
    for (double& s : t)
      s = time_batch(batch);
    Measurement m;
    m.op_id = id;
    m.node_index = op.node_index;
    m.name = op.name;
    m.func_name = op.func_name;
    m.op_class = op.op_class;
    m.input_shapes = shapes_text(graph, op.inputs);
    m.output_shapes = shapes_text(graph, op.outputs);
    m.features = op.features;
    m.samples = samples;
    m.batch = batch;
    m.median_s = median(t);
    m.min_s = *std::min_element(t.begin(), t.end());
    m.p90_s = quantile(t, 0.9);
    m.in_graph_median_s = median(in_graph[i]);
    m.in_graph_min_s = *std::min_element(in_graph[i].begin(), in_graph[i].end());
    m.checksum = runner.output_checksum(id);
    file.ops.push_back(std::move(m));
  }
  file.profile_wall_s = seconds_since(t_start);
  say("ops timed, " + std::to_string(file.profile_wall_s) + " s in all");
  return file;
}

} // namespace lightsim::profile
