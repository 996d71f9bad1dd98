// The exact solver against brute force on random stacked graphs (chains, diamonds, residual skips,
// parallel edges), and its behaviour on ties and on graphs too dense to solve exactly.
#include "ir/error.h"
#include "scheduler/solver.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <stdexcept>

namespace lightsim::sched {
namespace {

using ir::Cost;
using ir::StackEdge;
using ir::StackNode;

struct RandomStacked {
  std::vector<std::vector<StackNode>> stacks;
  std::vector<StackEdge> edges;
  std::vector<std::vector<Cost>> matrices;

  ir::StackedGraph build() const { return ir::StackedGraph::from_parts(stacks, edges, matrices); }
};

// Seconds, joules, and a surrogate's mix of both.
constexpr LinearCost kCosts[] = {LinearCost::seconds(), LinearCost::joules(), LinearCost{193, 1}};

// Costs are small integers half of the time, so ties are common and exactness is tested on them too.
double random_cost(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> coin(0, 1);
  if (coin(rng)) return std::uniform_int_distribution<int>(0, 4)(rng);
  return std::uniform_real_distribution<double>(0.0, 10.0)(rng);
}

void add_edge(RandomStacked& g, int src, int dst, std::mt19937_64& rng) {
  g.edges.push_back({src, dst, static_cast<ir::TensorId>(g.edges.size()), 0});
  std::vector<Cost> matrix;
  for (std::size_t i = 0; i < g.stacks[src].size() * g.stacks[dst].size(); ++i)
    matrix.push_back({random_cost(rng), random_cost(rng)});
  g.matrices.push_back(std::move(matrix));
}

// A random DAG on <= 14 stacks of 1-3 nodes: a backbone chain, residual skips, diamonds (fork/join),
// occasional parallel edges and long skips.
RandomStacked random_stacked(std::mt19937_64& rng) {
  RandomStacked g;
  const int n = std::uniform_int_distribution<int>(1, 14)(rng);
  for (int i = 0; i < n; ++i) {
    const int k = std::uniform_int_distribution<int>(1, 3)(rng);
    std::vector<StackNode> nodes;
    for (int j = 0; j < k; ++j)
      nodes.push_back({j, {random_cost(rng), random_cost(rng)}});
    g.stacks.push_back(std::move(nodes));
  }
  std::uniform_real_distribution<double> p(0.0, 1.0);
  const int shape = std::uniform_int_distribution<int>(0, 3)(rng);
  for (int i = 1; i < n; ++i) {
    const bool chain = shape != 3 || p(rng) < 0.5;
    if (chain) add_edge(g, i - 1, i, rng);
    if (shape >= 1 && i >= 2 && p(rng) < 0.35) add_edge(g, i - 2, i, rng); // residual skip / diamond join
    if (shape >= 2 && i >= 3 && p(rng) < 0.2)
      add_edge(g, std::uniform_int_distribution<int>(0, i - 3)(rng), i, rng); // long skip
    if (p(rng) < 0.05) add_edge(g, i - 1, i, rng);                            // parallel edge
  }
  return g;
}

// Exhaustive minimum over all assignments (depth-first, stacks in index order), with per-node extras.
double brute_force(const ir::StackedGraph& sg, LinearCost cost, const std::vector<double>& extra = {}) {
  const std::size_t n = sg.num_stacks();
  std::vector<int> choice(n, 0);
  double best = INFINITY;
  for (;;) {
    double value = sum_cost(sg, choice, cost);
    if (!extra.empty())
      for (std::size_t k = 0; k < n; ++k)
        value += extra[sg.first_node(static_cast<ir::OpId>(k)) + static_cast<std::size_t>(choice[k])];
    best = std::min(best, value);
    std::size_t k = 0;
    for (; k < n; ++k) {
      if (++choice[k] < static_cast<int>(sg.nodes(static_cast<ir::OpId>(k)).size())) break;
      choice[k] = 0;
    }
    if (k == n) break;
  }
  return best;
}

TEST(Solver, EqualsBruteForceOnRandomStackedGraphs) {
  std::mt19937_64 rng(20261122);
  int cases = 0;
  for (int round = 0; round < 1200; ++round) {
    const RandomStacked g = random_stacked(rng);
    const ir::StackedGraph sg = g.build();
    for (LinearCost cost : kCosts) {
      const FlatGraph flat = solve(sg, {cost});
      const double expected = brute_force(sg, cost);
      ASSERT_NEAR(flat.objective_value, expected, 1e-9 * std::max(1.0, expected))
          << "round " << round << " cost " << cost.per_s << " s + " << cost.per_j << " J, stacks "
          << sg.num_stacks();
      // The reported value is the value of the returned choice.
      ASSERT_DOUBLE_EQ(flat.objective_value, sum_cost(sg, flat.choice, cost));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 3600);
}

// Per-node extras (capacity prices; +infinity forbids a node) are minimised with the costs, exactly, and
// left out of the reported value.
TEST(Solver, AddsPerNodeExtrasExactly) {
  std::mt19937_64 rng(20261124);
  for (int round = 0; round < 400; ++round) {
    const ir::StackedGraph sg = random_stacked(rng).build();
    std::vector<double> extra(sg.num_nodes(), 0.0);
    for (std::size_t op = 0; op < sg.num_stacks(); ++op) {
      const std::size_t first = sg.first_node(static_cast<ir::OpId>(op));
      for (std::size_t j = 0; j < sg.nodes(static_cast<ir::OpId>(op)).size(); ++j)
        extra[first + j] =
            j > 0 && std::uniform_int_distribution<int>(0, 5)(rng) == 0 ? INFINITY : random_cost(rng);
    }
    const SolvePlan plan = plan_elimination(sg);
    SolveOptions options{LinearCost{0.5, 1}};
    options.node_extra = extra;
    const FlatGraph flat = solve(sg, plan, options);
    double with_extra = flat.objective_value;
    for (std::size_t op = 0; op < sg.num_stacks(); ++op)
      with_extra +=
          extra[sg.first_node(static_cast<ir::OpId>(op)) + static_cast<std::size_t>(flat.choice[op])];
    const double expected = brute_force(sg, options.cost, extra);
    ASSERT_NEAR(with_extra, expected, 1e-9 * std::max(1.0, expected)) << "round " << round;
    ASSERT_DOUBLE_EQ(flat.objective_value, sum_cost(sg, flat.choice, options.cost));
  }
}

// A plan made on one graph solves a re-costed copy of it exactly (the retrain loop's re-solve); a plan
// for another structure is refused.
TEST(Solver, PlanFromOneCostingSolvesAnotherExactly) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    const RandomStacked g = random_stacked(rng);
    const SolvePlan plan = plan_elimination(g.build());
    RandomStacked recosted = g;
    for (auto& stack : recosted.stacks)
      for (StackNode& node : stack)
        node.cost = {random_cost(rng), random_cost(rng)};
    for (auto& matrix : recosted.matrices)
      for (Cost& c : matrix)
        c = {random_cost(rng), random_cost(rng)};
    const ir::StackedGraph sg = recosted.build();
    for (LinearCost cost : kCosts) {
      const FlatGraph fresh = solve(sg, {cost});
      const FlatGraph planned = solve(sg, plan, {cost});
      ASSERT_EQ(planned.choice, fresh.choice) << "round " << round;
      ASSERT_EQ(planned.objective_value, fresh.objective_value) << "round " << round;
    }
  }
  RandomStacked chain;
  for (int i = 0; i < 3; ++i)
    chain.stacks.push_back({{0, {1, 1}}, {1, {2, 2}}});
  add_edge(chain, 0, 1, rng);
  add_edge(chain, 1, 2, rng);
  const SolvePlan plan = plan_elimination(chain.build());
  RandomStacked wider = chain;
  wider.stacks[1].push_back({2, {3, 3}});
  wider.matrices = {};
  std::mt19937_64 other(1);
  wider.edges.clear();
  add_edge(wider, 0, 1, other);
  add_edge(wider, 1, 2, other);
  EXPECT_THROW(solve(wider.build(), plan), std::invalid_argument);
}

TEST(Solver, TiesGoToTheLowerNodeIndex) {
  RandomStacked g;
  g.stacks = {{{0, {1, 1}}, {1, {1, 1}}}, {{0, {2, 2}}, {1, {2, 2}}, {2, {2, 2}}}};
  g.edges = {{0, 1, 0, 0}};
  g.matrices = {std::vector<Cost>(6, Cost{0.5, 0.5})};
  const FlatGraph flat = solve(g.build());
  EXPECT_EQ(flat.choice, (std::vector<int>{0, 0}));
  EXPECT_DOUBLE_EQ(flat.objective_value, 3.5);
}

TEST(Solver, PrefersCheapTransfersOverCheapNodes) {
  // Node 1 of the middle stack is cheapest alone, but moving data to and from it costs more.
  RandomStacked g;
  g.stacks = {{{0, {0, 0}}}, {{0, {5, 0}}, {1, {1, 0}}}, {{0, {0, 0}}}};
  g.edges = {{0, 1, 0, 0}, {1, 2, 1, 0}};
  g.matrices = {{{0, 0}, {3, 0}}, {{0, 0}, {3, 0}}};
  const FlatGraph flat = solve(g.build());
  EXPECT_EQ(flat.choice[1], 0);
  EXPECT_DOUBLE_EQ(flat.objective_value, 5);
}

TEST(Solver, RefusesTablesBeyondTheLimit) {
  // A clique of 6 three-way stacks needs a 3^5-entry table; allow only 100 entries.
  std::mt19937_64 rng(7);
  RandomStacked g;
  for (int i = 0; i < 6; ++i)
    g.stacks.push_back({{0, {1, 1}}, {1, {2, 2}}, {2, {3, 3}}});
  for (int i = 0; i < 6; ++i)
    for (int j = i + 1; j < 6; ++j)
      add_edge(g, i, j, rng);
  const ir::StackedGraph sg = g.build();
  SolveOptions options;
  options.max_table_entries = 100;
  try {
    solve(sg, options);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("interaction width"), std::string::npos) << e.what();
  }
  SolveStats stats;
  const FlatGraph flat = solve(sg, {}, &stats);
  EXPECT_EQ(stats.induced_width, 5u);
  EXPECT_NEAR(flat.objective_value, brute_force(sg, LinearCost::seconds()), 1e-9);
}

} // namespace
} // namespace lightsim::sched
