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

// Exhaustive minimum over all assignments (depth-first, stacks in index order).
double brute_force(const ir::StackedGraph& sg, Objective objective) {
  const std::size_t n = sg.num_stacks();
  std::vector<int> choice(n, 0);
  double best = INFINITY;
  for (;;) {
    best = std::min(best, sum_objective(sg, choice, objective));
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
    for (Objective objective : {Objective::Time, Objective::Energy}) {
      const FlatGraph flat = solve(sg, {objective});
      const double expected = brute_force(sg, objective);
      ASSERT_NEAR(flat.objective_value, expected, 1e-9 * std::max(1.0, expected))
          << "round " << round << " objective " << objective_name(objective) << " stacks " << sg.num_stacks();
      // The reported value is the value of the returned choice.
      ASSERT_DOUBLE_EQ(flat.objective_value, sum_objective(sg, flat.choice, objective));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 2400);
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
    for (Objective objective : {Objective::Time, Objective::Energy}) {
      const FlatGraph fresh = solve(sg, {objective});
      const FlatGraph planned = solve(sg, plan, {objective});
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
  EXPECT_NEAR(flat.objective_value, brute_force(sg, Objective::Time), 1e-9);
}

} // namespace
} // namespace lightsim::sched
