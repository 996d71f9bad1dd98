// Calibration of a CPU's arithmetic model from lightsim-profile measurements, through the retrain's fitter
// (sim/retrain/retrain.h, fit::fit_models): every measured op becomes a fit::Sample on the calibrated CPU
// unit, timed by the chosen measurement, with the base model's energy (nothing measures energy here). The
// unit runs one op at a time in the result (cores = 1), as the measurements were taken. No second fitter: the
// feature sets, weighting, non-negativity and roofline split are the retrain's.
//
// It is not the retrain loop (sim/retrain/retrain_loop.h): measurements are ground truth, nothing is
// replayed.
#pragma once

#include "ir/hardware/hardware.h"
#include "sim/profile/measurements.h"
#include "sim/retrain/retrain.h"

#include <span>
#include <string>
#include <vector>

namespace lightsim::profile {

enum class FitTarget {
  InGraph,    // Measurement::in_graph_median_s: the op inside whole-graph runs (what end-to-end time sums)
  InGraphMin, // Measurement::in_graph_min_s: the same, least-disturbed run (a shared, loaded machine)
  Isolated,   // Measurement::median_s: the op repeated alone
};

double target_time(const Measurement& m, FitTarget target);

// Repeated profiles of one graph (same graph file, same ops in the same order) become one: per op, the
// minimum of each time statistic over the repeats (other work on a shared machine only ever adds time).
// Files of different graphs pass through unchanged, in their order.
std::vector<std::vector<Measurement>> merge_repeated_profiles(const std::vector<MeasurementFile>& files);

// One fit::Sample per measurement (ops with a fused tail are left out, as the retrain does), `source` the
// index of the measurement file it came from.
std::vector<fit::Sample> measurement_samples(const ir::Hardware& hw, int unit,
                                             const std::vector<std::vector<Measurement>>& files,
                                             FitTarget target);

// The CPU SystemC module's own parameters (sim/hw/cpu.h), fitted to the same samples: an op takes
// dispatch_ns + max(compute_cycles / (clock_ghz x compute_efficiency), operand_bytes / memory_port_GBps).
// One roofline for every op class, so it cannot follow what the per-class arithmetic model can (GPT-2's
// lm_head streams at under half the layers' rate); fitted by alternating between assigning each op to
// its bound and a non-negative least-squares solve on absolute times (not relative errors): the replay
// sums op times, so the ops that make up the end-to-end time should count most.
struct CpuModuleFit {
  double dispatch_ns = 0, compute_efficiency = 1, memory_port_GBps = 0;
  std::size_t samples = 0, compute_bound = 0; // ops the fit puts on the compute side of the roofline
  double relative_rms = 0;                    // sqrt(mean(((predicted - observed) / observed)^2))
  double total_error = 0;                     // (sum predicted - sum observed) / sum observed
  int rounds = 0;
};
CpuModuleFit fit_cpu_module(const ir::Unit& cpu, std::span<const fit::Sample> samples);

// `base` with unit `unit` (a CPU) set to one core, its model fitted to the measurements and its module
// parameters set from fit_cpu_module (written to *module when given).
fit::FitResult calibrate_cpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, FitTarget target,
                             const fit::FitOptions& options = {}, CpuModuleFit* module = nullptr);

// `base` with unit `unit` (a GPU) fitted to lightsim-profile --unit gpu measurements: the per-class model
// only (no GPU module parameters are fitted); the GPU keeps its config's parallelism (each op ran alone on
// the whole GPU).
fit::FitResult calibrate_gpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, FitTarget target,
                             const fit::FitOptions& options = {});

} // namespace lightsim::profile
