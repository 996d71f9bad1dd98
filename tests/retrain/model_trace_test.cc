// The retrain report in the trace's /model group (sim/trace/model_trace.h), written by `lightsim --retrain
// --trace` (run_retrain): read back with HDF5's C++ API, every table has the report's row count and
// values; the per-op table reproduces the report's per-class medians; a bad trace path fails before the
// retrain and leaves no file.
#include "ir/error.h"
#include "sim/cli/retrain_command.h"
#include "tests/sim/h5_read.h"
#include "tests/test_support.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace lightsim::sim {
namespace {
namespace fs = std::filesystem;
using namespace test::h5read;

struct RetrainRun {
  fit::RetrainReport report;
  std::string trace, config;
  std::vector<std::string> labels;
  std::vector<ir::Graph> graphs;
};

// Retrains on the two example graphs (the transformer block leaves some entries with too few samples).
RetrainRun retrain_with_trace(int rounds) {
  RetrainRun run;
  const std::string dir = test::temp_dir();
  PipelineOptions pipeline;
  pipeline.hardware_path = test::source_path("configs/photonic.json");
  pipeline.graph_path = test::source_path("tests/data/transformer_block.json");
  pipeline.fuse =
      ir::fusion::FuseMode::None; // every op of the small graphs a sample (the layout is the subject)
  RetrainCommand command;
  command.output = dir + "/retrained.json";
  command.graphs = {test::source_path("tests/data/mlp2.json")};
  command.rounds = rounds;
  command.trace_path = dir + "/retrain.h5";
  std::ostringstream out;
  run.report = run_retrain(pipeline, command, out);
  run.trace = command.trace_path;
  run.config = command.output;
  run.labels = {pipeline.graph_path, command.graphs[0]};
  for (const std::string& path : run.labels)
    run.graphs.push_back(ir::import_tvm_graph_file(path).graph);
  return run;
}

std::string unit_name(const fit::RetrainReport& r, int unit) {
  return r.hardware.units[static_cast<std::size_t>(unit)].name;
}

// NaN-aware equality of doubles copied from the report.
void expect_same(double from_trace, double from_report, const std::string& what) {
  if (std::isnan(from_report))
    EXPECT_TRUE(std::isnan(from_trace)) << what;
  else
    EXPECT_EQ(from_trace, from_report) << what;
}

TEST(ModelTrace, TablesHaveTheReportsRowsAndValues) {
  const RetrainRun run = retrain_with_trace(3);
  const fit::RetrainReport& r = run.report;
  ASSERT_TRUE(fs::exists(run.trace));
  for (const auto& entry : fs::directory_iterator(fs::path(run.trace).parent_path()))
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  H5::H5File file(run.trace, H5F_ACC_RDONLY);
  const H5::Group model = file.openGroup("model");
  EXPECT_EQ(int_attr(model, "converged"), r.converged ? 1 : 0);
  EXPECT_EQ(int_attr(model, "rounds"), static_cast<std::int64_t>(r.rounds.size()));
  EXPECT_EQ(int_attr(model, "graphs"), 2);
  EXPECT_EQ(string_attr(model, "error_unit"), "fraction");

  // /model/rounds
  const auto round_samples = column<std::uint64_t>(file, "model/rounds", "samples");
  const auto round_changed = column<std::uint8_t>(file, "model/rounds", "models_changed");
  ASSERT_EQ(round_samples.size(), r.rounds.size());
  for (std::size_t i = 0; i < r.rounds.size(); ++i) {
    EXPECT_EQ(round_samples[i], r.rounds[i].samples);
    EXPECT_EQ(round_changed[i], r.rounds[i].models_changed ? 1 : 0);
  }

  // /model/classes: the printed before/after table.
  const auto joined = fit::join_class_errors(r.before.classes, r.after.classes);
  const auto c_class = strings(file, "model/classes", "op_class");
  const auto c_unit = strings(file, "model/classes", "unit");
  const auto c_ops_before = column<std::uint64_t>(file, "model/classes", "ops_before");
  const auto c_med_before = column<double>(file, "model/classes", "median_abs_error_before");
  const auto c_med_after = column<double>(file, "model/classes", "median_abs_error_after");
  const auto c_max_after = column<double>(file, "model/classes", "max_abs_error_after");
  ASSERT_EQ(c_class.size(), joined.size());
  ASSERT_FALSE(joined.empty());
  for (std::size_t i = 0; i < joined.size(); ++i) {
    EXPECT_EQ(c_class[i], ir::op_class_name(joined[i].op_class));
    EXPECT_EQ(c_unit[i], unit_name(r, joined[i].unit));
    EXPECT_EQ(c_ops_before[i], joined[i].before ? joined[i].before->ops : 0);
    expect_same(c_med_before[i], joined[i].before ? joined[i].before->median_abs : NAN, c_class[i]);
    expect_same(c_med_after[i], joined[i].after ? joined[i].after->median_abs : NAN, c_class[i]);
    expect_same(c_max_after[i], joined[i].after ? joined[i].after->max_abs : NAN, c_class[i]);
  }

  // /model/entries: per round, the (class, unit) rows of that round's errors, with the fit of the entry.
  std::size_t expected_entries = 0;
  for (std::size_t i = 0; i < r.rounds.size(); ++i)
    expected_entries += fit::join_class_errors(r.rounds[i].classes, fit::errors_after_round(r, i)).size();
  const auto e_round = column<std::int32_t>(file, "model/entries", "round");
  const auto e_class = strings(file, "model/entries", "op_class");
  const auto e_unit = strings(file, "model/entries", "unit");
  const auto e_kept = column<std::uint8_t>(file, "model/entries", "kept_old");
  const auto e_status = strings(file, "model/entries", "status");
  const auto e_samples = column<std::uint64_t>(file, "model/entries", "samples");
  const auto e_r2 = column<double>(file, "model/entries", "r2_time");
  const auto e_pieces = column<std::uint64_t>(file, "model/entries", "pieces");
  const auto e_split_on = strings(file, "model/entries", "split_on");
  const auto e_before = column<double>(file, "model/entries", "median_abs_error_before");
  const auto e_after = column<double>(file, "model/entries", "median_abs_error_after");
  ASSERT_EQ(e_round.size(), expected_entries);
  std::size_t kept = 0, fitted = 0;
  for (std::size_t i = 0; i < e_round.size(); ++i) {
    const auto round = static_cast<std::size_t>(e_round[i]);
    ASSERT_LT(round, r.rounds.size());
    auto find_error = [&](const std::vector<fit::ClassError>& list) -> const fit::ClassError* {
      for (const fit::ClassError& e : list)
        if (ir::op_class_name(e.op_class) == e_class[i] && unit_name(r, e.unit) == e_unit[i]) return &e;
      return nullptr;
    };
    const fit::ClassError* before = find_error(r.rounds[round].classes);
    const fit::ClassError* after = find_error(fit::errors_after_round(r, round));
    ASSERT_TRUE(before || after) << e_class[i] << " on " << e_unit[i];
    expect_same(e_before[i], before ? before->median_abs : NAN, e_class[i]);
    expect_same(e_after[i], after ? after->median_abs : NAN, e_class[i]);
    const fit::EntryFit* entry = nullptr;
    for (const fit::EntryFit& e : r.rounds[round].entries) {
      const int unit = before ? before->unit : after->unit;
      if (ir::op_class_name(e.op_class) == e_class[i] && e.model == r.hardware.units[unit].model) entry = &e;
    }
    if (!entry) {
      EXPECT_EQ(e_status[i], "no samples");
      EXPECT_EQ(e_kept[i], 1);
      continue;
    }
    EXPECT_EQ(e_status[i], fit::entry_status_name(entry->status));
    EXPECT_EQ(e_samples[i], entry->samples);
    EXPECT_EQ(e_kept[i], entry->status == fit::EntryStatus::Fitted ? 0 : 1);
    if (entry->status == fit::EntryStatus::Fitted) {
      ++fitted;
      EXPECT_EQ(e_r2[i], entry->r2_time);
      EXPECT_EQ(e_pieces[i], entry->pieces);
      EXPECT_EQ(e_split_on[i], entry->pieces == 2 ? ir::feature_name(entry->split_on) : "");
    } else {
      ++kept;
      EXPECT_TRUE(std::isnan(e_r2[i]));
    }
  }
  EXPECT_GT(fitted, 0u);
  EXPECT_GT(kept, 0u) << "the small example graphs leave some entries with too few samples";

  // /model/makespan: before and after per graph.
  const auto m_graph = strings(file, "model/makespan", "graph");
  const auto m_pred_before = column<double>(file, "model/makespan", "predicted_makespan_s_before");
  const auto m_sim_after = column<double>(file, "model/makespan", "simulated_makespan_s_after");
  ASSERT_EQ(m_graph.size(), 2u);
  for (std::size_t g = 0; g < 2; ++g) {
    EXPECT_EQ(m_graph[g], run.labels[g]);
    EXPECT_EQ(m_pred_before[g], r.before.runs[g].predicted_makespan_s);
    EXPECT_EQ(m_sim_after[g], r.after.runs[g].observed_makespan_s);
  }
  EXPECT_EQ(column<double>(file, "model/round_runs", "simulated_makespan_s").size(), 2 * r.rounds.size());

  // /model/ops: every compute op of both graphs, with the report's per-op times.
  std::vector<std::pair<std::size_t, std::size_t>> compute;
  for (std::size_t g = 0; g < 2; ++g)
    for (std::size_t i = 0; i < run.graphs[g].ops.size(); ++i)
      if (run.graphs[g].ops[i].op_class != ir::OpClass::Input) compute.emplace_back(g, i);
  const auto o_op = column<std::int32_t>(file, "model/ops", "op");
  const auto o_pred_before = column<double>(file, "model/ops", "predicted_before_s");
  const auto o_sim_after = column<double>(file, "model/ops", "simulated_after_s");
  ASSERT_EQ(o_op.size(), compute.size());
  for (std::size_t k = 0; k < compute.size(); ++k) {
    const auto [g, i] = compute[k];
    EXPECT_EQ(static_cast<std::size_t>(o_op[k]), i);
    EXPECT_EQ(o_pred_before[k], r.before.runs[g].predicted_op_s[i]);
    EXPECT_EQ(o_sim_after[k], r.after.runs[g].observed_op_s[i]);
  }

  // The trace's own tables are the first graph under the retrained config.
  EXPECT_EQ(column<std::int32_t>(file, "ops", "op").size(), run.graphs[0].ops.size());
  EXPECT_EQ(string_attr(file.openGroup("meta"), "hardware_config"), ir::hardware_to_json(r.hardware).dump());
}

// A plot drawn from /model/ops alone shows the report's numbers: the median |relative error| per
// (op class, unit) of the per-op rows equals /model/classes (computed by the loop, not here).
TEST(ModelTrace, PerOpRowsReproduceThePerClassMedians) {
  const RetrainRun run = retrain_with_trace(2);
  H5::H5File file(run.trace, H5F_ACC_RDONLY);
  for (const char* when : {"before", "after"}) {
    const std::string w(when);
    const auto cls = strings(file, "model/ops", "op_class");
    const auto unit = strings(file, "model/ops", "unit_" + w);
    const auto pred = column<double>(file, "model/ops", "predicted_" + w + "_s");
    const auto sim = column<double>(file, "model/ops", "simulated_" + w + "_s");
    std::map<std::pair<std::string, std::string>, std::vector<double>> errors;
    for (std::size_t i = 0; i < cls.size(); ++i)
      if (sim[i] > 0) errors[{cls[i], unit[i]}].push_back(std::abs((pred[i] - sim[i]) / sim[i]));
    const auto c_class = strings(file, "model/classes", "op_class");
    const auto c_unit = strings(file, "model/classes", "unit");
    const auto c_ops = column<std::uint64_t>(file, "model/classes", "ops_" + w);
    const auto c_med = column<double>(file, "model/classes", "median_abs_error_" + w);
    std::size_t rows = 0;
    for (std::size_t i = 0; i < c_class.size(); ++i) {
      if (c_ops[i] == 0) continue;
      ++rows;
      std::vector<double>& v = errors[{c_class[i], c_unit[i]}];
      ASSERT_EQ(v.size(), c_ops[i]) << c_class[i] << " on " << c_unit[i] << " " << w;
      std::sort(v.begin(), v.end());
      const std::size_t h = v.size() / 2;
      const double median = v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
      EXPECT_NEAR(median, c_med[i], 1e-12 * std::max(1.0, c_med[i])) << c_class[i] << " " << w;
    }
    EXPECT_EQ(rows, errors.size()) << w;
  }
}

TEST(ModelTrace, MissingTraceDirectoryFailsBeforeRetrainingAndWritesNothing) {
  const std::string dir = test::temp_dir();
  PipelineOptions pipeline;
  pipeline.hardware_path = test::source_path("configs/photonic.json");
  pipeline.graph_path = test::source_path("tests/data/mlp2.json");
  RetrainCommand command;
  command.output = dir + "/retrained.json";
  command.trace_path = dir + "/no/such/dir/retrain.h5";
  std::ostringstream out;
  try {
    run_retrain(pipeline, command, out);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/dir"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(out.str().empty()) << "failed after retraining:\n" << out.str();
  EXPECT_TRUE(fs::is_empty(dir));
}

} // namespace
} // namespace lightsim::sim
