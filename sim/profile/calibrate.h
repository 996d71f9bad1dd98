// Calibration of a CPU's arithmetic model from measurements: per op class, a least-squares fit (Eigen) of
// time_s = intercept + sum_i a_i * feature_i to the measured op times, with every coefficient kept
// non-negative (a feature whose coefficient comes out negative is dropped and the fit repeated). GEMM-like
// classes use macs and bytes_in; every other class bytes_in and bytes_out. Unweighted, so the fitted times
// of a class add up to the measured total over the samples (the quantity an end-to-end prediction sums).
//
// It is a stop-gap until the retrain (`lightsim --retrain`) accepts measurements: it writes the same kind
// of config entry (pieces + fit provenance) and should be replaced by that fitter, not grown.
#pragma once

#include <string>
#include <vector>

#include "ir/hardware.h"
#include "sim/profile/measurements.h"

namespace lightsim::profile {

enum class FitTarget {
  InGraph,  // Measurement::in_graph_median_s: the op inside whole-graph runs (what end-to-end time sums)
  Isolated, // Measurement::median_s: the op repeated alone
};

struct ClassFit {
  ir::OpClass op_class;
  std::vector<ir::Feature> features; // kept (non-negative coefficients)
  ir::LinearForm time_s;
  ir::FitInfo info;
};

// Fits every op class that has measurements (ops with a fused tail are left out: their time is not one
// class's). Classes are returned in OpClass order.
std::vector<ClassFit> fit_op_classes(const std::vector<Measurement>& measurements, FitTarget target);

// A copy of `base` whose unit `unit` (a CPU) runs one op at a time (cores = 1: the measurements are
// sequential) and whose model has the fitted time_s for each fitted class (one piece; energy_j taken from
// the base's unconditioned piece). Classes without measurements keep the base's entry.
ir::Hardware calibrated_hardware(const ir::Hardware& base, int unit, const std::vector<ClassFit>& fits,
                                 const std::string& name, const std::string& description);

} // namespace lightsim::profile
