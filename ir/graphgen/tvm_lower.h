// Lowering of an ExprGraph to TVM graph-executor nodes, reproducing what TVM's graph-executor codegen
// (Relay, opt_level 0, no fusion, target llvm) does with the same program:
// - node order: function inputs first, in declaration order; then a post-order depth-first walk from the
//   output tuple, arguments left to right, each expression once; constants become null nodes "p<k>"
//   numbered in the order the walk meets them;
// - func names: one primitive function per distinct (op, attrs, argument types, result types), named
//   `tvmgen_default_fused_<op>` for the first one met and `_<n>` for the n-th further variant; reshapes
//   are `__nop` nodes named "reshape_nop";
// - node names: the func name if still free, else `<func>_<k>` with the smallest free k >= 1;
// - storage ids: TVM's GraphPlanMemory (reshapes alias their input, inputs/constants/outputs are never
//   freed, a freed block is reused by a request within a factor 16 of its size, best fit from above first).
// The rules were read off the four real exports in ../shared/models and are checked against them by tests.
//
// It is not a writer (ir/graphgen/tvm_writer.h) and keeps no JSON.
#pragma once

#include "ir/graphgen/expr_graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lightsim::ir::graphgen {

struct TvmEntryRef {
  std::int32_t node = 0;
  std::int32_t index = 0;
};

struct TvmNode {
  std::int32_t expr = -1; // the ExprGraph expression it lowers (its outputs are the node's outputs)
  bool is_null = false;   // input or constant
  std::string name;
  std::string func_name; // empty for null nodes
  std::string hash;      // 16 hex digits, one per func variant (TVM hashes the primitive function)
  std::vector<TvmEntryRef> inputs;
};

struct TvmGraph {
  const ExprGraph* exprs = nullptr;
  std::vector<TvmNode> nodes;
  std::vector<std::int32_t> arg_nodes;
  std::vector<TvmEntryRef> heads;
  std::vector<std::int64_t> node_row_ptr; // nodes.size() + 1 entries
  std::vector<std::int64_t> storage_id;   // one per entry

  const TensorType& entry_type(std::int32_t node, std::int32_t index) const {
    return exprs->exprs()[nodes[node].expr].outputs[index];
  }
};

// `exprs` must outlive the result.
TvmGraph lower_to_tvm(const ExprGraph& exprs);

} // namespace lightsim::ir::graphgen
