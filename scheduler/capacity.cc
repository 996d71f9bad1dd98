#include "scheduler/capacity.h"

#include "ir/error.h"
#include "ir/hardware/residency.h"
#include "scheduler/weight_moves.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace lightsim::sched {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr int kMaxRounds = 6;        // passes over the over-full memories
constexpr int kMaxBracketSteps = 60; // price x4 per step
constexpr int kMaxBisections = 30;
constexpr double kPriceTolerance = 1e-3; // relative width of the final price bracket

std::string mib(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g MiB", bytes / (1024.0 * 1024.0));
  return buf;
}

class Pricer {
public:
  Pricer(const ir::StackedGraph& sg, const SolvePlan& plan, const SolveOptions& options,
         const CapacityProblem& problem)
      : sg_(sg), plan_(plan), options_(options), problem_(problem), moves_(sg, problem, options.cost),
        memories_(problem.capacity_bytes.size()), price_(memories_, 0.0), extra_(sg.num_nodes(), 0.0) {
    if (!options.node_extra.empty())
      throw std::invalid_argument("solve_with_capacity: options.node_extra is the pricer's own");
    if (problem.node_memory.size() != sg.num_nodes() || problem.node_bytes.size() != sg.num_nodes())
      throw std::invalid_argument("solve_with_capacity: the capacity problem was made for another graph");
  }

  FlatGraph run(CapacityStats& stats) {
    check_fits_somewhere();
    Trial first = evaluate();
    stats.binding = !first.feasible;
    if (first.feasible) {
      stats.solves = solves_;
      stats.price_per_byte = price_;
      stats.value = stats.bound = first.flat.objective_value;
      return std::move(first.flat);
    }
    Trial current = std::move(first);
    for (int round = 0; round < kMaxRounds && !current.feasible; ++round) {
      ++stats.rounds;
      for (int m = 0; m < static_cast<int>(memories_); ++m)
        if (current.resident[m] > problem_.capacity_bytes[m]) current = bisect(m, std::move(current));
    }
    if (!best_) best_ = repair(current.flat);
    stats.solves = solves_;
    stats.price_per_byte = price_;
    stats.weights_refilled = best_refilled_;
    stats.value = best_->objective_value;
    stats.bound = std::min(bound_, stats.value);
    return std::move(*best_);
  }

private:
  struct Trial {
    FlatGraph flat;
    std::vector<double> resident;
    bool feasible = false;
    double dual = 0; // g at the prices it was solved at
    // g along memory m's price is the lower envelope of one line per placement: intercept(m) + price x
    // slope(m).
    double slope(const CapacityProblem& p, int m) const { return resident[m] - p.capacity_bytes[m]; }
  };
  double intercept(const Trial& t, int m) const { return t.dual - price_[m] * t.slope(problem_, m); }

  // Solves at the current prices; records the bound and, when feasible, the refilled placement.
  Trial evaluate() {
    for (std::size_t n = 0; n < extra_.size(); ++n) {
      const int m = problem_.node_memory[n];
      if (m < 0) continue;
      const double bytes = problem_.node_bytes[n];
      extra_[n] = bytes > problem_.capacity_bytes[m] ? kInfinity : price_[m] * bytes;
    }
    SolveOptions priced = options_;
    priced.node_extra = extra_;
    Trial t{solve(sg_, plan_, priced), {}, true, 0};
    ++solves_;
    t.resident = resident_bytes(problem_, sg_, t.flat.choice);
    double dual = t.flat.objective_value;
    for (std::size_t m = 0; m < memories_; ++m) {
      dual += price_[m] * (t.resident[m] - problem_.capacity_bytes[m]);
      if (t.resident[m] > problem_.capacity_bytes[m]) t.feasible = false;
    }
    t.dual = dual;
    bound_ = std::max(bound_, dual);
    if (t.feasible) keep(t.flat, t.resident);
    return t;
  }

  // Raises memory m's price until its weights fit (from the break-even estimate, x4 per step), then
  // narrows the bracket [lo: over capacity, hi: fits]. g along this price is concave and piecewise linear,
  // one line per placement, so each step tries where the lines of lo's and hi's placements cross (the
  // midpoint when that is not inside the bracket): when the solve there finds no lower line, that crossing
  // is the maximum of g along this price and the bound is exact for it. Ends there, or when the bracket is
  // narrower than kPriceTolerance, at the price hi.
  Trial bisect(int m, Trial current) {
    const double capacity = problem_.capacity_bytes[m];
    double lo = price_[m];
    double hi = std::max(lo * (1 + 4 * kPriceTolerance), break_even_price(current, m));
    if (!(hi > lo)) hi = lo > 0 ? 2 * lo : 1e-30;
    Trial low = std::move(current);
    price_[m] = hi;
    Trial high = evaluate();
    for (int step = 0; high.resident[m] > capacity && step < kMaxBracketSteps; ++step) {
      lo = hi;
      hi *= 4;
      price_[m] = hi;
      low = std::move(high);
      high = evaluate();
    }
    if (high.resident[m] > capacity) return high; // no price empties it enough: the repair decides
    for (int step = 0; step < kMaxBisections && hi - lo > kPriceTolerance * hi; ++step) {
      price_[m] = lo;
      const double a_lo = intercept(low, m), s_lo = low.slope(problem_, m);
      price_[m] = hi;
      const double a_hi = intercept(high, m), s_hi = high.slope(problem_, m);
      double x = s_lo > s_hi ? (a_hi - a_lo) / (s_lo - s_hi) : 0.5 * (lo + hi);
      if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
      const double envelope = std::min(a_lo + x * s_lo, a_hi + x * s_hi);
      price_[m] = x;
      Trial mid = evaluate();
      const bool top = mid.dual >= envelope - 1e-12 * std::abs(envelope);
      if (mid.resident[m] > capacity) {
        lo = x;
        low = std::move(mid);
      } else {
        hi = x;
        high = std::move(mid);
      }
      if (top) break; // no lower line there: the maximum of g along this price
    }
    price_[m] = hi;
    return high;
  }

  // The price of m at which moving weights out of m, cheapest per byte first (each to its best other
  // memory at that memory's price, consumers as placed), frees m's excess: where the bisection starts.
  double break_even_price(const Trial& t, int m) const {
    std::vector<std::pair<double, double>> offers; // (price per byte at which it moves, bytes)
    for (ir::OpId w : problem_.weights) {
      const std::size_t base = sg_.first_node(w);
      const int current = t.flat.choice[w];
      if (problem_.node_memory[base + current] != m) continue;
      const double bytes = problem_.node_bytes[base + current];
      const double here = moves_.local_cost(t.flat, w, current);
      double best = kInfinity;
      for (int j = 0; j < static_cast<int>(sg_.nodes(w).size()); ++j) {
        const int to = problem_.node_memory[base + j];
        if (j == current || to == m || extra_[base + j] == kInfinity) continue;
        best = std::min(best, moves_.local_cost(t.flat, w, j) + (to >= 0 ? price_[to] * bytes : 0.0));
      }
      if (best < kInfinity && bytes > 0) offers.push_back({std::max(0.0, (best - here) / bytes), bytes});
    }
    std::sort(offers.begin(), offers.end());
    double freed = 0;
    const double excess = t.resident[m] - problem_.capacity_bytes[m];
    for (const auto& [price, bytes] : offers) {
      freed += bytes;
      if (freed >= excess) return price * (1 + kPriceTolerance);
    }
    return offers.empty() ? 0.0 : 2 * offers.back().first;
  }

  // A feasible placement, refilled (scheduler/weight_moves.h), kept when it is the best so far.
  void keep(const FlatGraph& flat, const std::vector<double>& resident) {
    FlatGraph filled = flat;
    std::vector<double> used = resident;
    const std::size_t refilled = moves_.refill(filled, used);
    filled.objective_value = sum_cost(sg_, filled.choice, options_.cost);
    if (!best_ || filled.objective_value < best_->objective_value) {
      best_ = std::move(filled);
      best_refilled_ = refilled;
    }
  }

  // Last resort when no price fitted every memory: move weights out of over-full memories, cheapest
  // increase first; an InputError when that cannot fit them either.
  FlatGraph repair(FlatGraph flat) {
    std::vector<double> resident = resident_bytes(problem_, sg_, flat.choice);
    for (int m = 0; m < static_cast<int>(memories_); ++m)
      if (!moves_.evict(flat, resident, m))
        throw InputError(source(), resident_data() + " do not fit: memory '" + memory_name(m) +
                                       "' would hold " + mib(resident[m]) +
                                       " of them, over its capacity of " + mib(problem_.capacity_bytes[m]) +
                                       ", and no memory that can hold the rest has room");
    flat.objective_value = sum_cost(sg_, flat.choice, options_.cost);
    keep(flat, resident);
    return std::move(*best_);
  }

  // A weight that no memory can hold, or weights that all memories together cannot: one line.
  void check_fits_somewhere() const {
    double total = 0;
    std::vector<bool> used(memories_, false);
    for (ir::OpId w : problem_.weights) {
      const std::size_t base = sg_.first_node(w);
      double bytes = 0, largest = -1;
      int largest_memory = -1;
      bool fits = false;
      for (std::size_t j = 0; j < sg_.nodes(w).size(); ++j) {
        const int m = problem_.node_memory[base + j];
        if (m < 0) {
          fits = true; // a node that holds nothing
          continue;
        }
        used[m] = true;
        bytes = problem_.node_bytes[base + j];
        if (bytes <= problem_.capacity_bytes[m]) fits = true;
        if (problem_.capacity_bytes[m] > largest) {
          largest = problem_.capacity_bytes[m];
          largest_memory = m;
        }
      }
      if (!fits)
        throw InputError(source(), noun(w) + " '" + stack_name(w) + "' (" + mib(bytes) +
                                       ") fits in no memory that can hold it (the largest, '" +
                                       memory_name(largest_memory) + "', holds " + mib(largest) + ")" +
                                       state_placement(w));
      total += bytes;
    }
    double room = 0;
    std::string names;
    for (std::size_t m = 0; m < memories_; ++m)
      if (used[m]) {
        room += problem_.capacity_bytes[m];
        names += (names.empty() ? "" : " + ") + memory_name(static_cast<int>(m)) + " " +
                 mib(problem_.capacity_bytes[m]);
      }
    if (total > room)
      throw InputError(source(), resident_data() + " (" + mib(total) +
                                     ") fit nowhere: the memories that can hold them have " + mib(room) +
                                     " (" + names + ")");
  }

  std::string source() const { return sg_.has_graph() ? sg_.graph().source : "stacked graph"; }
  // What the resident data are called in errors: the weights, and model state when there is some.
  std::string resident_data() const {
    if (sg_.has_graph())
      for (ir::OpId w : problem_.weights)
        if (sg_.graph().ops[w].is_state) return "the weights and model state (KV cache)";
    return "the weights";
  }
  std::string noun(ir::OpId w) const {
    return sg_.has_graph() ? ir::resident_input_noun(sg_.graph().ops[w]) : "weight";
  }
  // For model state: where the config's placement.state put it.
  std::string state_placement(ir::OpId w) const {
    if (!sg_.has_graph() || !sg_.graph().ops[w].is_state) return "";
    const ir::Hardware& hw = sg_.hardware();
    const int u = hw.placement.state_unit;
    return std::string("; ") + hw.source + ": placement.state is '" + (u < 0 ? "any" : hw.units[u].name) +
           "'";
  }
  std::string memory_name(int m) const {
    return sg_.has_graph() ? sg_.hardware().memories[m].name : "memory " + std::to_string(m);
  }
  std::string stack_name(ir::OpId w) const {
    return sg_.has_graph() ? sg_.graph().ops[w].name : "stack " + std::to_string(w);
  }

  const ir::StackedGraph& sg_;
  const SolvePlan& plan_;
  const SolveOptions& options_;
  const CapacityProblem& problem_;
  WeightMoves moves_;
  std::size_t memories_;
  std::vector<double> price_, extra_;
  std::size_t solves_ = 0;
  double bound_ = -kInfinity;
  std::optional<FlatGraph> best_;
  std::size_t best_refilled_ = 0;
};

} // namespace

CapacityProblem weight_capacity_problem(const ir::StackedGraph& sg) {
  CapacityProblem p;
  p.node_memory.assign(sg.num_nodes(), -1);
  p.node_bytes.assign(sg.num_nodes(), 0.0);
  if (!sg.has_graph()) return p;
  const ir::Graph& g = sg.graph();
  const ir::Hardware& hw = sg.hardware();
  for (const ir::Memory& m : hw.memories)
    p.capacity_bytes.push_back(m.capacity_bytes);
  for (const ir::Unit& u : hw.units) // prefetch buffers are reserved in their unit's memory
    p.capacity_bytes[static_cast<std::size_t>(u.memory)] -= ir::prefetch_reserved_bytes(u);
  for (ir::OpId op = 0; op < static_cast<ir::OpId>(sg.num_stacks()); ++op) {
    const ir::Op& desc = g.ops[op];
    if (!ir::is_resident_input(hw, desc)) continue;
    double bytes = 0;
    for (ir::TensorId t : desc.outputs)
      bytes += static_cast<double>(g.tensors[t].bytes);
    p.weights.push_back(op);
    const auto nodes = sg.nodes(op);
    for (std::size_t j = 0; j < nodes.size(); ++j) {
      p.node_memory[sg.first_node(op) + j] = hw.units[nodes[j].unit].memory;
      p.node_bytes[sg.first_node(op) + j] = bytes;
    }
  }
  return p;
}

std::vector<double> resident_bytes(const CapacityProblem& problem, const ir::StackedGraph& sg,
                                   const std::vector<int>& choice) {
  std::vector<double> out(problem.capacity_bytes.size(), 0.0);
  for (ir::OpId w : problem.weights) {
    const std::size_t n = sg.first_node(w) + static_cast<std::size_t>(choice[w]);
    if (problem.node_memory[n] >= 0) out[problem.node_memory[n]] += problem.node_bytes[n];
  }
  return out;
}

FlatGraph solve_with_capacity(const ir::StackedGraph& sg, const SolvePlan& plan, const SolveOptions& options,
                              const CapacityProblem& problem, CapacityStats* stats) {
  CapacityStats st;
  FlatGraph flat = Pricer(sg, plan, options, problem).run(st);
  if (stats) *stats = std::move(st);
  return flat;
}

} // namespace lightsim::sched
