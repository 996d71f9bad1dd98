// profile_graph_gpu: the profiler (profile_with) on a GpuExecutor, timed with CUDA events recorded on the
// executor's stream around whole-graph runs, between the ops of a run, and around batches of one op.
#include "sim/profile/cuda/gpu_runtime.h"

#include <chrono>

namespace lightsim::profile {
namespace {

using cuda::check;

class Event {
public:
  Event() { check(cudaEventCreate(&e_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }

  void record(cudaStream_t s) { check(cudaEventRecord(e_, s), "cudaEventRecord"); }
  // Seconds from `start` to this event, after waiting for it.
  double seconds_since(const Event& start) {
    check(cudaEventSynchronize(e_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start.e_, e_), "cudaEventElapsedTime");
    return 1e-3 * static_cast<double>(ms);
  }

private:
  cudaEvent_t e_ = nullptr;
};

class GpuRunner final : public OpRunner {
public:
  GpuRunner(const ir::Graph& graph, std::uint64_t seed)
      : ex_(graph, seed), stream_(cuda::stream_of(ex_)), stamps_(ex_.compute_ops().size() + 1) {}

  const std::vector<ir::OpId>& compute_ops() const override { return ex_.compute_ops(); }
  double time_graph() override {
    start_.record(stream_);
    ex_.run_all();
    stop_.record(stream_);
    const double s = stop_.seconds_since(start_);
    ex_.synchronize(); // surfaces kernel errors
    return s;
  }
  void time_graph_ops(std::vector<double>& per_op) override {
    const std::vector<ir::OpId>& ops = ex_.compute_ops();
    stamps_[0].record(stream_);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      ex_.run_op(ops[i]);
      stamps_[i + 1].record(stream_);
    }
    per_op.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
      per_op[i] = stamps_[i + 1].seconds_since(stamps_[i]);
    ex_.synchronize();
  }
  double time_op(ir::OpId op, int batch) override {
    start_.record(stream_);
    for (int b = 0; b < batch; ++b)
      ex_.run_op(op);
    stop_.record(stream_);
    return stop_.seconds_since(start_) / batch;
  }
  std::uint64_t output_checksum(ir::OpId op) override { return ex_.output_checksum(op); }

private:
  GpuExecutor ex_;
  cudaStream_t stream_;
  Event start_, stop_;
  std::vector<Event> stamps_;
};

} // namespace

MeasurementFile profile_graph_gpu(const ir::Graph& graph, const ProfileOptions& options,
                                  const std::function<void(const std::string&)>& progress) {
  const auto t_start = std::chrono::steady_clock::now();
  MachineInfo machine = describe_gpu_machine();
  GpuRunner runner(graph, options.seed);
  if (progress)
    progress("GPU '" + machine.gpu.name + "': buffers and kernels ready (" +
             std::to_string(runner.compute_ops().size()) + " ops)");
  MeasurementFile file = profile_with(runner, graph, options, std::move(machine), progress);
  file.profile_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return file;
}

} // namespace lightsim::profile
