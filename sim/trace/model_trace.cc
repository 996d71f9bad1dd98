#include "sim/trace/model_trace.h"

#include "sim/trace/h5_table.h"

#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace lightsim::sim {
namespace {
using fit::ClassError;
using fit::ClassErrorPair;
using fit::EntryFit;
using fit::RetrainReport;
using fit::RunCheck;
using h5::Column;
using h5::ColumnType;
using h5::RowCursor;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// String columns as wide as the longest value of `values`.
template <class Values> Column string_column(std::string name, const Values& values) {
  return {std::move(name), ColumnType::String,
          h5::string_width(values.size(), [&](std::size_t i) -> std::string_view { return values[i]; })};
}

void write_rounds(const H5::Group& model, const RetrainReport& report, const h5::IoStatus* io) {
  h5::Table table(model, "rounds",
                  {{"round", ColumnType::I32},
                   {"samples", ColumnType::U64},
                   {"fitted", ColumnType::U64},
                   {"kept", ColumnType::U64},
                   {"ops_moved", ColumnType::U64},
                   {"models_changed", ColumnType::U8}},
                  report.rounds.size(), io);
  table.write([&](std::size_t r, RowCursor& row) {
    const fit::Round& round = report.rounds[r];
    row.i32(round.round);
    row.u64(round.samples);
    row.u64(round.fitted);
    row.u64(round.kept);
    row.u64(round.ops_moved);
    row.u8(round.models_changed ? 1 : 0);
  });
}

// One row per (round, op class, unit): the fit of the unit's model entry for that class in that round
// (none when the pool had no sample of it) and the error of the model before and after that round's fit.
struct EntryRow {
  int round = 0;
  ir::OpClass op_class = ir::OpClass::Input;
  int unit = -1;
  const EntryFit* fit = nullptr;
  const ClassError *before = nullptr, *after = nullptr;
};

std::vector<EntryRow> entry_rows(const RetrainReport& report) {
  const ir::Hardware& hw = report.hardware;
  std::vector<EntryRow> rows;
  for (std::size_t r = 0; r < report.rounds.size(); ++r) {
    const fit::Round& round = report.rounds[r];
    std::map<std::pair<int, int>, EntryRow> by_key; // (class, unit)
    for (const ClassErrorPair& p :
         fit::join_class_errors(round.classes, fit::errors_after_round(report, r))) {
      EntryRow& row = by_key[{static_cast<int>(p.op_class), p.unit}];
      row.before = p.before;
      row.after = p.after;
    }
    for (const EntryFit& e : round.entries)
      for (std::size_t u = 0; u < hw.units.size(); ++u)
        if (hw.units[u].model == e.model) {
          // Units of the model without an op of the class in either evaluation get no row.
          const auto it = by_key.find({static_cast<int>(e.op_class), static_cast<int>(u)});
          if (it != by_key.end()) it->second.fit = &e;
        }
    for (auto& [key, row] : by_key) {
      row.round = round.round;
      row.op_class = static_cast<ir::OpClass>(key.first);
      row.unit = key.second;
      rows.push_back(row);
    }
  }
  return rows;
}

void write_entries(const H5::Group& model, const RetrainReport& report, const h5::IoStatus* io) {
  const ir::Hardware& hw = report.hardware;
  const std::vector<EntryRow> rows = entry_rows(report);
  std::vector<std::string_view> classes, units, models, statuses, split_features;
  for (const EntryRow& r : rows) {
    const bool split = r.fit && r.fit->status == fit::EntryStatus::Fitted && r.fit->pieces == 2;
    split_features.push_back(split ? ir::feature_name(r.fit->split_on) : std::string_view());
    classes.push_back(ir::op_class_name(r.op_class));
    units.push_back(hw.unit_name(r.unit));
    models.push_back(hw.model_of(r.unit).name);
    statuses.push_back(r.fit ? fit::entry_status_name(r.fit->status) : std::string_view("no samples"));
  }
  h5::Table table(model, "entries",
                  {{"round", ColumnType::I32},
                   string_column("op_class", classes),
                   string_column("unit", units),
                   string_column("model", models),
                   string_column("status", statuses),
                   {"kept_old", ColumnType::U8},
                   {"samples", ColumnType::U64},
                   {"contended_left_out", ColumnType::U64},
                   {"pieces", ColumnType::U64},
                   string_column("split_on", split_features),
                   {"split", ColumnType::F64},
                   {"r2_time", ColumnType::F64},
                   {"r2_energy", ColumnType::F64},
                   {"ops_before", ColumnType::U64},
                   {"median_abs_error_before", ColumnType::F64},
                   {"ops_after", ColumnType::U64},
                   {"median_abs_error_after", ColumnType::F64}},
                  rows.size(), io);
  table.write([&](std::size_t i, RowCursor& row) {
    const EntryRow& r = rows[i];
    const bool fitted = r.fit && r.fit->status == fit::EntryStatus::Fitted;
    row.i32(r.round);
    row.str(classes[i]);
    row.str(units[i]);
    row.str(models[i]);
    row.str(statuses[i]);
    row.u8(fitted ? 0 : 1);
    row.u64(r.fit ? r.fit->samples : 0);
    row.u64(r.fit ? r.fit->contended_left_out : 0);
    row.u64(fitted ? r.fit->pieces : 0);
    row.str(split_features[i]);
    row.f64(fitted && r.fit->pieces == 2 ? r.fit->split : kNaN);
    row.f64(fitted ? r.fit->r2_time : kNaN);
    row.f64(fitted ? r.fit->r2_energy : kNaN);
    row.u64(r.before ? r.before->ops : 0);
    row.f64(r.before ? r.before->median_abs : kNaN);
    row.u64(r.after ? r.after->ops : 0);
    row.f64(r.after ? r.after->median_abs : kNaN);
  });
}

// The report's before/after table (fit::print_report prints the same rows).
void write_classes(const H5::Group& model, const RetrainReport& report, const h5::IoStatus* io) {
  const std::vector<ClassErrorPair> rows =
      fit::join_class_errors(report.before.classes, report.after.classes);
  std::vector<std::string_view> classes, units;
  for (const ClassErrorPair& r : rows) {
    classes.push_back(ir::op_class_name(r.op_class));
    units.push_back(report.hardware.unit_name(r.unit));
  }
  std::vector<Column> cols = {string_column("op_class", classes), string_column("unit", units)};
  for (const char* when : {"_before", "_after"}) {
    cols.push_back({std::string("ops") + when, ColumnType::U64});
    cols.push_back({std::string("contended") + when, ColumnType::U64});
    for (const char* field : {"median_abs_error", "max_abs_error", "median_abs_error_alone"})
      cols.push_back({field + std::string(when), ColumnType::F64});
  }
  h5::Table table(model, "classes", std::move(cols), rows.size(), io);
  table.write([&](std::size_t i, RowCursor& row) {
    row.str(classes[i]);
    row.str(units[i]);
    for (const ClassError* e : {rows[i].before, rows[i].after}) {
      row.u64(e ? e->ops : 0);
      row.u64(e ? e->contended : 0);
      row.f64(e ? e->median_abs : kNaN);
      row.f64(e ? e->max_abs : kNaN);
      row.f64(e ? e->median_abs_alone : kNaN);
    }
  });
}

std::vector<std::string_view> labels(std::span<const fit::RetrainInput> inputs) {
  std::vector<std::string_view> out;
  for (const fit::RetrainInput& in : inputs)
    out.push_back(in.label);
  return out;
}

// End to end per graph: the model before retraining and after, each against its own replay.
void write_makespan(const H5::Group& model, const RetrainReport& report,
                    std::span<const fit::RetrainInput> inputs, const h5::IoStatus* io) {
  const std::vector<std::string_view> graphs = labels(inputs);
  std::vector<Column> cols = {string_column("graph", graphs)};
  for (const char* when : {"_before", "_after"})
    for (const char* field :
         {"predicted_makespan_s", "simulated_makespan_s", "predicted_energy_j", "simulated_energy_j"})
      cols.push_back({field + std::string(when), ColumnType::F64});
  h5::Table table(model, "makespan", std::move(cols), graphs.size(), io);
  table.write([&](std::size_t g, RowCursor& row) {
    row.str(graphs[g]);
    for (const RunCheck* c : {&report.before.runs[g], &report.after.runs[g]}) {
      row.f64(c->predicted_makespan_s);
      row.f64(c->observed_makespan_s);
      row.f64(c->predicted_energy_j);
      row.f64(c->observed_energy_j);
    }
  });
}

// Per round and graph: the plan of that round and its replay.
void write_round_runs(const H5::Group& model, const RetrainReport& report,
                      std::span<const fit::RetrainInput> inputs, const h5::IoStatus* io) {
  const std::vector<std::string_view> graphs = labels(inputs);
  const std::size_t n = graphs.size();
  h5::Table table(model, "round_runs",
                  {{"round", ColumnType::I32},
                   string_column("graph", graphs),
                   {"predicted_makespan_s", ColumnType::F64},
                   {"simulated_makespan_s", ColumnType::F64}},
                  report.rounds.size() * n, io);
  table.write([&](std::size_t i, RowCursor& row) {
    const fit::Round& round = report.rounds[i / n];
    const RunCheck& c = round.runs[i % n];
    row.i32(round.round);
    row.str(graphs[i % n]);
    row.f64(c.predicted_makespan_s);
    row.f64(c.observed_makespan_s);
  });
}

// Per (graph, compute op): predicted and simulated time before and after retraining.
void write_ops(const H5::Group& model, const RetrainReport& report, std::span<const fit::RetrainInput> inputs,
               const h5::IoStatus* io) {
  const ir::Hardware& hw = report.hardware;
  struct Key {
    std::size_t graph, op;
  };
  std::vector<Key> rows;
  for (std::size_t g = 0; g < inputs.size(); ++g)
    for (std::size_t i = 0; i < inputs[g].graph.ops.size(); ++i)
      if (inputs[g].graph.ops[i].op_class != ir::OpClass::Input) rows.push_back({g, i});
  const std::vector<std::string_view> graphs = labels(inputs);
  std::vector<std::string_view> classes, units_before, units_after;
  for (const Key& k : rows) {
    classes.push_back(ir::op_class_name(inputs[k.graph].graph.ops[k.op].op_class));
    units_before.push_back(hw.unit_name(report.before.runs[k.graph].placement[k.op]));
    units_after.push_back(hw.unit_name(report.after.runs[k.graph].placement[k.op]));
  }
  h5::Table table(model, "ops",
                  {string_column("graph", graphs),
                   {"op", ColumnType::I32},
                   string_column("op_class", classes),
                   string_column("unit_before", units_before),
                   {"predicted_before_s", ColumnType::F64},
                   {"simulated_before_s", ColumnType::F64},
                   string_column("unit_after", units_after),
                   {"predicted_after_s", ColumnType::F64},
                   {"simulated_after_s", ColumnType::F64}},
                  rows.size(), io);
  table.write([&](std::size_t r, RowCursor& row) {
    const Key& k = rows[r];
    const RunCheck& before = report.before.runs[k.graph];
    const RunCheck& after = report.after.runs[k.graph];
    row.str(graphs[k.graph]);
    row.i32(static_cast<std::int32_t>(k.op));
    row.str(classes[r]);
    row.str(units_before[r]);
    row.f64(before.predicted_op_s[k.op]);
    row.f64(before.observed_op_s[k.op]);
    row.str(units_after[r]);
    row.f64(after.predicted_op_s[k.op]);
    row.f64(after.observed_op_s[k.op]);
  });
}

void require_consistent(const RetrainReport& report, std::span<const fit::RetrainInput> inputs) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("write_model_group: " + what); };
  if (report.before.runs.size() != inputs.size() || report.after.runs.size() != inputs.size())
    fail("the report's runs do not match the " + std::to_string(inputs.size()) + " inputs");
  for (const fit::Round& r : report.rounds)
    if (r.runs.size() != inputs.size()) fail("round " + std::to_string(r.round) + " has other runs");
  for (std::size_t g = 0; g < inputs.size(); ++g) {
    const std::size_t n = inputs[g].graph.ops.size();
    for (const RunCheck* c : {&report.before.runs[g], &report.after.runs[g]})
      if (c->placement.size() != n || c->predicted_op_s.size() != n || c->observed_op_s.size() != n)
        fail("run " + std::to_string(g) + " does not have one entry per op of its graph");
  }
}

} // namespace

void write_model_group(const H5::Group& model, const RetrainReport& report,
                       std::span<const fit::RetrainInput> inputs, const h5::IoStatus* io) {
  require_consistent(report, inputs);
  h5::set_attribute(model, "converged", static_cast<std::int64_t>(report.converged));
  h5::set_attribute(model, "rounds", static_cast<std::int64_t>(report.rounds.size()));
  h5::set_attribute(model, "graphs", static_cast<std::int64_t>(inputs.size()));
  h5::set_attribute(model, "error_unit", std::string("fraction"));
  write_rounds(model, report, io);
  write_entries(model, report, io);
  write_classes(model, report, io);
  write_makespan(model, report, inputs, io);
  write_round_runs(model, report, inputs, io);
  write_ops(model, report, inputs, io);
}

} // namespace lightsim::sim
