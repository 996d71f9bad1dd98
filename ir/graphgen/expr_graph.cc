#include "ir/graphgen/expr_graph.h"

#include "ir/error.h"

#include <cassert>
#include <utility>

namespace lightsim::ir::graphgen {

std::uint64_t checked_bytes(const TensorType& type, const std::string& what) {
  std::uint64_t elements = 1;
  const auto overflow = [&] {
    return InputError("lightsim-graph", what + ": tensor byte size overflows 64 bits");
  };
  for (std::int64_t dim : type.shape) {
    if (dim <= 0)
      throw InputError("lightsim-graph", what + " has a non-positive dimension " + std::to_string(dim));
    if (__builtin_mul_overflow(elements, static_cast<std::uint64_t>(dim), &elements)) throw overflow();
  }
  const std::optional<std::uint64_t> packed = dtype_tensor_bytes(type.dtype, elements);
  if (!packed) throw overflow();
  const std::uint64_t bytes = *packed;
  // Element counts must also fit in a signed 64-bit integer (TVM's shape type).
  if (bytes > static_cast<std::uint64_t>(INT64_MAX) || elements > static_cast<std::uint64_t>(INT64_MAX))
    throw InputError("lightsim-graph", what + ": tensor byte size overflows 64 bits");
  return bytes;
}

namespace {
void check(const TensorType& t, const Expr& e) {
  checked_bytes(t, e.kind == ExprKind::Call    ? "output of " + e.name
                   : e.kind == ExprKind::Input ? e.name
                                               : "constant");
}
} // namespace

ExprRef ExprGraph::input(std::string name, TensorType type) {
  Expr e;
  e.kind = ExprKind::Input;
  e.name = std::move(name);
  e.outputs.push_back(std::move(type));
  check(e.outputs[0], e);
  exprs_.push_back(std::move(e));
  return {static_cast<std::int32_t>(exprs_.size() - 1), 0};
}

ExprRef ExprGraph::constant(TensorType type) {
  Expr e;
  e.kind = ExprKind::Constant;
  e.outputs.push_back(std::move(type));
  check(e.outputs[0], e);
  exprs_.push_back(std::move(e));
  return {static_cast<std::int32_t>(exprs_.size() - 1), 0};
}

ExprRef ExprGraph::call(std::string op, std::vector<ExprRef> args, TensorType out, std::string attrs) {
  return call_multi(std::move(op), std::move(args), {std::move(out)}, std::move(attrs))[0];
}

std::vector<ExprRef> ExprGraph::call_multi(std::string op, std::vector<ExprRef> args,
                                           std::vector<TensorType> outs, std::string attrs) {
  Expr e;
  e.kind = ExprKind::Call;
  e.name = std::move(op);
  e.attrs = std::move(attrs);
  for ([[maybe_unused]] const ExprRef& a : args) {
    assert(a.expr >= 0 && static_cast<std::size_t>(a.expr) < exprs_.size());
    assert(a.index >= 0 && static_cast<std::size_t>(a.index) < exprs_[a.expr].outputs.size());
  }
  e.args = std::move(args);
  e.outputs = std::move(outs);
  for (const TensorType& t : e.outputs)
    check(t, e);
  exprs_.push_back(std::move(e));
  std::vector<ExprRef> refs;
  const auto id = static_cast<std::int32_t>(exprs_.size() - 1);
  for (std::size_t i = 0; i < exprs_.back().outputs.size(); ++i)
    refs.push_back({id, static_cast<std::int32_t>(i)});
  return refs;
}

const TensorType& ExprGraph::type(ExprRef r) const {
  return exprs_[r.expr].outputs[r.index];
}

} // namespace lightsim::ir::graphgen
