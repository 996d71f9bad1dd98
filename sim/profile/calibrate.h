// Calibration of a CPU's arithmetic model from measurements: per op class, a least-squares fit (Eigen) of
// time_s = intercept + sum_i a_i * feature_i to the measured op times, with every coefficient kept
// non-negative (a feature whose coefficient comes out negative is dropped and the fit repeated). GEMM-like
// classes use macs and bytes_in; every other class bytes_in and bytes_out. Unweighted, so the fitted times
// of a class add up to the measured total over the samples (the quantity an end-to-end prediction sums)
// as long as no coefficient had to be dropped. When the base model splits a class into pieces (the
// prototype's separate lm_head fit, `when max_dim >= 50001`), each piece is fitted on the samples it covers.
//
// It is a stop-gap until the retrain (`lightsim --retrain`) accepts measurements: it writes the same kind
// of config entry (pieces + fit provenance) and should be replaced by that fitter, not grown.
#pragma once

#include "ir/hardware.h"
#include "sim/profile/measurements.h"

#include <string>
#include <vector>

namespace lightsim::profile {

enum class FitTarget {
  InGraph,    // Measurement::in_graph_median_s: the op inside whole-graph runs (what end-to-end time sums)
  InGraphMin, // Measurement::in_graph_min_s: the same, least-disturbed run (a shared, loaded machine)
  Isolated,   // Measurement::median_s: the op repeated alone
};

struct ClassFit {
  ir::OpClass op_class;
  ir::ModelPiece piece;              // the condition (when, when_min, when_max) and the fitted time_s
  std::vector<ir::Feature> features; // kept (non-negative coefficients)
  ir::FitInfo info;
};

// Fits every op class that has measurements (ops with a fused tail are left out: their time is not one
// class's), one fit per piece of `base`'s entry for the class (one unconditioned piece when `base` is null
// or has no entry). Returned in OpClass order, pieces in the base's order.
std::vector<ClassFit> fit_op_classes(const std::vector<Measurement>& measurements, FitTarget target,
                                     const ir::ArithmeticModel* base = nullptr);

// A copy of `base` whose unit `unit` (a CPU) runs one op at a time (cores = 1: the measurements are
// sequential) and whose model has the fitted time_s for each fitted class and piece (energy_j kept from
// the base's matching piece). Classes without measurements keep the base's entry.
ir::Hardware calibrated_hardware(const ir::Hardware& base, int unit, const std::vector<ClassFit>& fits,
                                 const std::string& name, const std::string& description);

} // namespace lightsim::profile
