#include "ir/graphgen/tvm_lower.h"

#include "ir/graphgen/tvm_plan.h"

#include <cstdio>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace lightsim::ir::graphgen {
namespace {

using detail::fnv1a_hex;
using detail::StoragePlanner;

constexpr std::string_view kFuncPrefix = "tvmgen_default_fused_";

std::string type_text(const TensorType& t) {
  std::string s(dtype_name(t.dtype));
  s += '[';
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(t.shape[i]);
  }
  return s + ']';
}

// Post-order walk from the outputs; returns expressions in TVM node order (inputs first).
std::vector<std::int32_t> node_order(const ExprGraph& g) {
  const std::vector<Expr>& exprs = g.exprs();
  std::vector<std::int32_t> order;
  std::vector<char> done(exprs.size(), 0);
  for (std::size_t i = 0; i < exprs.size(); ++i)
    if (exprs[i].kind == ExprKind::Input) {
      order.push_back(static_cast<std::int32_t>(i));
      done[i] = 1;
    }
  struct Frame {
    std::int32_t expr;
    std::size_t next_arg;
  };
  std::vector<Frame> stack;
  for (const ExprRef& out : g.outputs()) {
    if (done[out.expr]) continue;
    stack.push_back({out.expr, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      const Expr& e = exprs[f.expr];
      if (f.next_arg < e.args.size()) {
        const std::int32_t a = e.args[f.next_arg++].expr;
        if (!done[a]) {
          if (exprs[a].kind != ExprKind::Call) {
            done[a] = 1;
            order.push_back(a);
          } else {
            stack.push_back({a, 0});
          }
        }
        continue;
      }
      if (!done[f.expr]) {
        done[f.expr] = 1;
        order.push_back(f.expr);
      }
      stack.pop_back();
    }
  }
  return order;
}

} // namespace

TvmGraph lower_to_tvm(const ExprGraph& g) {
  const std::vector<Expr>& exprs = g.exprs();
  TvmGraph out;
  out.exprs = &g;
  const std::vector<std::int32_t> order = node_order(g);

  std::vector<std::int32_t> node_of(exprs.size(), -1);
  for (std::size_t n = 0; n < order.size(); ++n)
    node_of[order[n]] = static_cast<std::int32_t>(n);

  // Uses of every expression output: by calls (each argument slot) and by the output tuple.
  std::vector<std::vector<std::int64_t>> uses(exprs.size());
  for (std::size_t i = 0; i < exprs.size(); ++i)
    uses[i].assign(exprs[i].outputs.size(), 0);
  for (const Expr& e : exprs)
    for (const ExprRef& a : e.args)
      ++uses[a.expr][a.index];
  for (const ExprRef& o : g.outputs())
    ++uses[o.expr][o.index];

  out.nodes.reserve(order.size());
  out.node_row_ptr.reserve(order.size() + 1);
  out.node_row_ptr.push_back(0);
  std::unordered_map<std::string, std::string> func_of_key; // variant key -> func name
  std::unordered_map<std::string, std::int64_t> variants;   // op -> variants named so far
  std::unordered_set<std::string> used_names;
  std::unordered_map<std::string, std::int64_t> name_counter;
  std::int64_t constants = 0;

  StoragePlanner planner;
  std::vector<std::vector<std::int32_t>> token_of(exprs.size());

  for (std::int32_t expr_id : order) {
    const Expr& e = exprs[expr_id];
    TvmNode node;
    node.expr = expr_id;
    const auto node_id = static_cast<std::int32_t>(out.nodes.size());
    if (e.kind != ExprKind::Call) {
      node.is_null = true;
      node.name = e.kind == ExprKind::Input ? e.name : "p" + std::to_string(constants++);
      out.arg_nodes.push_back(node_id);
      token_of[expr_id].push_back(
          planner.alloc_pinned(checked_bytes(e.outputs[0], node.name), uses[expr_id][0]));
    } else {
      std::string key = e.name + '|' + e.attrs + '|';
      for (const ExprRef& a : e.args) {
        node.inputs.push_back({node_of[a.expr], a.index});
        key += type_text(g.type(a)) + ';';
      }
      key += "->";
      for (const TensorType& t : e.outputs)
        key += type_text(t) + ';';
      auto [it, fresh] = func_of_key.try_emplace(key);
      const bool is_nop = e.name == "__nop";
      if (fresh) {
        if (is_nop) {
          it->second = "__nop";
        } else {
          const std::int64_t k = variants[e.name]++;
          it->second = std::string(kFuncPrefix) + e.name + (k ? "_" + std::to_string(k) : "");
        }
      }
      node.func_name = it->second;
      node.hash = fnv1a_hex(key);
      if (is_nop) {
        node.name = "reshape_nop";
      } else if (used_names.insert(node.func_name).second) {
        node.name = node.func_name;
      } else {
        std::int64_t& c = name_counter.try_emplace(node.func_name, 1).first->second;
        while (used_names.count(node.func_name + "_" + std::to_string(c)))
          ++c;
        node.name = node.func_name + "_" + std::to_string(c++);
        used_names.insert(node.name);
      }
      // Storage: reshapes alias their input; other calls request one block per output.
      if (is_nop) {
        const ExprRef a = e.args[0];
        const std::int32_t tok = token_of[a.expr][a.index];
        planner.add_refs(tok, uses[expr_id][0]);
        token_of[expr_id].push_back(tok);
      } else {
        for (std::size_t k = 0; k < e.outputs.size(); ++k)
          token_of[expr_id].push_back(
              planner.request(checked_bytes(e.outputs[k], node.name), uses[expr_id][k]));
      }
      for (std::int32_t tok : token_of[expr_id])
        planner.check_release(tok);
      for (const ExprRef& a : e.args)
        planner.release_one(token_of[a.expr][a.index]);
    }
    for (std::int32_t tok : token_of[expr_id])
      out.storage_id.push_back(planner.storage_id(tok));
    out.node_row_ptr.push_back(out.node_row_ptr.back() + static_cast<std::int64_t>(e.outputs.size()));
    out.nodes.push_back(std::move(node));
  }
  for (const ExprRef& o : g.outputs())
    out.heads.push_back({node_of[o.expr], o.index});
  return out;
}

} // namespace lightsim::ir::graphgen
