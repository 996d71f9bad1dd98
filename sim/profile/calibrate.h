// Calibration of a CPU's (or a GPU's) arithmetic model from lightsim-profile measurements, through the
// retrain's fitter (sim/retrain.h, fit::fit_models): every measured op becomes a fit::Sample on the
// calibrated CPU unit, timed by the chosen measurement, with the base model's energy (nothing measures energy
// here). The unit runs one op at a time in the result (cores = 1), as the measurements were taken. No second
// fitter: the feature sets, weighting, non-negativity and roofline split are the retrain's.
//
// It is not the retrain loop (sim/retrain_loop.h): measurements are ground truth, nothing is replayed.
#pragma once

#include "ir/hardware.h"
#include "sim/profile/measurements.h"
#include "sim/retrain.h"

#include <string>
#include <vector>

namespace lightsim::profile {

enum class FitTarget {
  InGraph,    // Measurement::in_graph_median_s: the op inside whole-graph runs (what end-to-end time sums)
  InGraphMin, // Measurement::in_graph_min_s: the same, least-disturbed run (a shared, loaded machine)
  Isolated,   // Measurement::median_s: the op repeated alone
};

double target_time(const Measurement& m, FitTarget target);

// One fit::Sample per measurement (ops with a fused tail are left out, as the retrain does), `source` the
// index of the measurement file it came from.
std::vector<fit::Sample> measurement_samples(const ir::Hardware& hw, int unit,
                                             const std::vector<std::vector<Measurement>>& files,
                                             FitTarget target);

// `base` with unit `unit` (a CPU) set to one core and its model fitted to the measurements.
fit::FitResult calibrate_cpu(const ir::Hardware& base, int unit,
                             const std::vector<std::vector<Measurement>>& files, FitTarget target,
                             const fit::FitOptions& options = {});

// The same for a CPU or a GPU unit (lightsim-profile --unit gpu measurements); a GPU keeps its config's
// parallelism (the measurements ran one op at a time on the whole GPU).
fit::FitResult calibrate_unit(const ir::Hardware& base, int unit,
                              const std::vector<std::vector<Measurement>>& files, FitTarget target,
                              const fit::FitOptions& options = {});

} // namespace lightsim::profile
