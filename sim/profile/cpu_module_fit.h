// Fitting the CPU module's parameters (sim/units/cpu/cpu_module.h; an op's time alone is units::cpu_alone_ns)
// to measured op times. Per op: dispatch_ns (+ intra_op_sync_ns when split over cores) + for a GEMM memory +
// compute, for other ops max(memory, compute); memory = operand bytes at the per-core rate of the level its
// working set fits in (split over k cores: at min(k x per-core, shared)); compute = GEMM cycles / (clock x
// gemm_efficiency), or the class's elementwise_ops x element cycles / clock. Every one of these is linear
// in the inverse rates once each op's bound is chosen (the larger side of a non-GEMM op, the per-core or
// the shared side of a split one), so the fit alternates between choosing bounds and a non-negative
// least-squares solve on absolute times (the end-to-end time is their sum), until the bounds settle.
// A parameter no measured op depends on (a level no working set fell in, sharing when nothing was split)
// keeps the unit's value.
//
// It is not the arithmetic model's fit (sim/retrain/retrain.h): one set of physical rates for every op,
// not coefficients per op class.
#pragma once

#include "ir/hardware/hardware.h"
#include "sim/retrain/retrain.h"
#include "sim/units/cpu/cpu_params.h"

#include <span>
#include <string>
#include <vector>

namespace lightsim::profile {

struct CpuModuleFit {
  units::CpuParams cpu;               // the unit's parameters with the fitted ones replaced
  std::size_t samples = 0;            // measured ops
  std::size_t compute_bound = 0;      // non-GEMM ops the fit puts on the compute side
  std::size_t split = 0;              // ops split over more than one core
  std::size_t shared_bound = 0;       // ops whose bytes are bound by a level's shared rate
  std::vector<std::size_t> level_ops; // per level (caches, then memory): ops whose working set fell there
  std::vector<std::string> kept;      // parameters the measurements said nothing about
  double relative_rms = 0;            // sqrt(mean(((predicted - observed) / observed)^2))
  double total_error = 0;             // (sum predicted - sum observed) / sum observed
  int rounds = 0;
};

// Samples' times are observed op times; their op_class and shape (fused ops are not samples) say what
// each op was. Throws InputError with fewer than 3 samples.
CpuModuleFit fit_cpu_module(const ir::Unit& cpu, std::span<const fit::Sample> samples);

} // namespace lightsim::profile
