// Retrain loop: plan each graph with the current arithmetic model (stacked graph, exact solve, list
// schedule), observe what the detailed model makes of that plan (an Observer: the SystemC replay), pool
// the op timings observed with every op alone on its unit as Samples, refit (sim/retrain/retrain.h), and
// repeat with the new model (placement may change) until the fit reproduces the model it started from
// (placement and coefficients no longer change) or max_rounds. Samples are pooled over rounds, keyed by
// (graph, op, unit), so units that a round's placement left idle keep the samples earlier rounds gave them.
//
// The division of labour: the fit learns each op's cost alone; the list scheduler adds what overlapping
// ops do to each other (CPU cores sharing their memory port, scheduler/list_scheduler.h). So the check
// compares the plan's op times (end - start) with the replay's, overlaps included.
//
// It reports, per (op class, unit), the relative time error of the plan's op times before (round 0) and
// after (final model), and per graph the predicted vs observed makespan before and after.
//
// It is not the command line (sim/cli/lightsim_main.cc) and knows nothing of SystemC.
#pragma once

#include "sim/driver/pipeline.h"
#include "sim/retrain/retrain.h"

#include <functional>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <vector>

namespace lightsim::fit {

// What the detailed model observes for a planned run, in the Schedule layout (ops indexed by OpId).
// With `alone`, every op runs alone on its unit (sim::ReplayOptions::ops_alone): the samples the fit
// needs, each op's own cost. Without, the plan as the machine runs it, overlaps included: the check.
using Observer = std::function<sched::Schedule(const Pipeline& run, bool alone)>;

struct RetrainInput {
  std::string label; // shown in reports (the graph file)
  ir::Graph graph;   // as the runs plan it: fused already (sim/driver/pipeline.h, fuse_for), never again
};

struct LoopOptions {
  sched::Objective objective = sched::Objective::Time;
  int max_rounds = 5;
  FitOptions fit;
};

// Relative error (predicted - observed) / observed of op times, per (unit, op class).
struct ClassError {
  int unit = -1;
  ir::OpClass op_class = ir::OpClass::Input;
  std::size_t ops = 0; // ops with a non-zero observed time
  double median_abs = 0, max_abs = 0;
  std::size_t contended = 0;   // of those, ops that overlapped another op on their unit
  std::size_t crowded = 0;     // of those, ops crowded out of their unit's memory (fit::crowded_out)
  double median_abs_alone = 0; // median over the ops that ran alone (NaN when none did)
};

struct RunCheck {
  std::string label;
  double predicted_makespan_s = 0, observed_makespan_s = 0;
  double predicted_energy_j = 0, observed_energy_j = 0;
  std::vector<int> placement; // unit per op
  // Per op (0 for inputs): the planned end - start (the model's time on the placed unit, stretched where
  // the list scheduler shares a CPU's memory port among overlapping ops), and the observed end - start.
  std::vector<double> predicted_op_s, observed_op_s;
};

struct Evaluation {
  std::vector<ClassError> classes; // in (unit, class) order
  std::vector<RunCheck> runs;      // per input
};

// Plans and observes every input under `hw`; appends the observed samples when `samples` is given.
Evaluation evaluate(const ir::Hardware& hw, std::span<const RetrainInput> inputs, const Observer& observe,
                    sched::Objective objective, std::vector<Sample>* samples = nullptr);

struct Round {
  int round = 0;
  std::size_t samples = 0; // in the pool after this round
  std::size_t fitted = 0, kept = 0;
  std::size_t ops_moved = 0; // ops placed on another unit than in the previous round
  bool models_changed = false;
  std::vector<RunCheck> runs;      // this round's plan and observation
  std::vector<ClassError> classes; // the error of the model this round planned with, in (unit, class) order
  std::vector<EntryFit> entries;
};

struct RetrainReport {
  Evaluation before, after;
  std::vector<Round> rounds;
  bool converged = false;
  ir::Hardware hardware; // the retrained machine
};

// The error of the model that round `round` fitted: the next round's starting error, or report.after for
// the last round.
const std::vector<ClassError>& errors_after_round(const RetrainReport& report, std::size_t round);

// Two error lists joined on (op class, unit), in (op class, unit) order; a side is null where that list
// has no such row. The pointers point into the lists.
struct ClassErrorPair {
  ir::OpClass op_class = ir::OpClass::Input;
  int unit = -1;
  const ClassError *before = nullptr, *after = nullptr;
};
std::vector<ClassErrorPair> join_class_errors(std::span<const ClassError> before,
                                              std::span<const ClassError> after);

// `progress`, when given, gets one block per round as it finishes.
RetrainReport retrain(const ir::Hardware& hw, std::span<const RetrainInput> inputs, const Observer& observe,
                      const LoopOptions& options = {}, std::ostream* progress = nullptr);

void print_round(std::ostream& out, const Round& round, const ir::Hardware& hw);
void print_report(std::ostream& out, const RetrainReport& report);
nlohmann::json report_json(const RetrainReport& report);

} // namespace lightsim::fit
