#include "scheduler/schedule_search.h"

#include "scheduler/list_scheduler.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace lightsim::sched {

double schedule_value(const Schedule& schedule, Objective metric) {
  switch (metric) {
  case Objective::Energy:
    return schedule.energy_j;
  case Objective::Edp:
    return schedule.energy_j * schedule.makespan_s;
  default:
    return schedule.makespan_s;
  }
}

namespace {

class Search {
public:
  Search(const FlatGraph& start, const ScheduleSearchOptions& options)
      : sg_(*start.stacked), options_(options), best_(start) {
    group_twins();
    if (options_.capacity && !options_.capacity->weights.empty())
      resident_ = resident_bytes(*options_.capacity, sg_, best_.choice);
  }

  FlatGraph run(Schedule& schedule, ScheduleSearchStats& st) {
    schedule_ = list_schedule(best_, &binding_);
    value_ = schedule_value(schedule_, options_.metric);
    evaluations_ = 1;
    st.start_value = value_;
    for (;;) {
      bool improved = false;
      if (options_.metric != Objective::Makespan) improved = energy_moves();
      if (!improved && !exhausted_) improved = critical_path_moves();
      if (!improved || exhausted_) break;
    }
    best_.objective = options_.metric;
    best_.objective_value = value_;
    st.final_value = value_;
    st.evaluations = evaluations_;
    st.moves = moves_;
    st.gave_up = exhausted_;
    schedule = std::move(schedule_);
    return std::move(best_);
  }

private:
  // Ops with identical stacks (op class aside: node units and costs) are twins; group_[op] numbers them.
  void group_twins() {
    const std::size_t n = sg_.num_stacks();
    std::vector<ir::OpId> order(n);
    for (std::size_t i = 0; i < n; ++i)
      order[i] = static_cast<ir::OpId>(i);
    auto key = [this](ir::OpId op) {
      std::vector<std::tuple<int, double, double>> k;
      for (const ir::StackNode& node : sg_.nodes(op))
        k.emplace_back(node.unit, node.cost.time_s, node.cost.energy_j);
      return k;
    };
    std::vector<std::vector<std::tuple<int, double, double>>> keys(n);
    for (std::size_t i = 0; i < n; ++i)
      keys[i] = key(static_cast<ir::OpId>(i));
    std::stable_sort(order.begin(), order.end(), [&](ir::OpId a, ir::OpId b) { return keys[a] < keys[b]; });
    group_.assign(n, 0);
    members_.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || keys[order[i]] != keys[order[i - 1]]) members_.emplace_back();
      group_[order[i]] = static_cast<int>(members_.size() - 1);
      members_.back().push_back(order[i]);
    }
    for (auto& m : members_)
      std::sort(m.begin(), m.end());
  }

  // Evaluates giving every op of `ops` node j; keeps it when the metric improves.
  bool try_move(const std::vector<ir::OpId>& ops, int j) {
    if (evaluations_ >= options_.max_evaluations) {
      exhausted_ = true;
      return false;
    }
    FlatGraph trial = best_;
    std::vector<double> resident = resident_;
    for (ir::OpId op : ops) {
      if (!resident.empty()) {
        const CapacityProblem& cap = *options_.capacity;
        const std::size_t base = sg_.first_node(op);
        const int from = cap.node_memory[base + static_cast<std::size_t>(trial.choice[op])];
        const int to = cap.node_memory[base + static_cast<std::size_t>(j)];
        if (from >= 0) resident[from] -= cap.node_bytes[base + static_cast<std::size_t>(trial.choice[op])];
        if (to >= 0) {
          resident[to] += cap.node_bytes[base + static_cast<std::size_t>(j)];
          if (resident[to] > cap.capacity_bytes[to]) return false; // not evaluated
        }
      }
      trial.choice[op] = j;
    }
    std::vector<ir::OpId> binding;
    Schedule candidate = list_schedule(trial, &binding);
    ++evaluations_;
    const double value = schedule_value(candidate, options_.metric);
    if (!(value < value_)) return false;
    best_ = std::move(trial);
    schedule_ = std::move(candidate);
    binding_ = std::move(binding);
    resident_ = std::move(resident);
    value_ = value;
    ++moves_;
    return true;
  }

  // Joules of op on node j with its neighbours as placed: the node and its incident transfers.
  double local_energy(ir::OpId op, int j) const {
    double e = sg_.nodes(op)[j].cost.energy_j;
    for (std::uint32_t k : sg_.in_edges(op)) {
      const ir::StackEdge& edge = sg_.edges()[k];
      e += sg_.edge_cost(edge, best_.choice[edge.src], j).energy_j;
    }
    for (std::uint32_t k : sg_.out_edges(op)) {
      const ir::StackEdge& edge = sg_.edges()[k];
      e += sg_.edge_cost(edge, j, best_.choice[edge.dst]).energy_j;
    }
    return e;
  }

  bool energy_moves() {
    struct Candidate {
      double saving;
      ir::OpId op;
      int node;
    };
    std::vector<Candidate> list;
    for (ir::OpId op = 0; op < static_cast<ir::OpId>(sg_.num_stacks()); ++op) {
      const int n = static_cast<int>(sg_.nodes(op).size());
      if (n < 2) continue;
      const double here = local_energy(op, best_.choice[op]);
      for (int j = 0; j < n; ++j)
        if (j != best_.choice[op] && !tabu_.count({op, j})) {
          const double saving = here - local_energy(op, j);
          if (saving > 0) list.push_back({saving, op, j});
        }
    }
    std::stable_sort(list.begin(), list.end(),
                     [](const Candidate& a, const Candidate& b) { return a.saving > b.saving; });
    for (const Candidate& c : list) {
      if (tabu_.count({c.op, c.node})) continue;
      std::vector<ir::OpId> twins;
      for (ir::OpId t : members_[group_[c.op]])
        if (best_.choice[t] == best_.choice[c.op]) twins.push_back(t);
      if (twins.size() > 1 && try_move(twins, c.node)) return true;
      if (try_move({c.op}, c.node)) return true;
      if (exhausted_) return false;
      for (ir::OpId t : twins) // twins alone fare as this one did: not tried again
        tabu_.insert({t, c.node});
      tabu_.insert({c.op, c.node});
    }
    return false;
  }

  bool critical_path_moves() {
    for (ir::OpId op : critical_path(schedule_, binding_)) {
      const int current = best_.choice[op];
      const int choices = static_cast<int>(sg_.nodes(op).size());
      for (int j = 0; j < choices; ++j) {
        if (j == current) continue;
        if (try_move({op}, j)) return true;
        if (exhausted_) return false;
      }
    }
    return false;
  }

  const ir::StackedGraph& sg_;
  const ScheduleSearchOptions& options_;
  FlatGraph best_;
  Schedule schedule_;
  std::vector<ir::OpId> binding_;
  std::vector<double> resident_; // weight bytes per memory, when capacity is checked
  double value_ = 0;
  std::size_t evaluations_ = 0, moves_ = 0;
  bool exhausted_ = false;
  std::vector<int> group_;
  std::vector<std::vector<ir::OpId>> members_;
  std::set<std::pair<ir::OpId, int>> tabu_;
};

} // namespace

FlatGraph improve_schedule(const FlatGraph& start, Schedule& schedule, const ScheduleSearchOptions& options,
                           ScheduleSearchStats* stats) {
  ScheduleSearchStats st;
  FlatGraph best = Search(start, options).run(schedule, st);
  if (stats) *stats = st;
  return best;
}

FlatGraph improve_makespan(const FlatGraph& start, Schedule& schedule, std::size_t max_evaluations,
                           ScheduleSearchStats* stats) {
  return improve_schedule(start, schedule, {Objective::Makespan, max_evaluations, nullptr}, stats);
}

} // namespace lightsim::sched
