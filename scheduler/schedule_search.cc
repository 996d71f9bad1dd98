#include "scheduler/schedule_search.h"

#include "scheduler/list_scheduler.h"

#include <algorithm>
#include <cmath>
#include <map>
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

double machine_static_power_w(const ir::Hardware& hw) {
  double watts = 0;
  for (const ir::Unit& u : hw.units)
    watts += u.static_power_w;
  for (const ir::Memory& m : hw.memories)
    watts += m.static_power_w;
  return watts;
}

namespace {

class Search {
public:
  Search(const FlatGraph& start, const ScheduleSearchOptions& options)
      : sg_(*start.stacked), options_(options), best_(start),
        static_w_(sg_.has_graph() ? machine_static_power_w(sg_.hardware()) : 0.0) {
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
      if (options_.metric != Objective::Makespan) improved = predicted_moves();
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

  // Slack of every op in the current schedule: how much later it could end without delaying the run,
  // given its data successors (after their transfers, at their model times) and the next op on its lane.
  void compute_slack() {
    const std::size_t n = sg_.num_stacks();
    const std::vector<ScheduledOp>& ops = schedule_.ops;
    std::vector<ir::OpId> order(n);
    for (std::size_t i = 0; i < n; ++i)
      order[i] = static_cast<ir::OpId>(i);
    // Successors first: later starts first, then (ops are in topological order) higher ids.
    std::sort(order.begin(), order.end(), [&](ir::OpId a, ir::OpId b) {
      return ops[a].start_s != ops[b].start_s ? ops[a].start_s > ops[b].start_s : a > b;
    });
    std::vector<ir::OpId> next_on_lane(n, -1);
    std::map<std::pair<int, int>, ir::OpId> later; // (unit, lane) -> the op after, in this order
    latest_end_.assign(n, schedule_.makespan_s);
    for (ir::OpId op : order) {
      double lf = schedule_.makespan_s;
      auto latest_start = [&](ir::OpId x) { return latest_end_[x] - (ops[x].end_s - ops[x].start_s); };
      if (ops[op].lane >= 0) {
        auto [it, fresh] = later.try_emplace({ops[op].unit, ops[op].lane}, op);
        if (!fresh) {
          lf = std::min(lf, latest_start(it->second));
          it->second = op;
        }
      }
      for (std::uint32_t k : sg_.out_edges(op)) {
        const ir::StackEdge& e = sg_.edges()[k];
        lf = std::min(lf,
                      latest_start(e.dst) - sg_.edge_cost(e, best_.choice[op], best_.choice[e.dst]).time_s);
      }
      latest_end_[op] = lf;
    }
  }

  // What moving op to node j does, seen locally (its neighbours as placed): the change of its own and its
  // transfers' energy, and of the makespan: a longer path through it uses its slack first; a shorter one
  // shortens the run only when the op is critical.
  struct Predicted {
    double energy_j, makespan_s;
  };
  Predicted predict(ir::OpId op, int j) const {
    const int c = best_.choice[op];
    const auto& nodes = sg_.nodes(op);
    double de = nodes[j].cost.energy_j - nodes[c].cost.energy_j;
    double din = 0, dout = 0;
    for (std::uint32_t k : sg_.in_edges(op)) {
      const ir::StackEdge& e = sg_.edges()[k];
      const ir::Cost a = sg_.edge_cost(e, best_.choice[e.src], j),
                     b = sg_.edge_cost(e, best_.choice[e.src], c);
      de += a.energy_j - b.energy_j;
      din = std::max(din, a.time_s - b.time_s);
    }
    for (std::uint32_t k : sg_.out_edges(op)) {
      const ir::StackEdge& e = sg_.edges()[k];
      const ir::Cost a = sg_.edge_cost(e, j, best_.choice[e.dst]),
                     b = sg_.edge_cost(e, c, best_.choice[e.dst]);
      de += a.energy_j - b.energy_j;
      dout = std::max(dout, a.time_s - b.time_s);
    }
    const double dt = nodes[j].cost.time_s - nodes[c].cost.time_s + din + dout;
    const double slack = latest_end_[op] - schedule_.ops[op].end_s;
    const bool critical = slack <= 1e-12 * schedule_.makespan_s;
    const double dm = dt > 0 ? std::max(0.0, dt - slack) : critical ? dt : 0.0;
    return {de, dm};
  }

  double predicted_change(const Predicted& p) const {
    const double de = p.energy_j + static_w_ * p.makespan_s;
    if (options_.metric == Objective::Edp)
      return schedule_.makespan_s * de + schedule_.energy_j * p.makespan_s;
    return options_.metric == Objective::Energy ? de : p.makespan_s;
  }

  // Moves predicted to improve the metric, best prediction first; each tried for all its twins at once,
  // then alone. A move that fails is not tried again, nor are its twins'.
  bool predicted_moves() {
    compute_slack();
    struct Candidate {
      double change;
      ir::OpId op;
      int node;
    };
    std::vector<Candidate> list;
    const double noise = 1e-12 * std::abs(value_);
    for (ir::OpId op = 0; op < static_cast<ir::OpId>(sg_.num_stacks()); ++op) {
      const int n = static_cast<int>(sg_.nodes(op).size());
      for (int j = 0; j < n && n > 1; ++j)
        if (j != best_.choice[op] && !tabu_.count({op, j})) {
          const double change = predicted_change(predict(op, j));
          if (change < -noise) list.push_back({change, op, j});
        }
    }
    std::stable_sort(list.begin(), list.end(),
                     [](const Candidate& a, const Candidate& b) { return a.change < b.change; });
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
  double static_w_;
  std::vector<double> latest_end_; // per op, from compute_slack
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
