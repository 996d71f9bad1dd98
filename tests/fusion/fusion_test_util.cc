#include "tests/fusion/fusion_test_util.h"

#include "ir/fusion/op_pattern.h"
#include "ir/graphgen/tvm_lower.h"
#include "ir/graphgen/tvm_writer.h"
#include "ir/topological_order.h"
#include "ir/tvm/tvm_import.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace lightsim::test {

ir::Graph import_exprs(const ir::graphgen::ExprGraph& exprs) {
  std::ostringstream text;
  ir::graphgen::write_tvm_graph(ir::graphgen::lower_to_tvm(exprs), text);
  return ir::import_tvm_graph(nlohmann::json::parse(text.str()), "test graph").graph;
}

std::vector<std::string> fused_bodies(const ir::fusion::FusionResult& r) {
  std::vector<std::string> bodies;
  for (const ir::Op& op : r.graph.ops)
    if (op.op_class != ir::OpClass::Input) bodies.emplace_back(ir::relay_ops_of(op.func_name));
  return bodies;
}

std::size_t count_body(const ir::fusion::FusionResult& r, const std::string& body) {
  const std::vector<std::string> bodies = fused_bodies(r);
  return static_cast<std::size_t>(std::count(bodies.begin(), bodies.end(), body));
}

void check_partition(const ir::Graph& original, const ir::fusion::FusionResult& r) {
  ASSERT_EQ(r.member_begin.size(), r.graph.ops.size() + 1);
  std::vector<int> group_of(original.ops.size(), -1);
  for (std::size_t g = 0; g < r.graph.ops.size(); ++g) {
    std::size_t anchors = 0, products = 0;
    for (ir::OpId m : r.members(static_cast<ir::OpId>(g))) {
      ASSERT_GE(m, 0);
      ASSERT_LT(static_cast<std::size_t>(m), original.ops.size());
      EXPECT_EQ(group_of[static_cast<std::size_t>(m)], -1) << "op " << m << " is in two groups";
      group_of[static_cast<std::size_t>(m)] = static_cast<int>(g);
      const ir::OpClass c = original.ops[static_cast<std::size_t>(m)].op_class;
      anchors += ir::fusion::op_pattern(c) == ir::fusion::OpPattern::OutEWiseFusable;
      products += c == ir::OpClass::BatchMatmul;
    }
    if (r.graph.ops[g].op_class == ir::OpClass::Attention)
      EXPECT_EQ(products, 2u) << r.graph.ops[g].name;
    else
      EXPECT_LE(anchors, 1u) << "two anchors in " << r.graph.ops[g].name;
  }
  for (std::size_t i = 0; i < original.ops.size(); ++i)
    EXPECT_GE(group_of[i], 0) << "op " << i << " '" << original.ops[i].name << "' is in no group";

  // The groups, joined by the original edges, form a DAG (no group would create a cycle).
  ir::PredecessorLists groups;
  std::vector<std::vector<std::size_t>> preds(r.graph.ops.size());
  for (std::size_t i = 0; i < original.ops.size(); ++i)
    for (ir::TensorId t : original.ops[i].inputs) {
      const auto from = static_cast<std::size_t>(
          group_of[static_cast<std::size_t>(original.tensors[static_cast<std::size_t>(t)].producer)]);
      const auto to = static_cast<std::size_t>(group_of[i]);
      if (from != to) preds[to].push_back(from);
    }
  for (const auto& p : preds) {
    groups.preds.insert(groups.preds.end(), p.begin(), p.end());
    groups.pred_begin.push_back(groups.preds.size());
  }
  EXPECT_TRUE(ir::stable_topological_order(groups).cycle.empty());

  // The fused graph reads only tensors produced before (it is ordered topologically).
  for (std::size_t i = 0; i < r.graph.ops.size(); ++i)
    for (ir::TensorId t : r.graph.ops[i].inputs)
      EXPECT_LT(r.graph.tensors[static_cast<std::size_t>(t)].producer, static_cast<ir::OpId>(i));
}

} // namespace lightsim::test
