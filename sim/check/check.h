// Check: how far the arithmetic model's prediction (list scheduler) is from the SystemC replay. Both
// inputs are sched::Schedule with ops indexed by OpId; the comparison is per op (duration), grouped per
// (unit, op class), and end to end (makespan, energy).
//
// Error convention: error = (simulated - predicted) / simulated, signed; a positive error means the model
// was optimistic (the replay took longer). Zero durations never divide by zero:
//   - simulated == 0 and predicted == 0: error 0 (both agree the op is free, e.g. a view);
//   - simulated == 0 and predicted != 0: the relative error is unbounded; the op is counted in
//     `zero_simulated` and left out of the median and max (its time still enters the summed columns).
// The end-to-end makespan and energy errors follow the same rule and are NaN when unbounded.
// Ops of class Input (resident tensors, no work) are excluded.
//
// It is not a retrain: sim/retrain/ refits the model from the same data.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "scheduler/schedule.h"

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace lightsim::sim {

// (simulated - predicted) / simulated; nullopt when simulated == 0 and predicted != 0 (see above).
std::optional<double> relative_error(double predicted, double simulated);

// One row of the check table: the ops of one op class on one unit.
struct CheckRow {
  int unit = -1;
  std::string unit_name;
  ir::OpClass op_class = ir::OpClass::Input;
  std::size_t count = 0;          // ops compared
  std::size_t zero_simulated = 0; // of which: simulated 0 s, predicted > 0 (no relative error)
  double median_abs_error = 0;    // over the ops with a relative error; NaN if none
  double max_abs_error = 0;       // idem
  double predicted_s = 0;         // summed predicted durations
  double simulated_s = 0;         // summed simulated durations
};

struct EndToEnd {
  double predicted = 0, simulated = 0;
  double error = 0; // relative_error(predicted, simulated), NaN when unbounded
};

struct CheckReport {
  std::vector<CheckRow> rows; // sorted by unit index, then op class
  std::size_t ops_compared = 0;
  EndToEnd makespan_s, energy_j;
};

// Compares two schedules of `graph` on `hw`. Throws std::invalid_argument when they do not describe the
// same placement (op counts differ from the graph, or an op sits on different units): that is a bug in
// the caller, not bad user input.
CheckReport check_schedules(const ir::Graph& graph, const ir::Hardware& hw, const sched::Schedule& predicted,
                            const sched::Schedule& simulated);

// The table as aligned text, one row per (unit, op class), errors in percent, then the end-to-end lines.
std::string format_check_table(const CheckReport& report);

// The same as JSON (for --json): {"rows": [...], "ops_compared": n, "makespan_s": {...}, "energy_j": {...}}.
// Errors are fractions (not percent); NaN is written as null.
nlohmann::json check_to_json(const CheckReport& report);

} // namespace lightsim::sim
