// UnitAlternatives: why each unit did not get the ops it did not get. For every unit and op class, the
// compute ops placed on other units, split into those it cannot run at all (its arithmetic model has no
// entry for the class or a fused tail's class, or its kind refuses the op: an array without MACs for the
// dtype, or the device plan keeps it off: a shard's ops on a unit outside its devices) and those it could
// run. For the latter, what they would have cost on it (its compute, and the
// transfers of their operands from where their producers ran) against what they cost where they ran (their
// compute and their operands' transfers as placed), and from that what the unit would have to reach to
// tie: its compute that many times faster (time) or cheaper (energy), or "never" where the operand
// transfers alone cost more than the ops did where they ran.
//
// Both sides are the planner's own costs (the stacked graph's nodes and edges), summed op by op. It is not
// a re-plan: the transfers to an op's consumers, which moving it would change too, and any overlap of
// ops on different units are not counted.
#pragma once

#include "ir/cost.h"
#include "ir/op_class.h"
#include "sim/driver/pipeline.h"

#include <array>
#include <cstddef>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

namespace lightsim {

// The ops of one class (or all classes) that one unit did not get.
struct NotChosen {
  std::size_t ops = 0;           // compute ops (views excluded) that ran on other units
  std::size_t not_in_model = 0;  // of those, the ones whose class (or a fused tail's) its model lacks
  std::size_t kind_refuses = 0;  // the ones its kind cannot compute (UnitKind::supports)
  std::size_t plan_excludes = 0; // the ones the device plan keeps off it (ir/cost/device_plan.h: a shard's)
  std::size_t could_run = 0;     // the rest: priced below
  ir::Cost compute_here, transfers_here;           // those ops on this unit; their operands' transfers to it
  ir::Cost compute_where_ran, transfers_where_ran; // the same ops as placed

  void add(const NotChosen& o);
};

// How many times faster (or cheaper) a unit's compute must be for `row`'s ops to cost on it what they
// cost where they ran, for one component of the cost (time_s or energy_j). nullopt: the operand
// transfers alone cost at least as much ("never"); 0 when the unit could run none of them.
std::optional<double> tie_factor(const NotChosen& row, double ir::Cost::*part);

struct UnitAlternatives {
  NotChosen all;
  std::array<NotChosen, ir::kNumOpClasses> by_class;
};

// One entry per unit of the run's hardware.
std::vector<UnitAlternatives> unit_alternatives(const Pipeline& run);

// The report's section, and the JSON object each entry of --json's `units` carries as `not_chosen`.
void print_unit_alternatives(std::ostream& out, const Pipeline& run,
                             const std::vector<UnitAlternatives>& rows);
nlohmann::json not_chosen_json(const UnitAlternatives& row);

} // namespace lightsim
