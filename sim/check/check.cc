#include "sim/check/check.h"

#include "ir/text_format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

namespace lightsim::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double median_of(std::vector<double>& v) {
  if (v.empty()) return kNaN;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

EndToEnd end_to_end(double predicted, double simulated) {
  return {predicted, simulated, relative_error(predicted, simulated).value_or(kNaN)};
}

// `v` printed with `format`; "-" for NaN (no value).
std::string fmt(const char* format, double v) {
  return std::isnan(v) ? "-" : ir::format(format, v);
}

std::string percent(double fraction, bool sign) {
  return fmt(sign ? "%+.2f%%" : "%.2f%%", fraction * 100.0);
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

} // namespace

std::optional<double> relative_error(double predicted, double simulated) {
  if (simulated == 0) {
    if (predicted == 0) return 0.0;
    return std::nullopt;
  }
  return (simulated - predicted) / simulated;
}

CheckReport check_schedules(const ir::Graph& graph, const ir::Hardware& hw, const sched::Schedule& predicted,
                            const sched::Schedule& simulated) {
  const std::size_t n = graph.ops.size();
  if (predicted.ops.size() != n || simulated.ops.size() != n)
    throw std::invalid_argument("check_schedules: schedules have " + std::to_string(predicted.ops.size()) +
                                " and " + std::to_string(simulated.ops.size()) + " ops, the graph " +
                                std::to_string(n));

  struct Group {
    CheckRow row;
    std::vector<double> abs_errors;
  };
  std::map<std::pair<int, ir::OpClass>, Group> groups; // ordered: deterministic rows
  CheckReport report;
  for (std::size_t i = 0; i < n; ++i) {
    const ir::OpClass op_class = graph.ops[i].op_class;
    if (op_class == ir::OpClass::Input) continue;
    const sched::ScheduledOp& p = predicted.ops[i];
    const sched::ScheduledOp& s = simulated.ops[i];
    if (p.unit != s.unit)
      throw std::invalid_argument("check_schedules: op " + std::to_string(i) + " is on unit " +
                                  std::to_string(p.unit) + " in the prediction but on unit " +
                                  std::to_string(s.unit) + " in the simulation");
    Group& g = groups[{p.unit, op_class}];
    const double pred_s = p.end_s - p.start_s;
    const double sim_s = s.end_s - s.start_s;
    ++g.row.count;
    g.row.predicted_s += pred_s;
    g.row.simulated_s += sim_s;
    if (const std::optional<double> e = relative_error(pred_s, sim_s))
      g.abs_errors.push_back(std::fabs(*e));
    else
      ++g.row.zero_simulated;
    ++report.ops_compared;
  }

  report.rows.reserve(groups.size());
  for (auto& [key, g] : groups) {
    CheckRow row = std::move(g.row);
    row.unit = key.first;
    row.op_class = key.second;
    const bool known_unit = row.unit >= 0 && static_cast<std::size_t>(row.unit) < hw.units.size();
    row.unit_name = known_unit ? hw.units[static_cast<std::size_t>(row.unit)].name : "?";
    row.max_abs_error =
        g.abs_errors.empty() ? kNaN : *std::max_element(g.abs_errors.begin(), g.abs_errors.end());
    row.median_abs_error = median_of(g.abs_errors);
    report.rows.push_back(std::move(row));
  }
  report.makespan_s = end_to_end(predicted.makespan_s, simulated.makespan_s);
  report.energy_j = end_to_end(predicted.energy_j, simulated.energy_j);
  return report;
}

std::string format_check_table(const CheckReport& report) {
  const std::vector<std::string> header = {"unit",         "op class",  "ops",         "sim=0",
                                           "median |err|", "max |err|", "predicted s", "simulated s"};
  std::vector<std::vector<std::string>> cells;
  cells.reserve(report.rows.size());
  for (const CheckRow& r : report.rows)
    cells.push_back({r.unit_name, std::string(ir::op_class_name(r.op_class)), std::to_string(r.count),
                     std::to_string(r.zero_simulated), percent(r.median_abs_error, false),
                     percent(r.max_abs_error, false), fmt("%.6g", r.predicted_s),
                     fmt("%.6g", r.simulated_s)});

  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : cells)
      width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      line += c < 2 ? row[c] + pad : pad + row[c]; // names left, numbers right
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + '\n';
  };
  emit(header);
  for (const auto& row : cells)
    emit(row);

  auto total = [&](const char* what, const EndToEnd& e, const char* unit) {
    out += std::string(what) + "  predicted " + fmt("%.6g", e.predicted) + " " + unit + "  simulated " +
           fmt("%.6g", e.simulated) + " " + unit + "  error " + percent(e.error, true) + '\n';
  };
  total("makespan", report.makespan_s, "s");
  total("energy  ", report.energy_j, "J");
  return out;
}

nlohmann::json check_to_json(const CheckReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CheckRow& r : report.rows)
    rows.push_back({{"unit", r.unit_name},
                    {"op_class", std::string(ir::op_class_name(r.op_class))},
                    {"count", r.count},
                    {"zero_simulated", r.zero_simulated},
                    {"median_abs_error", number_or_null(r.median_abs_error)},
                    {"max_abs_error", number_or_null(r.max_abs_error)},
                    {"predicted_s", r.predicted_s},
                    {"simulated_s", r.simulated_s}});
  auto e2e = [](const EndToEnd& e) {
    return nlohmann::json{{"predicted", number_or_null(e.predicted)},
                          {"simulated", number_or_null(e.simulated)},
                          {"error", number_or_null(e.error)}};
  };
  return {{"rows", std::move(rows)},
          {"ops_compared", report.ops_compared},
          {"makespan_s", e2e(report.makespan_s)},
          {"energy_j", e2e(report.energy_j)}};
}

} // namespace lightsim::sim
