// Measurements: what lightsim-profile measured on a real unit, op by op and end to end, and the HDF5 file
// that holds it (layout in sim/profile/README.md). The retrain reads these as ground truth
// for the units they cover: read_measurements() gives one Measurement per executed op, with the op's class
// and the same shape features (ir::OpFeatures) the arithmetic model evaluates.
//
// It is not a trace of a simulated run (that is sim/trace) and holds no model coefficients.
#pragma once

#include "ir/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lightsim::profile {

struct Measurement {
  ir::OpId op_id = -1;
  std::int32_t node_index = -1; // in the graph file's `nodes`
  std::string name;
  std::string func_name;
  ir::OpClass op_class = ir::OpClass::Nop;
  std::string input_shapes, output_shapes; // "float32[1,5,768] float32[768]"
  ir::OpFeatures features;
  std::int32_t samples = 0; // timed samples (each the mean of `batch` back-to-back runs)
  std::int32_t batch = 0;   // runs per sample
  double median_s = 0;      // isolated: the op alone, repeated on warm buffers
  double min_s = 0;
  double p90_s = 0;
  double in_graph_median_s = 0; // the op's time inside whole-graph runs (caches as the real run leaves them)
  double in_graph_min_s = 0;    // the least-disturbed of those (robust to other work on the machine)
  std::uint64_t checksum = 0;   // of the op's outputs after the last run (outputs depend on every kernel)
};

// The GPU measured (unit "gpu" only): cudaGetDeviceProperties / cudaDeviceGetAttribute and versions.
struct GpuInfo {
  std::string name;
  std::string compute_capability; // "9.0"
  std::int32_t sm_count = 0;
  std::int32_t clock_khz = 0;        // peak SM clock
  std::int32_t memory_clock_khz = 0; // peak memory clock
  std::int32_t memory_bus_bits = 0;
  std::uint64_t memory_bytes = 0;
  std::int32_t driver_version = 0; // cudaDriverGetVersion, e.g. 13000
  std::int32_t runtime_version = 0;
  std::int32_t cublas_version = 0;
  std::string cuda_compiler; // "NVIDIA 13.0.88"
  std::string cuda_flags;    // nvcc flags and architectures of the kernels
};

// The machine the measurements were taken on.
struct MachineInfo {
  std::string unit = "cpu";
  std::string cpu_model; // /proc/cpuinfo "model name"
  std::int32_t logical_cpus = 0;
  std::int32_t threads = 1; // threads the kernels were allowed (Eigen::nbThreads())
  std::string compiler;     // e.g. "GCC 12.2.0"
  std::string compiler_flags;
  std::string eigen_version;
  std::string load_average; // /proc/loadavg when profiling started (other work on the machine)
  GpuInfo gpu;              // unit "gpu" only
  // The CPU as the CPU module describes it (sim/profile/host_cpu.h; 0 where unknown).
  double cpu_mhz = 0;
  std::int32_t simd_fp32_lanes = 0;
  bool fma = false;
  std::int64_t l1d_cache_bytes = 0, l2_cache_bytes = 0, l3_cache_bytes = 0;
  // What runs on several threads: `threading` in words; GEMMs split the rows of m over up to `threads`
  // threads, each taking at least intra_op_min_rows rows and intra_op_min_macs MACs (0: never split).
  std::string threading;
  std::int32_t intra_op_min_rows = 0;
  double intra_op_min_macs = 0;
  std::int32_t intra_op_row_block = 0; // rows are handed out in blocks of this many (units::CpuParams)
  // How busy the machine was while profiling (host_cpu.h's LoadReport; files before it: all 0).
  std::string load_average_end;
  double self_cpu_s = 0, other_cpu_s = 0, steal_s = 0;
  double other_load_cores = 0, steal_cores = 0;
  double max_other_load_cores = 0; // the limit it was held to
  bool disturbed = false;
  std::string disturbance;
};

struct MeasurementFile {
  std::string graph; // the graph file profiled
  std::string lightsim_revision;
  MachineInfo machine;
  std::uint64_t seed = 0;
  std::vector<double> end_to_end_s; // each whole-graph run, op by op in topological order, no timers inside
  double end_to_end_median_s = 0;
  double end_to_end_min_s = 0;
  double profile_wall_s = 0; // how long profiling took
  std::vector<Measurement> ops;
};

// Writes the file atomically (sim/io/atomic_file.h: a temporary beside it, renamed when complete). Throws
// InputError naming the path when it cannot be written; no file is left behind then.
void write_measurement_file(const std::string& path, const MeasurementFile& file);

// Throws InputError naming the path when the file is missing or not a measurement file.
MeasurementFile read_measurement_file(const std::string& path);
std::vector<Measurement> read_measurements(const std::string& path);

} // namespace lightsim::profile
