// Calibration of a CPU from lightsim-profile measurements: the CPU module's physical parameters
// (sim/profile/cpu_module_fit.h) and the arithmetic model, through the retrain's fitter
// (sim/retrain/retrain.h, fit::fit_models): every measured op becomes a fit::Sample on the calibrated CPU
// unit, timed by the chosen measurement, with the base model's energy (nothing measures energy here). The
// unit runs one op at a time in the result, as the measurements were taken, each GEMM on the threads the
// profile gave it. No second per-class fitter: the feature sets, weighting, non-negativity and roofline
// split are the retrain's.
//
// It is not the retrain loop (sim/retrain/retrain_loop.h): measurements are ground truth, nothing is
// replayed.
#pragma once

#include "ir/hardware/hardware.h"
#include "ir/names.h"
#include "sim/profile/cpu_module_fit.h"
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
// lightsim-calibrate --target names.
inline constexpr ir::NameTable kFitTargets{
    std::array{std::pair{FitTarget::InGraph, std::string_view("in-graph")},
               std::pair{FitTarget::InGraphMin, std::string_view("in-graph-min")},
               std::pair{FitTarget::Isolated, std::string_view("isolated")}}};

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

// Unit `base` as the measurements describe it: cores = the profile's threads, one op at a time
// (concurrent_ops 1, as lightsim-profile runs them), GEMMs split over the threads as the profile's runtime
// splits them (intra_op_*), clock, SIMD lanes and FMA from the measured CPU, and caches L2 and L3 of the
// measured sizes (bandwidths from the base's levels of those names, else its memory port: starting
// points for the fit). What the machine description lacks stays as in `base`.
ir::Unit measured_cpu_unit(const ir::Unit& base, const MachineInfo& machine);

// `base` with unit `unit` (a CPU) made measured_cpu_unit(machine), its module parameters fitted to the
// measurements (fit_cpu_module, sim/profile/cpu_module_fit.h; written to *module when given), then its
// per-class model fitted to the same measurements by the retrain's fitter, on features of the fitted unit.
fit::FitResult calibrate_cpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, const MachineInfo& machine,
                             FitTarget target, const fit::FitOptions& options = {},
                             CpuModuleFit* module = nullptr);

// `base` with unit `unit` (a GPU) fitted to lightsim-profile --unit gpu measurements: the per-class model
// only (no GPU module parameters are fitted); the GPU keeps its config's parallelism (each op ran alone on
// the whole GPU).
fit::FitResult calibrate_gpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, FitTarget target,
                             const fit::FitOptions& options = {});

} // namespace lightsim::profile
