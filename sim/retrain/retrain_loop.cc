#include "sim/retrain/retrain_loop.h"

#include "ir/cost/cost_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <tuple>

namespace lightsim::fit {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

double relative(double predicted, double observed) {
  return observed != 0 ? (predicted - observed) / observed : 0;
}

std::string percent(double x) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << 100 * x << "%";
  return s.str();
}

std::string seconds(double x) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(4) << x << " s";
  return s.str();
}

using SampleKey = std::tuple<std::uint32_t, ir::OpId, int>;
using Runs = std::vector<std::unique_ptr<Pipeline>>;
// Whether run g needs samples from the replay with ops alone (its placement has ops not sampled yet).
using NeedsSamples = std::function<bool(std::uint32_t g, const Pipeline& run)>;

Runs plan_all(const ir::Hardware& hw, std::span<const RetrainInput> inputs, sched::Objective objective) {
  Runs runs;
  for (const RetrainInput& input : inputs) {
    PipelineOptions options;
    options.graph_path = input.label;
    options.objective = objective;
    // The inputs come fused as the runs plan them (RetrainInput): no compiler section, no second fusion.
    runs.push_back(std::make_unique<Pipeline>(options, MachineConfig{hw, {}}, input.graph));
  }
  return runs;
}

Evaluation evaluate_runs(const Runs& runs, const Observer& observe, std::vector<Sample>* samples,
                         const NeedsSamples& needs_samples) {
  Evaluation eval;
  std::map<std::pair<int, int>, std::vector<double>> errors, alone; // (unit, class) -> |relative error|
  std::map<std::pair<int, int>, std::size_t> crowded;
  for (std::size_t g = 0; g < runs.size(); ++g) {
    const Pipeline& run = *runs[g];
    const ir::Hardware& hw = run.hardware();
    const sched::Schedule observed = observe(run, false);
    const ir::Graph& graph = run.graph();
    RunCheck check;
    check.label = run.options().graph_path;
    check.predicted_makespan_s = run.schedule().makespan_s;
    check.observed_makespan_s = observed.makespan_s;
    check.predicted_energy_j = run.schedule().energy_j;
    check.observed_energy_j = observed.energy_j;
    check.placement.resize(graph.ops.size());
    check.predicted_op_s.assign(graph.ops.size(), 0.0);
    check.observed_op_s.assign(graph.ops.size(), 0.0);
    const std::vector<bool> contended = contended_ops(graph, run.flat(), observed);
    for (std::size_t i = 0; i < graph.ops.size(); ++i) {
      const auto id = static_cast<ir::OpId>(i);
      const int unit = run.flat().unit_of(id);
      check.placement[i] = unit;
      if (graph.ops[i].op_class == ir::OpClass::Input) continue;
      const double seen = observed.ops[i].end_s - observed.ops[i].start_s;
      const double predicted = run.schedule().ops[i].end_s - run.schedule().ops[i].start_s;
      check.predicted_op_s[i] = predicted;
      check.observed_op_s[i] = seen;
      if (seen > 0) {
        const std::pair<int, int> key{unit, static_cast<int>(graph.ops[i].op_class)};
        const double error = std::abs(relative(predicted, seen));
        errors[key].push_back(error);
        if (!contended[i]) alone[key].push_back(error);
        crowded[key] += fit::crowded_out(hw, graph.ops[i], unit, observed.ops[i]);
      }
    }
    if (samples && (!needs_samples || needs_samples(static_cast<std::uint32_t>(g), run))) {
      samples->reserve(samples->size() + graph.ops.size()); // grow once (a Sample is ~0.3 kB)
      collect_samples(graph, hw, run.flat(), observe(run, true), static_cast<std::uint32_t>(g), *samples);
    }
    eval.runs.push_back(std::move(check));
  }
  for (auto& [key, v] : errors) {
    ClassError e;
    e.unit = key.first;
    e.op_class = static_cast<ir::OpClass>(key.second);
    e.ops = v.size();
    e.max_abs = *std::max_element(v.begin(), v.end());
    e.median_abs = median(std::move(v));
    std::vector<double>& a = alone[key];
    e.contended = e.ops - a.size();
    e.crowded = crowded[key];
    e.median_abs_alone = a.empty() ? std::numeric_limits<double>::quiet_NaN() : median(std::move(a));
    eval.classes.push_back(e);
  }
  return eval;
}

} // namespace

Evaluation evaluate(const ir::Hardware& hw, std::span<const RetrainInput> inputs, const Observer& observe,
                    sched::Objective objective, std::vector<Sample>* samples) {
  return evaluate_runs(plan_all(hw, inputs, objective), observe, samples, {});
}

RetrainReport retrain(const ir::Hardware& hw, std::span<const RetrainInput> inputs, const Observer& observe,
                      const LoopOptions& options, std::ostream* progress) {
  RetrainReport report;
  report.hardware = hw;
  std::map<SampleKey, Sample> pool;
  // An op's time alone on a unit does not depend on where the other ops run, so a run is replayed with
  // ops alone only while its placement has (op, unit) pairs the pool lacks: in round 0, and after moves.
  const NeedsSamples needs_samples = [&pool](std::uint32_t g, const Pipeline& run) {
    const ir::Graph& graph = run.graph();
    for (std::size_t i = 0; i < graph.ops.size(); ++i) {
      if (!gives_sample(graph.ops[i])) continue;
      const auto id = static_cast<ir::OpId>(i);
      if (!pool.contains({g, id, run.flat().unit_of(id)})) return true;
    }
    return false;
  };
  const Runs runs = plan_all(hw, inputs, options.objective);
  const std::vector<RunCheck>* previous = nullptr;
  for (int r = 0; r < std::max(1, options.max_rounds); ++r) {
    if (r > 0)
      for (const auto& run : runs)
        run->replan(report.hardware);
    std::vector<Sample> fresh;
    Evaluation eval = evaluate_runs(runs, observe, &fresh, needs_samples);
    for (Sample& s : fresh)
      pool[{s.source, s.op, s.unit}] = std::move(s);
    std::vector<Sample> pooled;
    pooled.reserve(pool.size());
    for (const auto& [key, s] : pool)
      pooled.push_back(s);

    FitResult fit = fit_models(report.hardware, pooled, options.fit);
    Round round;
    round.round = r;
    round.samples = pooled.size();
    for (const EntryFit& e : fit.entries) {
      if (e.status == EntryStatus::Fitted) ++round.fitted;
      if (e.status == EntryStatus::TooFewSamples) ++round.kept;
    }
    if (previous) {
      for (std::size_t g = 0; g < eval.runs.size(); ++g)
        for (std::size_t i = 0; i < eval.runs[g].placement.size(); ++i)
          round.ops_moved += eval.runs[g].placement[i] != (*previous)[g].placement[i];
    }
    round.models_changed = fit.hardware.models != report.hardware.models;
    round.runs = eval.runs;
    round.classes = eval.classes;
    round.entries = std::move(fit.entries);
    if (r == 0) report.before = eval;
    report.hardware = std::move(fit.hardware);
    report.rounds.push_back(std::move(round));
    if (progress) print_round(*progress, report.rounds.back(), report.hardware);
    previous = &report.rounds.back().runs;
    if (!report.rounds.back().models_changed) {
      // The fit reproduced the model this round planned with: this round's evaluation is the final one.
      report.converged = true;
      report.after = std::move(eval);
      return report;
    }
  }
  for (const auto& run : runs)
    run->replan(report.hardware);
  report.after = evaluate_runs(runs, observe, nullptr, {});
  return report;
}

const std::vector<ClassError>& errors_after_round(const RetrainReport& report, std::size_t round) {
  return round + 1 < report.rounds.size() ? report.rounds[round + 1].classes : report.after.classes;
}

std::vector<ClassErrorPair> join_class_errors(std::span<const ClassError> before,
                                              std::span<const ClassError> after) {
  std::map<std::pair<int, int>, ClassErrorPair> rows;
  auto row = [&rows](const ClassError& e) -> ClassErrorPair& {
    ClassErrorPair& r = rows[{static_cast<int>(e.op_class), e.unit}];
    r.op_class = e.op_class;
    r.unit = e.unit;
    return r;
  };
  for (const ClassError& e : before)
    row(e).before = &e;
  for (const ClassError& e : after)
    row(e).after = &e;
  std::vector<ClassErrorPair> out;
  out.reserve(rows.size());
  for (const auto& [key, r] : rows)
    out.push_back(r);
  return out;
}

void print_round(std::ostream& out, const Round& round, const ir::Hardware& hw) {
  out << "retrain round " << round.round << ": " << round.samples << " samples, " << round.fitted
      << " entries fitted, " << round.kept << " kept (too few samples), " << round.ops_moved
      << " ops moved since the last round, models " << (round.models_changed ? "changed" : "unchanged")
      << "\n";
  for (const RunCheck& c : round.runs)
    out << "  " << c.label << ": predicted " << seconds(c.predicted_makespan_s) << ", simulated "
        << seconds(c.observed_makespan_s) << " ("
        << percent(relative(c.predicted_makespan_s, c.observed_makespan_s)) << ")\n";
  for (const EntryFit& e : round.entries) {
    if (e.status != EntryStatus::TooFewSamples) continue;
    out << "  " << hw.models[static_cast<std::size_t>(e.model)].name << "/" << ir::op_class_name(e.op_class)
        << ": " << e.note << "\n";
  }
}

void print_report(std::ostream& out, const RetrainReport& report) {
  const ir::Hardware& hw = report.hardware;
  out << "retrain: " << report.rounds.size() << " round(s), "
      << (report.converged ? "converged" : "stopped at the round limit") << "\n";
  // Per (op class, unit): before and after, as the prototype's error table (relative op-time error).
  out << std::left << std::setw(16) << "op class" << std::setw(8) << "unit" << std::right << std::setw(7)
      << "ops" << std::setw(14) << "median before" << std::setw(12) << "max before" << std::setw(7) << "ops"
      << std::setw(13) << "median after" << std::setw(12) << "max after"
      << "\n";
  auto cell = [&](const ClassError* e, bool count, double ClassError::*field) {
    if (!e) return std::string("-");
    return count ? std::to_string(e->ops) : percent(e->*field);
  };
  for (const ClassErrorPair& row : join_class_errors(report.before.classes, report.after.classes)) {
    out << std::left << std::setw(16) << ir::op_class_name(row.op_class) << std::setw(8)
        << hw.units[static_cast<std::size_t>(row.unit)].name << std::right << std::setw(7)
        << cell(row.before, true, nullptr) << std::setw(14)
        << cell(row.before, false, &ClassError::median_abs) << std::setw(12)
        << cell(row.before, false, &ClassError::max_abs) << std::setw(7) << cell(row.after, true, nullptr)
        << std::setw(13) << cell(row.after, false, &ClassError::median_abs) << std::setw(12)
        << cell(row.after, false, &ClassError::max_abs) << "\n";
  }
  out << "\nend to end (makespan): graph | before: predicted simulated error | after: predicted simulated "
         "error\n";
  for (std::size_t g = 0; g < report.before.runs.size() && g < report.after.runs.size(); ++g) {
    const RunCheck& b = report.before.runs[g];
    const RunCheck& a = report.after.runs[g];
    out << "  " << b.label << " | " << seconds(b.predicted_makespan_s) << " "
        << seconds(b.observed_makespan_s) << " "
        << percent(relative(b.predicted_makespan_s, b.observed_makespan_s)) << " | "
        << seconds(a.predicted_makespan_s) << " " << seconds(a.observed_makespan_s) << " "
        << percent(relative(a.predicted_makespan_s, a.observed_makespan_s)) << "\n";
  }
}

namespace {

nlohmann::json evaluation_json(const Evaluation& eval, const ir::Hardware& hw) {
  nlohmann::json classes = nlohmann::json::array();
  for (const ClassError& e : eval.classes)
    classes.push_back({{"op_class", ir::op_class_name(e.op_class)},
                       {"unit", hw.units[static_cast<std::size_t>(e.unit)].name},
                       {"ops", e.ops},
                       {"median_abs_error", e.median_abs},
                       {"max_abs_error", e.max_abs}});
  nlohmann::json runs = nlohmann::json::array();
  for (const RunCheck& c : eval.runs)
    runs.push_back({{"graph", c.label},
                    {"predicted_makespan_s", c.predicted_makespan_s},
                    {"simulated_makespan_s", c.observed_makespan_s},
                    {"makespan_error", relative(c.predicted_makespan_s, c.observed_makespan_s)},
                    {"predicted_energy_j", c.predicted_energy_j},
                    {"simulated_energy_j", c.observed_energy_j}});
  return {{"op_classes", classes}, {"runs", runs}};
}

} // namespace

nlohmann::json report_json(const RetrainReport& report) {
  const ir::Hardware& hw = report.hardware;
  nlohmann::json rounds = nlohmann::json::array();
  for (const Round& r : report.rounds) {
    nlohmann::json entries = nlohmann::json::array();
    for (const EntryFit& e : r.entries) {
      nlohmann::json j = {{"model", hw.models[static_cast<std::size_t>(e.model)].name},
                          {"op_class", ir::op_class_name(e.op_class)},
                          {"status", entry_status_name(e.status)},
                          {"samples", e.samples},
                          {"contended_left_out", e.contended_left_out},
                          {"crowded", e.crowded}};
      if (e.status == EntryStatus::Fitted) {
        j["pieces"] = e.pieces;
        if (e.pieces == 2) {
          j["split_on"] = ir::feature_name(e.split_on);
          j["split"] = e.split;
        }
        j["r2_time"] = e.r2_time;
        j["r2_energy"] = e.r2_energy;
      }
      if (!e.note.empty()) j["note"] = e.note;
      entries.push_back(std::move(j));
    }
    nlohmann::json runs = nlohmann::json::array();
    for (const RunCheck& c : r.runs)
      runs.push_back({{"graph", c.label},
                      {"predicted_makespan_s", c.predicted_makespan_s},
                      {"simulated_makespan_s", c.observed_makespan_s}});
    rounds.push_back({{"round", r.round},
                      {"samples", r.samples},
                      {"fitted", r.fitted},
                      {"kept", r.kept},
                      {"ops_moved", r.ops_moved},
                      {"models_changed", r.models_changed},
                      {"runs", runs},
                      {"entries", entries}});
  }
  return {{"converged", report.converged},
          {"rounds", rounds},
          {"before", evaluation_json(report.before, hw)},
          {"after", evaluation_json(report.after, hw)}};
}

} // namespace lightsim::fit
