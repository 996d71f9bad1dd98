#include "scheduler/solver.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "ir/error.h"

namespace lightsim::sched {
namespace {

// A function of several variables, as a dense table: scope ascending, the last variable fastest.
struct Factor {
  std::vector<int> scope;
  std::vector<double> table;
  bool alive = true;
};

// What eliminating one variable left behind for back-substitution.
struct Elimination {
  int var;
  std::vector<int> scope;
  std::vector<std::uint16_t> argmin; // per assignment of scope
};

class Eliminator {
public:
  Eliminator(const ir::StackedGraph& sg, Objective objective, std::size_t max_table)
      : sg_(sg), objective_(objective), max_table_(max_table) {
    const std::size_t n = sg.num_stacks();
    dom_.resize(n);
    unary_.resize(n);
    var_factors_.resize(n);
    adj_.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
      const auto nodes = sg.nodes(static_cast<ir::OpId>(v));
      dom_[v] = static_cast<int>(nodes.size());
      for (const ir::StackNode& node : nodes) unary_[v].push_back(pick(node.cost));
    }
    add_edges();
  }

  FlatGraph run(SolveStats* stats) {
    eliminate_all();
    FlatGraph flat;
    flat.stacked = &sg_;
    flat.objective = objective_;
    flat.choice.assign(sg_.num_stacks(), 0);
    for (auto it = eliminations_.rbegin(); it != eliminations_.rend(); ++it) {
      std::size_t index = 0;
      for (int u : it->scope) index = index * static_cast<std::size_t>(dom_[u]) + static_cast<std::size_t>(flat.choice[u]);
      flat.choice[it->var] = it->argmin[index];
    }
    flat.objective_value = sum_objective(sg_, flat.choice, objective_);
    if (stats) *stats = stats_;
    return flat;
  }

private:
  double pick(const ir::Cost& c) const { return objective_ == Objective::Energy ? c.energy_j : c.time_s; }

  // Edges into stacks without a choice become unary terms; the rest become one factor per pair.
  void add_edges() {
    std::map<std::pair<int, int>, int> pair_factor;
    for (const ir::StackEdge& e : sg_.edges()) {
      const int a = e.src, b = e.dst;
      if (a == b) continue;
      if (dom_[a] == 1 || dom_[b] == 1) {
        const int v = dom_[a] == 1 ? b : a;
        for (int x = 0; x < dom_[v]; ++x)
          unary_[v][x] += pick(v == b ? sg_.edge_cost(e, 0, x) : sg_.edge_cost(e, x, 0));
        continue;
      }
      const int lo = std::min(a, b), hi = std::max(a, b);
      auto [it, inserted] = pair_factor.try_emplace({lo, hi}, static_cast<int>(factors_.size()));
      if (inserted) {
        factors_.push_back({{lo, hi}, std::vector<double>(static_cast<std::size_t>(dom_[lo] * dom_[hi]), 0.0)});
        var_factors_[lo].push_back(it->second);
        var_factors_[hi].push_back(it->second);
        adj_[lo].insert(hi);
        adj_[hi].insert(lo);
      }
      std::vector<double>& table = factors_[it->second].table;
      for (int i = 0; i < dom_[a]; ++i)
        for (int j = 0; j < dom_[b]; ++j) {
          const int x_lo = a == lo ? i : j, x_hi = a == lo ? j : i;
          table[static_cast<std::size_t>(x_lo * dom_[hi] + x_hi)] += pick(sg_.edge_cost(e, i, j));
        }
    }
    stats_.pair_factors = factors_.size();
  }

  void eliminate_all() {
    std::set<std::pair<std::size_t, int>> queue; // (degree, variable): min-degree order, ties by index
    for (int v = 0; v < static_cast<int>(dom_.size()); ++v)
      if (dom_[v] > 1) {
        queue.insert({adj_[v].size(), v});
        ++stats_.variables;
      }
    while (!queue.empty()) {
      const int v = queue.begin()->second;
      queue.erase(queue.begin());
      const std::vector<int> scope(adj_[v].begin(), adj_[v].end());
      // Eliminating v joins its neighbours into a clique: update their degrees.
      for (int u : scope) queue.erase({adj_[u].size(), u});
      for (int u : scope) {
        adj_[u].erase(v);
        adj_[u].insert(scope.begin(), scope.end());
        adj_[u].erase(u);
      }
      for (int u : scope) queue.insert({adj_[u].size(), u});
      eliminate(v, scope);
    }
  }

  void eliminate(int v, const std::vector<int>& scope) {
    std::size_t size = 1;
    for (int u : scope) {
      size *= static_cast<std::size_t>(dom_[u]);
      if (size > max_table_)
        throw InputError(graph_name(), "exact placement needs a table of more than " + std::to_string(max_table_) +
                                           " entries (interaction width " + std::to_string(scope.size()) +
                                           "); the graph is too densely connected for the exact solver");
    }
    stats_.induced_width = std::max(stats_.induced_width, scope.size());
    stats_.largest_table = std::max(stats_.largest_table, size * static_cast<std::size_t>(dom_[v]));

    // For each factor over v: the stride of v and of each scope variable within it (0 if absent).
    struct View {
      const std::vector<double>* table;
      std::size_t v_stride;
      std::vector<std::size_t> strides;
    };
    std::vector<View> views;
    for (int f : var_factors_[v]) {
      Factor& factor = factors_[f];
      if (!factor.alive) continue;
      factor.alive = false;
      View view{&factor.table, 0, std::vector<std::size_t>(scope.size(), 0)};
      std::size_t stride = 1;
      for (std::size_t k = factor.scope.size(); k-- > 0;) {
        const int u = factor.scope[k];
        if (u == v) view.v_stride = stride;
        else view.strides[static_cast<std::size_t>(std::lower_bound(scope.begin(), scope.end(), u) - scope.begin())] = stride;
        stride *= static_cast<std::size_t>(dom_[u]);
      }
      views.push_back(std::move(view));
    }

    Elimination record{v, scope, std::vector<std::uint16_t>(size)};
    std::vector<double> table(size);
    std::vector<int> digits(scope.size(), 0);
    std::vector<std::size_t> base(views.size());
    for (std::size_t a = 0; a < size; ++a) {
      for (std::size_t f = 0; f < views.size(); ++f) {
        std::size_t b = 0;
        for (std::size_t k = 0; k < scope.size(); ++k) b += static_cast<std::size_t>(digits[k]) * views[f].strides[k];
        base[f] = b;
      }
      double best = std::numeric_limits<double>::infinity();
      int best_x = 0;
      for (int x = 0; x < dom_[v]; ++x) {
        double value = unary_[v][x];
        for (std::size_t f = 0; f < views.size(); ++f)
          value += (*views[f].table)[base[f] + static_cast<std::size_t>(x) * views[f].v_stride];
        if (value < best) {
          best = value;
          best_x = x;
        }
      }
      table[a] = best;
      record.argmin[a] = static_cast<std::uint16_t>(best_x);
      for (std::size_t k = scope.size(); k-- > 0;) { // odometer, last variable fastest
        if (++digits[k] < dom_[scope[k]]) break;
        digits[k] = 0;
      }
    }
    eliminations_.push_back(std::move(record));

    if (scope.size() == 1) {
      for (int x = 0; x < dom_[scope[0]]; ++x) unary_[scope[0]][x] += table[static_cast<std::size_t>(x)];
    } else if (scope.size() > 1) {
      const int id = static_cast<int>(factors_.size());
      factors_.push_back({scope, std::move(table)});
      for (int u : scope) var_factors_[u].push_back(id);
    }
  }

  std::string graph_name() const { return sg_.has_graph() ? sg_.graph().source : ""; }

  const ir::StackedGraph& sg_;
  Objective objective_;
  std::size_t max_table_;
  std::vector<int> dom_;
  std::vector<std::vector<double>> unary_;
  std::vector<Factor> factors_;
  std::vector<std::vector<int>> var_factors_;
  std::vector<std::set<int>> adj_;
  std::vector<Elimination> eliminations_;
  SolveStats stats_;
};

} // namespace

FlatGraph solve(const ir::StackedGraph& sg, const SolveOptions& options, SolveStats* stats) {
  const Objective objective = options.objective == Objective::Energy ? Objective::Energy : Objective::Time;
  return Eliminator(sg, objective, options.max_table_entries).run(stats);
}

} // namespace lightsim::sched
