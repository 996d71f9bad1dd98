// Retrain: fits the arithmetic model (the linear time and energy coefficients per op class and unit
// model in ir::Hardware) to observed op timings. The observations are Samples, whatever produced them:
// the SystemC replay (collect_samples from a FlatGraph and its simulated Schedule) or, later, real
// measurements. No SystemC here.
//
// Per (unit model, op class) entry the fit is a weighted, non-negative least-squares problem
// (sim/retrain/nnls.h): rows weighted by 1 / observed value so that the relative error counts (small and
// large ops alike), every coefficient and the intercept >= 0 (times per cycle, per byte and fixed latencies
// are never negative). An entry may become two pieces split on one feature at the threshold (searched among
// the samples) that minimises the weighted error: on compute_cycles_per_byte (on a CPU on
// compute_memory_ratio, its memory cycles being at the cache level's rate) where the detailed model is a
// roofline, max(compute, memory), and on operand_bytes where working sets beyond a cache stream at another
// rate than the unit's features say (measured CPUs). A split is kept only when it cuts the weighted squared
// error by FitOptions::split_min_gain. Feature subsets per entry are the unit kind's
// (ir::UnitKind::fit_features, ir/hardware/unit_kind.h). An entry with too few samples keeps its old
// coefficients and is reported as such. Same samples in the same order -> same coefficients, bit for bit.
//
// Fused ops (ir/fusion: an anchor with a fused tail, or fused attention) are samples of their anchor's
// entry: the arithmetic model costs them with that entry alone on their own features, in which the tail's
// work is (compute_cycles, elementwise_ops, fused_ops) and the memory traffic is what crosses the group's
// boundary (operand_bytes), exactly as the SystemC modules time them.
//
// Contended samples (the op overlapped another op on the same unit, e.g. CPU cores sharing the memory
// port) describe the op plus its neighbours, which a per-op model cannot see (the list scheduler adds
// contention). The retrain loop samples a replay with every op alone, so it has none; for other sources
// an entry is fitted on its uncontended samples when it has enough of them, else on all. Spilled samples
// (operands that did not fit the unit's memory at the time, e.g. a PHU's SRAM, went to its spill memory)
// are left out the same way: the spill depends on what else occupied the memory, not on the op.
//
// Samples crowded out of their memory (crowded_out: operands spilled from an SRAM that other tensors had
// filled) are counted per entry and reported, so that an entry whose plan ops are crowded out says so:
// memory occupancy is in neither the arithmetic model nor the list scheduler, so such an op's error is
// the crowding's, not the fit's.
//
// It is not the iteration (re-solve, replay, refit): sim/retrain/retrain_loop.h drives that.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "scheduler/flat_graph.h"
#include "scheduler/schedule.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace lightsim::fit {

struct Sample {
  ir::OpClass op_class = ir::OpClass::Input; // anchor class of the op
  int unit = -1;                             // index into Hardware::units
  ir::OpFeatures shape;                      // shape features of the op
  ir::FeatureValues features{};              // ir::feature_value of every feature on that unit
  double time_s = 0, energy_j = 0;           // observed
  ir::EnergyBreakdown energy;                // observed by component (sums to energy_j)
  bool contended = false;   // overlapped another op on its unit (shared memory port): not the op alone
  bool crowded = false;     // crowded out of its unit's memory (crowded_out)
  bool spilled = false;     // some operands were in the spill memory (the unit's memory was full)
  std::uint32_t source = 0; // which run it came from (graph index in a batch)
  ir::OpId op = -1;
};

Sample make_sample(const ir::Hardware& hw, const ir::Op& op, ir::OpId id, int unit, double time_s,
                   const ir::EnergyBreakdown& energy, std::uint32_t source);

struct CollectStats {
  std::size_t samples = 0;
  std::size_t fused = 0; // of the samples, fused ops
};

// Per op: whether another op on its unit ran during part of it in `observed` (a sweep per unit by
// start time). Such an op shared its unit's memory port, so its time is not its time alone.
std::vector<bool> contended_ops(const ir::Graph& graph, const sched::FlatGraph& flat,
                                const sched::Schedule& observed);

// Whether an observed op was crowded out of its unit's memory: some of its operands were in the spill
// memory although all of them would fit in its own (other tensors had filled it). The arithmetic model
// and the list scheduler do not see memory capacity, so such a time is the op plus its neighbours.
bool crowded_out(const ir::Hardware& hw, const ir::Op& op, int unit, const sched::ScheduledOp& observed);

// Whether an op gives a Sample: every compute op, fused or not.
bool gives_sample(const ir::Op& op);

// One Sample per op that gives_sample, in op order, on the unit `flat` placed it, timed by `observed`
// (end_s - start_s; energy by component from observed.op_energy, all `compute` when it is empty), appended
// to `out`.
CollectStats collect_samples(const ir::Graph& graph, const ir::Hardware& hw, const sched::FlatGraph& flat,
                             const sched::Schedule& observed, std::uint32_t source, std::vector<Sample>& out);

struct FitOptions {
  std::size_t min_samples = 8; // an entry needs this many and > features + 1; each piece of a split half
  std::size_t max_split_candidates = 64;
  double split_min_gain = 0.2; // a split must cut the weighted squared error by this fraction
};

enum class EntryStatus { Fitted, TooFewSamples, NotFitted };
std::string_view entry_status_name(EntryStatus s);

struct EntryFit {
  int model = -1; // index into Hardware::models
  ir::OpClass op_class = ir::OpClass::Input;
  EntryStatus status = EntryStatus::NotFitted;
  std::size_t samples = 0;
  std::size_t contended_left_out = 0;
  std::size_t crowded = 0; // samples crowded out of their memory (left out of the fit as spilled, see above)
  std::size_t pieces = 0;
  ir::Feature split_on = ir::Feature::ComputeCyclesPerByte; // when pieces == 2: the feature split on
  double split = 0;                                         // and the threshold
  double r2_time = 0, r2_energy = 0;
  std::string note; // why not fitted
};

struct FitResult {
  ir::Hardware hardware;         // the input with the fitted entries replaced
  std::vector<EntryFit> entries; // every (model, class) that had samples, in (model, class) order
};

// Fits every entry that has samples; the others are left as they were.
FitResult fit_models(const ir::Hardware& hw, std::span<const Sample> samples, const FitOptions& options = {});

// Weighted R^2 with weights 1 / y: 1 - sum(((y - p) / y)^2) / sum(((y - m) / y)^2), m the weighted mean.
double relative_r2(std::span<const double> observed, std::span<const double> predicted);

} // namespace lightsim::fit
