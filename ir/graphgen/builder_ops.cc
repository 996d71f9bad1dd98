#include "ir/graphgen/builder_ops.h"

#include "ir/error.h"

#include <algorithm>
#include <cassert>

namespace lightsim::ir::graphgen::detail {
namespace {

std::string join(const Shape& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

Shape broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const std::int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    assert(da == db || da == 1 || db == 1);
    out[i] = std::max(da, db);
  }
  return out;
}

} // namespace

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw InputError("lightsim-graph",
                     "sizes " + std::to_string(a) + " x " + std::to_string(b) + " overflow 64 bits");
  return r;
}

ExprRef BuilderOps::reshape(ExprRef x, Shape s) {
  const DType t = g_.type(x).dtype;
  return g_.call("__nop", {x}, {std::move(s), t});
}

ExprRef BuilderOps::binary(const std::string& op, ExprRef a, ExprRef b) {
  return g_.call(op, {a, b}, {broadcast(shape(a), shape(b)), activation(g_.type(a).dtype)});
}

ExprRef BuilderOps::compare(const std::string& op, ExprRef a, ExprRef b) {
  return g_.call(op, {a, b}, {broadcast(shape(a), shape(b)), DType::Bool});
}

ExprRef BuilderOps::unary(const std::string& op, ExprRef x) {
  return g_.call(op, {x}, g_.type(x));
}

ExprRef BuilderOps::all_reduce(ExprRef x, std::int64_t workers) {
  const std::string n = std::to_string(workers);
  const ExprRef r = g_.call("ccl_allreduce", {x}, g_.type(x), "num_workers=" + n);
  g_.add_node_attr(r, "num_workers", n);
  return r;
}

ExprRef BuilderOps::where(ExprRef cond, ExprRef a, ExprRef b) {
  return g_.call("where", {cond, a, b},
                 {broadcast(broadcast(shape(cond), shape(a)), shape(b)), activation(g_.type(a).dtype)});
}

ExprRef BuilderOps::take(ExprRef table, ExprRef ids) {
  Shape s = shape(ids);
  s.push_back(shape(table).back());
  return g_.call("take", {table, ids}, {std::move(s), activation(g_.type(table).dtype)}, "axis=0");
}

ExprRef BuilderOps::dense(ExprRef x, ExprRef w) {
  assert(shape(x).size() == 2 && shape(w).size() == 2 && shape(x)[1] == shape(w)[1]);
  return g_.call("nn_dense", {x, w}, {{shape(x)[0], shape(w)[0]}, g_.type(x).dtype});
}

ExprRef BuilderOps::batch_matmul(ExprRef a, ExprRef b) {
  const Shape& sa = shape(a);
  const Shape& sb = shape(b);
  assert(sa.size() == 3 && sb.size() == 3 && sa[0] == sb[0] && sa[2] == sb[2]);
  return g_.call("nn_batch_matmul", {a, b}, {{sa[0], sa[1], sb[1]}, g_.type(a).dtype}, "transpose_b=1");
}

ExprRef BuilderOps::transpose(ExprRef x, const Shape& axes) {
  const Shape& in = shape(x);
  Shape out;
  for (std::int64_t a : axes)
    out.push_back(in[static_cast<std::size_t>(a)]);
  return g_.call("transpose", {x}, {std::move(out), g_.type(x).dtype}, "axes=" + join(axes));
}

ExprRef BuilderOps::mean_last(ExprRef x) {
  Shape s = shape(x);
  s.back() = 1;
  return g_.call("mean", {x}, {std::move(s), g_.type(x).dtype}, "axis=-1,keepdims=1");
}

ExprRef BuilderOps::softmax_last(ExprRef x) {
  return g_.call("nn_softmax", {x}, g_.type(x), "axis=-1");
}

ExprRef BuilderOps::strided_slice_last(ExprRef x, std::int64_t begin, std::int64_t end) {
  Shape s = shape(x);
  s.back() = end - begin;
  return g_.call("strided_slice", {x}, {std::move(s), g_.type(x).dtype},
                 "axis=-1,begin=" + std::to_string(begin) + ",end=" + std::to_string(end));
}

ExprRef BuilderOps::concatenate(const std::vector<ExprRef>& xs, std::int64_t axis) {
  Shape s = shape(xs[0]);
  const auto a = static_cast<std::size_t>(axis);
  s[a] = 0;
  for (const ExprRef& x : xs)
    s[a] += shape(x)[a];
  return g_.call("concatenate", xs, {std::move(s), activation(g_.type(xs[0]).dtype)},
                 "axis=" + std::to_string(axis));
}

std::vector<ExprRef> BuilderOps::split_last(ExprRef x, std::int64_t parts) {
  Shape s = shape(x);
  s.back() /= parts;
  std::vector<TensorType> outs(static_cast<std::size_t>(parts), TensorType{s, g_.type(x).dtype});
  return g_.call_multi("split", {x}, std::move(outs), "axis=-1,sections=" + std::to_string(parts));
}

std::vector<ExprRef> BuilderOps::split_sections_last(ExprRef x, const std::vector<std::int64_t>& sizes) {
  if (std::all_of(sizes.begin(), sizes.end(), [&](std::int64_t n) { return n == sizes.front(); }))
    return split_last(x, static_cast<std::int64_t>(sizes.size()));
  std::vector<ExprRef> parts;
  std::int64_t begin = 0;
  for (std::int64_t n : sizes) {
    parts.push_back(strided_slice_last(x, begin, begin + n));
    begin += n;
  }
  return parts;
}

} // namespace lightsim::ir::graphgen::detail
