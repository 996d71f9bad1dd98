#include "scheduler/solver.h"

#include "ir/error.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <span>
#include <stdexcept>
#include <string>

namespace lightsim::sched {
namespace {

// Variable elimination with flat storage: factor scopes and tables, elimination records and argmin
// tables live in a few growing arrays, so a solve makes O(1) allocations per variable, not per entry.
class Eliminator {
public:
  // `ordering`: also build the interaction graph's adjacency, which only order() needs.
  Eliminator(const ir::StackedGraph& sg, const SolveOptions& options, bool ordering)
      : sg_(sg), cost_(options.cost), objective_(options.objective), max_table_(options.max_table_entries),
        ordering_(ordering) {
    if (!options.node_extra.empty() && options.node_extra.size() != sg.num_nodes())
      throw std::invalid_argument("solve: node_extra needs one value per node of the stacked graph");
    const std::size_t n = sg.num_stacks();
    dom_.resize(n);
    unary_begin_.resize(n + 1, 0);
    unary_.reserve(sg.num_stacks() * 2);
    for (std::size_t v = 0; v < n; ++v) {
      const auto nodes = sg.nodes(static_cast<ir::OpId>(v));
      dom_[v] = static_cast<int>(nodes.size());
      unary_begin_[v + 1] = unary_begin_[v] + static_cast<std::uint32_t>(nodes.size());
      for (std::size_t j = 0; j < nodes.size(); ++j)
        unary_.push_back(pick(nodes[j].cost) +
                         (options.node_extra.empty() ? 0.0 : options.node_extra[sg.first_node(v) + j]));
    }
    var_factors_.resize(n);
    if (ordering_) adj_.resize(n);
    add_edges();
  }

  // Min-degree order, ties by variable index; a lazy heap whose stale entries are skipped.
  SolvePlan order() {
    SolvePlan plan;
    plan.domains = dom_;
    plan.num_edges = sg_.edges().size();
    plan.stats.pair_factors = factors_.size();
    using Entry = std::pair<std::size_t, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    std::vector<bool> done(dom_.size(), false);
    for (int v = 0; v < static_cast<int>(dom_.size()); ++v)
      if (dom_[v] > 1) {
        queue.push({adj_[v].size(), v});
        ++plan.stats.variables;
      }
    std::vector<int> scope;
    while (!queue.empty()) {
      const auto [degree, v] = queue.top();
      queue.pop();
      if (done[v] || degree != adj_[v].size()) continue;
      done[v] = true;
      scope = adj_[v];
      // Eliminating v joins its neighbours into a clique.
      for (int u : scope) {
        std::vector<int>& list = adj_[u];
        list.erase(std::lower_bound(list.begin(), list.end(), v));
        for (int w : scope)
          if (w != u) insert_sorted(list, w);
        queue.push({list.size(), u});
      }
      std::size_t size = 1;
      for (int u : scope) {
        size *= static_cast<std::size_t>(dom_[u]);
        if (size > max_table_)
          throw InputError(graph_name(), "exact placement needs a table of more than " +
                                             std::to_string(max_table_) + " entries (interaction width " +
                                             std::to_string(scope.size()) +
                                             "); the graph is too densely connected for the exact solver");
      }
      plan.stats.induced_width = std::max(plan.stats.induced_width, scope.size());
      plan.stats.largest_table = std::max(plan.stats.largest_table, size * static_cast<std::size_t>(dom_[v]));
      plan.steps.push_back(
          {v, static_cast<std::uint32_t>(plan.scopes.size()), static_cast<std::uint32_t>(scope.size())});
      plan.scopes.insert(plan.scopes.end(), scope.begin(), scope.end());
    }
    return plan;
  }

  FlatGraph run(const SolvePlan& plan, SolveStats* stats) {
    if (plan.domains != dom_ || plan.num_edges != sg_.edges().size())
      throw std::invalid_argument("solve: the elimination plan was made for another stacked graph");
    for (const SolvePlan::Step& step : plan.steps)
      eliminate(step.var, std::span<const int>(plan.scopes.data() + step.scope_begin, step.scope_size));
    FlatGraph flat;
    flat.stacked = &sg_;
    flat.objective = objective_;
    flat.choice.assign(sg_.num_stacks(), 0);
    for (auto it = eliminations_.rbegin(); it != eliminations_.rend(); ++it) {
      std::size_t index = 0;
      for (std::uint32_t k = 0; k < it->scope_size; ++k) {
        const int u = elim_scopes_[it->scope_begin + k];
        index = index * static_cast<std::size_t>(dom_[u]) + static_cast<std::size_t>(flat.choice[u]);
      }
      flat.choice[it->var] = argmins_[it->argmin_begin + index];
    }
    flat.objective_value = sum_cost(sg_, flat.choice, cost_);
    if (stats) *stats = plan.stats;
    return flat;
  }

private:
  // A function of several variables as a dense table: scope ascending, the last variable fastest.
  struct Factor {
    std::uint32_t scope_begin, scope_size;
    std::size_t table_begin;
    bool alive;
  };
  // What eliminating one variable left for back-substitution: argmin per assignment of its scope.
  struct Elimination {
    int var;
    std::uint32_t scope_begin, scope_size;
    std::size_t argmin_begin;
  };

  double pick(const ir::Cost& c) const { return cost_(c); }
  double& unary(int v, int x) { return unary_[unary_begin_[v] + static_cast<std::uint32_t>(x)]; }
  const int* scope_of(const Factor& f) const { return factor_scopes_.data() + f.scope_begin; }

  static void insert_sorted(std::vector<int>& list, int value) {
    const auto at = std::lower_bound(list.begin(), list.end(), value);
    if (at == list.end() || *at != value) list.insert(at, value);
  }

  int add_factor(const int* scope, std::uint32_t size, const double* table, std::size_t entries) {
    const int id = static_cast<int>(factors_.size());
    factors_.push_back(
        {static_cast<std::uint32_t>(factor_scopes_.size()), size, factor_tables_.size(), true});
    factor_scopes_.insert(factor_scopes_.end(), scope, scope + size);
    factor_tables_.insert(factor_tables_.end(), table, table + entries);
    for (std::uint32_t k = 0; k < size; ++k)
      var_factors_[scope[k]].push_back(id);
    return id;
  }

  // The pairwise factor over (lo, hi), created on first use.
  int pair_factor(int lo, int hi) {
    for (int f : var_factors_[lo]) {
      const Factor& factor = factors_[f];
      if (factor.scope_size == 2 && scope_of(factor)[1] == hi) return f;
    }
    const int scope[2] = {lo, hi};
    scratch_table_.assign(static_cast<std::size_t>(dom_[lo] * dom_[hi]), 0.0);
    if (ordering_) {
      insert_sorted(adj_[lo], hi);
      insert_sorted(adj_[hi], lo);
    }
    return add_factor(scope, 2, scratch_table_.data(), scratch_table_.size());
  }

  // Edges into stacks without a choice become unary terms; the rest become one factor per pair.
  void add_edges() {
    for (const ir::StackEdge& e : sg_.edges()) {
      const int a = e.src, b = e.dst;
      if (a == b) continue;
      if (dom_[a] == 1 || dom_[b] == 1) {
        const int v = dom_[a] == 1 ? b : a;
        for (int x = 0; x < dom_[v]; ++x)
          unary(v, x) += pick(v == b ? sg_.edge_cost(e, 0, x) : sg_.edge_cost(e, x, 0));
        continue;
      }
      const int lo = std::min(a, b), hi = std::max(a, b);
      const std::size_t table = factors_[static_cast<std::size_t>(pair_factor(lo, hi))].table_begin;
      for (int i = 0; i < dom_[a]; ++i)
        for (int j = 0; j < dom_[b]; ++j) {
          const int x_lo = a == lo ? i : j, x_hi = a == lo ? j : i;
          factor_tables_[table + static_cast<std::size_t>(x_lo * dom_[hi] + x_hi)] +=
              pick(sg_.edge_cost(e, i, j));
        }
    }
  }

  // Sums the live factors over v with v's unary term, minimises over v for every assignment of `scope`
  // (v's neighbours, ascending), records the argmins and leaves the result as a factor over `scope`.
  void eliminate(int v, std::span<const int> scope) {
    std::size_t size = 1;
    for (int u : scope)
      size *= static_cast<std::size_t>(dom_[u]);

    // For each live factor over v: where its table starts, the stride of v, the stride of each scope var.
    const std::size_t k_scope = scope.size();
    views_.clear();
    strides_.clear();
    for (int f : var_factors_[v]) {
      Factor& factor = factors_[static_cast<std::size_t>(f)];
      if (!factor.alive) continue;
      factor.alive = false;
      View view{factor.table_begin, 0};
      const std::size_t first = strides_.size();
      strides_.resize(first + k_scope, 0);
      std::size_t stride = 1;
      for (std::uint32_t k = factor.scope_size; k-- > 0;) {
        const int u = scope_of(factor)[k];
        if (u == v) {
          view.v_stride = stride;
        } else {
          const auto at = std::lower_bound(scope.begin(), scope.end(), u);
          if (at == scope.end() || *at != u)
            throw std::invalid_argument("solve: the elimination plan does not match this stacked graph");
          strides_[first + static_cast<std::size_t>(at - scope.begin())] = stride;
        }
        stride *= static_cast<std::size_t>(dom_[u]);
      }
      views_.push_back(view);
    }

    const Elimination record{v, static_cast<std::uint32_t>(elim_scopes_.size()),
                             static_cast<std::uint32_t>(k_scope), argmins_.size()};
    elim_scopes_.insert(elim_scopes_.end(), scope.begin(), scope.end());
    argmins_.resize(argmins_.size() + size);
    scratch_table_.resize(size);
    digits_.assign(k_scope, 0);
    base_.resize(views_.size());
    const double* unary_v = &unary(v, 0);
    for (std::size_t f = 0; f < views_.size(); ++f)
      base_[f] = views_[f].table_begin; // where each factor's entry for the current assignment starts
    for (std::size_t a = 0; a < size; ++a) {
      double best = std::numeric_limits<double>::infinity();
      int best_x = 0;
      for (int x = 0; x < dom_[v]; ++x) {
        double value = unary_v[x];
        for (std::size_t f = 0; f < views_.size(); ++f)
          value += factor_tables_[base_[f] + static_cast<std::size_t>(x) * views_[f].v_stride];
        if (value < best) {
          best = value;
          best_x = x;
        }
      }
      scratch_table_[a] = best;
      argmins_[record.argmin_begin + a] = static_cast<std::uint16_t>(best_x);
      for (std::size_t k = k_scope; k-- > 0;) { // odometer, last variable fastest; bases follow it
        if (++digits_[k] < dom_[scope[k]]) {
          for (std::size_t f = 0; f < views_.size(); ++f)
            base_[f] += strides_[f * k_scope + k];
          break;
        }
        for (std::size_t f = 0; f < views_.size(); ++f)
          base_[f] -= static_cast<std::size_t>(digits_[k] - 1) * strides_[f * k_scope + k];
        digits_[k] = 0;
      }
    }
    eliminations_.push_back(record);

    if (k_scope == 1) {
      for (int x = 0; x < dom_[scope[0]]; ++x)
        unary(scope[0], x) += scratch_table_[static_cast<std::size_t>(x)];
    } else if (k_scope > 1) {
      add_factor(scope.data(), static_cast<std::uint32_t>(k_scope), scratch_table_.data(), size);
    }
  }

  std::string graph_name() const { return sg_.has_graph() ? sg_.graph().source : ""; }

  struct View {
    std::size_t table_begin, v_stride;
  };

  const ir::StackedGraph& sg_;
  LinearCost cost_;
  Objective objective_;
  std::size_t max_table_;
  bool ordering_;
  std::vector<int> dom_;
  std::vector<std::uint32_t> unary_begin_;
  std::vector<double> unary_;
  std::vector<Factor> factors_;
  std::vector<int> factor_scopes_;
  std::vector<double> factor_tables_;
  std::vector<std::vector<int>> var_factors_;
  std::vector<std::vector<int>> adj_; // sorted neighbour lists of the interaction graph
  std::vector<Elimination> eliminations_;
  std::vector<int> elim_scopes_;
  std::vector<std::uint16_t> argmins_;
  // Scratch reused across eliminations.
  std::vector<View> views_;
  std::vector<std::size_t> strides_, base_;
  std::vector<int> digits_;
  std::vector<double> scratch_table_;
};

} // namespace

SolvePlan plan_elimination(const ir::StackedGraph& sg, const SolveOptions& options) {
  return Eliminator(sg, options, true).order();
}

FlatGraph solve(const ir::StackedGraph& sg, const SolveOptions& options, SolveStats* stats,
                SolvePlan* plan_out) {
  Eliminator eliminator(sg, options, true);
  SolvePlan plan = eliminator.order();
  FlatGraph flat = eliminator.run(plan, stats);
  if (plan_out) *plan_out = std::move(plan);
  return flat;
}

FlatGraph solve(const ir::StackedGraph& sg, const SolvePlan& plan, const SolveOptions& options,
                SolveStats* stats) {
  return Eliminator(sg, options, false).run(plan, stats);
}

} // namespace lightsim::sched
