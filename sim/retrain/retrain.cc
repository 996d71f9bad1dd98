#include "sim/retrain/retrain.h"

#include "ir/cost/cost_model.h"
#include "ir/names.h"
#include "sim/retrain/nnls.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <utility>

namespace lightsim::fit {
namespace {

using ir::Feature;
using FeatureSet = ir::FitFeatures;

// What a form is fitted to: the op's time, or its energy in one component.
constexpr int kTime = -1;

double value_of(const Sample& s, int target) {
  return target == kTime ? s.time_s : s.energy.j[static_cast<std::size_t>(target)];
}

// Rows are weighted by 1 / y; zero observations (a free view) get the smallest positive y's weight.
double weight_floor(std::span<const Sample* const> rows, int target) {
  double floor = std::numeric_limits<double>::infinity();
  for (const Sample* s : rows)
    if (value_of(*s, target) > 0) floor = std::min(floor, value_of(*s, target));
  return std::isfinite(floor) ? floor : 1.0;
}

struct FormFit {
  ir::LinearForm form;
  double sse = 0; // weighted (relative) squared error
};

// Whether `f` takes more than one value over `rows`. One that does not is, over these rows, a multiple of the
// intercept: the samples cannot tell its coefficient from the fixed time (nor, when it is 0 throughout, say
// anything of it), and a coefficient fitted on it would scale with a quantity that never varied where it
// was fitted. Likewise a feature that is a fixed multiple of another over the rows (a fused tail that is
// always four times its anchor's cycles): the samples fix only their sum. Such a feature keeps the
// coefficient of the entry the fit starts from (`prior`: the config's formula, which the shipped configs
// write in their modules' own terms, or the previous round's fit; 0 without one), and the intercept or the
// other feature carries the rest, as the modules have it.
bool varies(std::span<const Sample* const> rows, Feature f) {
  const auto k = static_cast<std::size_t>(f);
  return std::any_of(rows.begin(), rows.end(),
                     [&](const Sample* s) { return s->features[k] != rows.front()->features[k]; });
}

// Whether `f` is a fixed multiple of `g` over `rows` (to 1e-9), `g` non-zero somewhere.
bool proportional(std::span<const Sample* const> rows, Feature f, Feature g) {
  const auto kf = static_cast<std::size_t>(f), kg = static_cast<std::size_t>(g);
  const auto pivot =
      std::find_if(rows.begin(), rows.end(), [&](const Sample* s) { return s->features[kg] != 0; });
  if (pivot == rows.end()) return false;
  const double ratio = (*pivot)->features[kf] / (*pivot)->features[kg];
  return std::all_of(rows.begin(), rows.end(), [&](const Sample* s) {
    return std::abs(s->features[kf] - ratio * s->features[kg]) <= 1e-9 * std::abs(s->features[kf]);
  });
}

// The prior's form of `target` for `rows`: that of the piece most of them take; nullptr without a prior.
const ir::LinearForm* prior_form(const ir::OpClassModel* prior, std::span<const Sample* const> rows,
                                 int target) {
  if (!prior || prior->pieces.empty() || rows.empty()) return nullptr;
  std::vector<std::size_t> votes(prior->pieces.size(), 0);
  for (const Sample* s : rows)
    ++votes[ir::piece_index(*prior, s->features)];
  const ir::ModelPiece& piece =
      prior->pieces[static_cast<std::size_t>(std::max_element(votes.begin(), votes.end()) - votes.begin())];
  return target == kTime ? &piece.time_s
                         : &std::as_const(piece.energy_j)[static_cast<ir::EnergyComponent>(target)];
}

FormFit fit_form(std::span<const Sample* const> rows, const std::vector<Feature>& all_features, int target,
                 const ir::OpClassModel* prior) {
  std::vector<Feature> features, held;
  for (Feature f : all_features) {
    const bool told = varies(rows, f) && std::none_of(features.begin(), features.end(),
                                                      [&](Feature g) { return proportional(rows, f, g); });
    (told ? features : held).push_back(f);
  }
  const ir::LinearForm* given = held.empty() ? nullptr : prior_form(prior, rows, target);
  const auto held_value = [&](const Sample& s) {
    double v = 0;
    if (given)
      for (Feature f : held)
        v += given->coef[static_cast<std::size_t>(f)] * s.features[static_cast<std::size_t>(f)];
    return v;
  };
  const auto n = static_cast<Eigen::Index>(rows.size());
  const auto cols = static_cast<Eigen::Index>(features.size()) + 1;
  const double floor = weight_floor(rows, target);
  Eigen::MatrixXd a(n, cols);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Sample& s = *rows[static_cast<std::size_t>(i)];
    const double y = value_of(s, target);
    const double w = 1.0 / std::max(std::abs(y), floor);
    for (std::size_t j = 0; j < features.size(); ++j)
      a(i, static_cast<Eigen::Index>(j)) = w * s.features[static_cast<std::size_t>(features[j])];
    a(i, cols - 1) = w;
    b(i) = w * (y - held_value(s));
  }
  const NnlsResult r = nnls(a, b);
  FormFit fit;
  for (std::size_t j = 0; j < features.size(); ++j)
    fit.form.coef[static_cast<std::size_t>(features[j])] = r.x(static_cast<Eigen::Index>(j));
  if (given)
    for (Feature f : held)
      fit.form.coef[static_cast<std::size_t>(f)] = given->coef[static_cast<std::size_t>(f)];
  fit.form.intercept = r.x(cols - 1);
  fit.sse = (a * r.x - b).squaredNorm();
  return fit;
}

// Whether some row spends energy in component c.
bool observes(std::span<const Sample* const> rows, ir::EnergyComponent c) {
  return std::any_of(rows.begin(), rows.end(), [c](const Sample* s) { return s->energy[c] != 0; });
}

// Time, and every energy component that some row observes (a component no row has stays zero).
ir::ModelPiece fit_piece(std::span<const Sample* const> rows, const FeatureSet& set,
                         const ir::OpClassModel* prior, double* time_sse) {
  ir::ModelPiece piece;
  FormFit t = fit_form(rows, set.time, kTime, prior);
  piece.time_s = t.form;
  for (ir::EnergyComponent c : ir::energy_components())
    if (observes(rows, c))
      piece.energy_j[c] = fit_form(rows, set.energy_terms(c), static_cast<int>(c), prior).form;
  if (time_sse) *time_sse = t.sse;
  return piece;
}

// Where a split on `f` puts its threshold, between the two samples that the split separates: any value
// there fits the samples alike. On the kind's roofline ratio (a CPU's compute_memory_ratio) it is 1 when 1
// lies there: the module's roofline turns where its compute meets its memory time (exactly at 1 for an
// anchor of one instruction per element, so that ops between the two samples go to the side the module
// puts them on); elsewhere the geometric mean of the two (the midpoint when the lower one is 0).
double threshold_between(const FeatureSet& set, Feature f, double lo, double hi) {
  if (set.roofline_ratio == f && lo < 1 && 1 <= hi) return 1;
  return lo > 0 ? std::sqrt(lo * hi) : 0.5 * (lo + hi);
}

struct Split {
  Feature feature = Feature::ComputeCyclesPerByte;
  std::size_t index = 0; // rows [0, index) and [index, n) once sorted by `feature`; 0: no split
  double sse = 0;
};

void sort_by(std::vector<const Sample*>& rows, Feature f) {
  const auto k = static_cast<std::size_t>(f);
  std::stable_sort(rows.begin(), rows.end(),
                   [k](const Sample* a, const Sample* b) { return a->features[k] < b->features[k]; });
}

// Best split of `rows` (sorted by `f`) into [0, i) and [i, n) whose error beats `best.sse`.
void best_split_on(Feature f, std::span<const Sample* const> rows, const FeatureSet& set,
                   const ir::OpClassModel* prior, std::size_t min_piece, const FitOptions& options,
                   Split& best) {
  const auto k = static_cast<std::size_t>(f);
  std::vector<std::size_t> candidates;
  for (std::size_t i = std::max<std::size_t>(min_piece, 1); i + min_piece <= rows.size(); ++i)
    if (rows[i - 1]->features[k] < rows[i]->features[k]) candidates.push_back(i);
  if (candidates.size() > options.max_split_candidates) {
    std::vector<std::size_t> thinned;
    for (std::size_t c = 0; c < options.max_split_candidates; ++c)
      thinned.push_back(candidates[c * candidates.size() / options.max_split_candidates]);
    candidates = std::move(thinned);
  }
  // Errors below rounding (rms relative error 1e-6) are all exact: the first exact split found wins, so
  // that the split_on order, not rounding noise, decides between two exact ones.
  const double exact = 1e-12 * static_cast<double>(rows.size());
  for (std::size_t i : candidates) {
    const double lo = fit_form(rows.first(i), set.time, kTime, prior).sse;
    const double hi = fit_form(rows.subspan(i), set.time, kTime, prior).sse;
    if (std::max(lo + hi, exact) < best.sse) best = {f, i, std::max(lo + hi, exact)};
  }
}

double r2_of(const ir::OpClassModel& entry, std::span<const Sample* const> rows, const ir::Hardware& hw,
             bool energy) {
  std::vector<double> y, p;
  for (const Sample* s : rows) {
    const ir::Cost c = ir::evaluate(entry, s->shape, hw.units[static_cast<std::size_t>(s->unit)]);
    y.push_back(energy ? s->energy_j : s->time_s);
    p.push_back(energy ? c.energy_j : c.time_s);
  }
  return relative_r2(y, p);
}

ir::FitInfo fit_info(std::span<const Sample* const> rows, const FeatureSet& set, double r2) {
  ir::FitInfo info;
  info.samples = rows.size();
  info.r2 = r2;
  std::vector<Feature> used = set.time;
  for (ir::EnergyComponent c : ir::energy_components())
    if (observes(rows, c)) {
      const std::vector<Feature>& terms = set.energy_terms(c);
      used.insert(used.end(), terms.begin(), terms.end());
    }
  used.insert(used.end(), set.split_on.begin(), set.split_on.end());
  for (Feature f : used) {
    const auto k = static_cast<std::size_t>(f);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Sample* s : rows) {
      lo = std::min(lo, s->features[k]);
      hi = std::max(hi, s->features[k]);
    }
    info.feature_min[k] = lo;
    info.feature_max[k] = hi;
  }
  return info;
}

std::size_t distinct_shapes(const std::vector<const Sample*>& rows, const FeatureSet& set) {
  std::vector<std::vector<double>> keys;
  for (const Sample* s : rows) {
    std::vector<double> k;
    for (Feature f : set.time)
      k.push_back(s->features[static_cast<std::size_t>(f)]);
    keys.push_back(std::move(k));
  }
  std::sort(keys.begin(), keys.end());
  return static_cast<std::size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

EntryFit fit_entry(ir::OpClassModel& entry, std::vector<const Sample*>& rows, const FeatureSet& set,
                   const ir::Hardware& hw, const FitOptions& options) {
  EntryFit out;
  out.samples = rows.size();
  out.crowded = static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const Sample* s) { return s->crowded; }));
  const std::size_t needed = std::max(options.min_samples, set.time.size() + 2);
  std::vector<const Sample*> alone_rows;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(alone_rows),
               [](const Sample* s) { return !s->contended && !s->spilled; });
  const std::size_t alone = alone_rows.size();
  // Uncontended samples replace all only when they are enough and span enough distinct shapes.
  if (alone >= needed && alone < rows.size() && distinct_shapes(alone_rows, set) > set.time.size() + 1) {
    out.contended_left_out = rows.size() - alone;
    std::erase_if(rows, [](const Sample* s) { return s->contended || s->spilled; });
  }
  if (rows.size() < needed) {
    out.status = EntryStatus::TooFewSamples;
    out.note = "kept the old coefficients: " + std::to_string(rows.size()) + " samples, need " +
               std::to_string(needed);
    return out;
  }
  double single_sse = 0;
  // What the entry says before this fit: where the samples cannot inform a coefficient, it stands.
  const ir::OpClassModel prior = entry;
  ir::ModelPiece single = fit_piece(rows, set, &prior, &single_sse);
  ir::OpClassModel fitted;
  const std::size_t min_piece = std::max(options.min_samples / 2, set.time.size() + 2);
  Split split{Feature::ComputeCyclesPerByte, 0, single_sse * (1.0 - options.split_min_gain)};
  // A split is only worth searching when one straight line leaves a visible error (rms > 0.01%).
  if (single_sse > 1e-8 * static_cast<double>(rows.size())) {
    for (Feature f : set.split_on) {
      sort_by(rows, f);
      best_split_on(f, rows, set, &prior, min_piece, options, split);
    }
  }
  if (split.index > 0) {
    sort_by(rows, split.feature);
    const auto k = static_cast<std::size_t>(split.feature);
    const std::span<const Sample* const> all(rows);
    ir::ModelPiece below = fit_piece(all.first(split.index), set, &prior, nullptr);
    below.when = split.feature;
    below.when_max = threshold_between(set, split.feature, rows[split.index - 1]->features[k],
                                       rows[split.index]->features[k]);
    out.split_on = split.feature;
    out.split = below.when_max;
    fitted.pieces.push_back(below);
    fitted.pieces.push_back(fit_piece(all.subspan(split.index), set, &prior, nullptr));
  }
  if (split.index == 0) fitted.pieces.push_back(single);
  out.status = EntryStatus::Fitted;
  out.pieces = fitted.pieces.size();
  out.r2_time = r2_of(fitted, rows, hw, false);
  out.r2_energy = r2_of(fitted, rows, hw, true);
  fitted.fit = fit_info(rows, set, out.r2_time);
  entry = std::move(fitted);
  return out;
}

} // namespace

Sample make_sample(const ir::Hardware& hw, const ir::Op& op, ir::OpId id, int unit, double time_s,
                   const ir::EnergyBreakdown& energy, std::uint32_t source) {
  Sample s;
  s.op_class = op.op_class;
  s.unit = unit;
  s.shape = op.features;
  s.features = ir::feature_values(op.features, hw.units[static_cast<std::size_t>(unit)]);
  s.time_s = time_s;
  s.energy = energy;
  s.energy_j = energy.total();
  s.source = source;
  s.op = id;
  return s;
}

std::vector<bool> contended_ops(const ir::Graph& graph, const sched::FlatGraph& flat,
                                const sched::Schedule& observed) {
  // An op is contended when another op on its unit ran during part of it (sweep per unit by start time).
  std::vector<bool> contended(graph.ops.size(), false);
  std::vector<std::vector<ir::OpId>> by_unit;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (graph.ops[i].op_class == ir::OpClass::Input) continue;
    const auto unit = static_cast<std::size_t>(flat.unit_of(static_cast<ir::OpId>(i)));
    if (by_unit.size() <= unit) by_unit.resize(unit + 1);
    by_unit[unit].push_back(static_cast<ir::OpId>(i));
  }
  for (std::vector<ir::OpId>& ops : by_unit) {
    std::stable_sort(ops.begin(), ops.end(), [&](ir::OpId a, ir::OpId b) {
      return observed.ops[a].start_s < observed.ops[b].start_s;
    });
    double latest_end = -1;
    ir::OpId latest = -1;
    for (ir::OpId op : ops) {
      const sched::ScheduledOp& o = observed.ops[op];
      if (latest >= 0 && latest_end > o.start_s && o.end_s > o.start_s) {
        contended[op] = true;
        contended[latest] = true;
      }
      if (o.end_s > latest_end) {
        latest_end = o.end_s;
        latest = op;
      }
    }
  }
  return contended;
}

bool crowded_out(const ir::Hardware& hw, const ir::Op& op, int unit, const sched::ScheduledOp& observed) {
  const ir::Unit& u = hw.units[static_cast<std::size_t>(unit)];
  const ir::Memory& memory = hw.memories[static_cast<std::size_t>(u.memory)];
  return observed.spilled_bytes > 0 &&
         ir::feature_value(ir::Feature::OperandBytes, op.features, u) <= memory.capacity_bytes;
}

bool gives_sample(const ir::Op& op) { // a collective is costed on the links, not by a model entry
  return op.op_class != ir::OpClass::Input && !ir::is_collective(op.op_class);
}

CollectStats collect_samples(const ir::Graph& graph, const ir::Hardware& hw, const sched::FlatGraph& flat,
                             const sched::Schedule& observed, std::uint32_t source,
                             std::vector<Sample>& out) {
  CollectStats stats;
  const std::vector<bool> contended = contended_ops(graph, flat, observed);
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const ir::Op& op = graph.ops[i];
    if (!gives_sample(op)) continue;
    stats.fused += !op.features.fused_tail.empty() || op.fused.has_value();
    const auto id = static_cast<ir::OpId>(i);
    const sched::ScheduledOp& o = observed.ops[i];
    ir::EnergyBreakdown energy;
    if (observed.op_energy.empty())
      energy[ir::EnergyComponent::Compute] = o.energy_j;
    else
      energy = observed.op_energy[i];
    const int unit = flat.unit_of(id);
    out.push_back(make_sample(hw, op, id, unit, o.end_s - o.start_s, energy, source));
    out.back().contended = contended[i];
    out.back().crowded = crowded_out(hw, op, unit, o);
    // Energy in another memory than the unit's own: operands that spilled there.
    const int home = hw.units.at(static_cast<std::size_t>(flat.unit_of(id))).memory;
    const ir::EnergyComponent own = ir::memory_component(hw.memories.at(static_cast<std::size_t>(home)).kind);
    for (const ir::Memory& m : hw.memories)
      if (ir::memory_component(m.kind) != own && energy[ir::memory_component(m.kind)] > 0)
        out.back().spilled = true;
    ++stats.samples;
  }
  return stats;
}

std::string_view entry_status_name(EntryStatus s) {
  static constexpr ir::NameTable kNames{
      std::array{std::pair{EntryStatus::Fitted, std::string_view("fitted")},
                 std::pair{EntryStatus::TooFewSamples, std::string_view("too few samples")},
                 std::pair{EntryStatus::NotFitted, std::string_view("not fitted")}}};
  return kNames.name(s);
}

FitResult fit_models(const ir::Hardware& hw, std::span<const Sample> samples, const FitOptions& options) {
  FitResult result;
  result.hardware = hw;
  std::map<std::pair<int, int>, std::vector<const Sample*>> groups; // (model, class), samples in order
  for (const Sample& s : samples) {
    const int model = hw.units.at(static_cast<std::size_t>(s.unit)).model;
    groups[{model, static_cast<int>(s.op_class)}].push_back(&s);
  }
  for (auto& [key, rows] : groups) {
    const auto op_class = static_cast<ir::OpClass>(key.second);
    ir::ArithmeticModel& model = result.hardware.models[static_cast<std::size_t>(key.first)];
    ir::OpClassModel& entry = model.classes[static_cast<std::size_t>(key.second)];
    // Samples of one model may come from several units; the features are unit-aware, the kind is shared.
    const ir::UnitKind& kind = *hw.units[static_cast<std::size_t>(rows.front()->unit)].kind;
    EntryFit fit;
    if (op_class == ir::OpClass::Input) {
      fit.samples = rows.size();
      fit.note = "inputs are resident, not timed";
    } else {
      fit = fit_entry(entry, rows, kind.fit_features(op_class), hw, options);
    }
    fit.model = key.first;
    fit.op_class = op_class;
    result.entries.push_back(std::move(fit));
  }
  return result;
}

double relative_r2(std::span<const double> observed, std::span<const double> predicted) {
  double floor = std::numeric_limits<double>::infinity();
  for (double y : observed)
    if (y > 0) floor = std::min(floor, y);
  if (!std::isfinite(floor)) floor = 1;
  double wsum = 0, wy = 0;
  for (double y : observed) {
    const double w = 1.0 / std::max(std::abs(y), floor);
    wsum += w * w;
    wy += w * w * y;
  }
  const double mean = wsum > 0 ? wy / wsum : 0;
  double res = 0, tot = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double w = 1.0 / std::max(std::abs(observed[i]), floor);
    res += w * w * (observed[i] - predicted[i]) * (observed[i] - predicted[i]);
    tot += w * w * (observed[i] - mean) * (observed[i] - mean);
  }
  if (tot <= 0) return res <= 1e-24 ? 1.0 : 0.0;
  return 1.0 - res / tot;
}

} // namespace lightsim::fit
