// The evaluator of shape subgraphs (ir/onnx/values.h: fold). Every op works on the operands' values
// through the same index arithmetic (broadcasting, gather, slice, reduction); results that would overflow
// int64, divide by zero or leave a float unrepresentable in the integer type are not folded.
#include "ir/onnx/values.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <onnx/onnx_pb.h>
#include <string_view>

namespace lightsim::ir::onnxio {
namespace {

using Index = std::vector<std::int64_t>;

Index strides_of(const Shape& s) {
  Index st(s.size(), 1);
  for (std::size_t d = s.size(); d-- > 1;)
    st[d - 1] = st[d] * s[d];
  return st;
}

// The input element that output element `i` of a broadcast reads.
std::size_t broadcast_source(std::size_t i, const Shape& out, const Index& out_st, const Shape& in,
                             const Index& in_st) {
  std::size_t src = 0;
  const std::size_t offset = out.size() - in.size();
  for (std::size_t d = 0; d < out.size(); ++d) {
    const auto coord = static_cast<std::int64_t>(i) / out_st[d] % out[d];
    if (d >= offset && in[d - offset] != 1) src += static_cast<std::size_t>(coord * in_st[d - offset]);
  }
  return src;
}

std::int64_t attr_int(const ::onnx::NodeProto& node, std::string_view name, std::int64_t fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

const ::onnx::AttributeProto* attr(const ::onnx::NodeProto& node, std::string_view name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// Stores `x` as an element of type `t`: integers wrap to the type's width (as a cast does), floats are
// rounded to float32 where the type is; false when a float does not fit an integer type.
bool put(Values& out, DType t, double x) {
  if (is_float_type(t)) {
    out.floats.push_back(t == DType::Float32 ? static_cast<double>(static_cast<float>(x)) : x);
    return true;
  }
  if (t == DType::Bool) {
    out.ints.push_back(x != 0);
    return true;
  }
  if (!std::isfinite(x) || std::fabs(x) >= 9.2e18) return false;
  out.ints.push_back(static_cast<std::int64_t>(x));
  return true;
}

std::int64_t wrap(std::int64_t v, DType t) {
  const unsigned bits = dtype_bits(t);
  if (bits >= 64 || t == DType::Bool) return t == DType::Bool ? (v != 0) : v;
  const auto mask = (std::uint64_t{1} << bits) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  const bool is_signed = t == DType::Int8 || t == DType::Int16 || t == DType::Int32;
  if (is_signed && (u >> (bits - 1))) u |= ~mask;
  return static_cast<std::int64_t>(u);
}

Values empty_like(DType t) {
  Values v;
  v.is_float = is_float_type(t);
  return v;
}

// Integer arithmetic of op `op` on a and b; false on overflow or division by zero.
bool int_op(std::string_view op, std::int64_t a, std::int64_t b, bool fmod, std::int64_t& r) {
  if (op == "Add" || op == "Sum") return !__builtin_add_overflow(a, b, &r);
  if (op == "Sub") return !__builtin_sub_overflow(a, b, &r);
  if (op == "Mul") return !__builtin_mul_overflow(a, b, &r);
  if (op == "Max") return r = std::max(a, b), true;
  if (op == "Min") return r = std::min(a, b), true;
  if (b == 0 || (a == INT64_MIN && b == -1)) return false;
  if (op == "Div") return r = a / b, true;
  if (op == "Mod") {
    r = a % b;
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
    return true;
  }
  return false;
}

double float_op(std::string_view op, double a, double b, bool fmod) {
  if (op == "Add" || op == "Sum") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a / b;
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Pow") return std::pow(a, b);
  if (op == "Mod") return fmod ? std::fmod(a, b) : a - b * std::floor(a / b);
  return NAN;
}

bool compare_op(std::string_view op, double a, double b) {
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  if (op == "And") return a != 0 && b != 0;
  if (op == "Or") return a != 0 || b != 0;
  return (a != 0) != (b != 0); // Xor
}

bool is_compare(std::string_view op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual" ||
         op == "And" || op == "Or" || op == "Xor";
}

// Elementwise with broadcasting over two operands.
bool binary(std::string_view op, const ::onnx::NodeProto& node, const Operand& a, const Operand& b,
            const Shape& out, DType out_t, Values& r) {
  const Index ost = strides_of(out), ast = strides_of(*a.shape), bst = strides_of(*b.shape);
  const std::optional<std::int64_t> n = element_count(out);
  const bool fmod = attr_int(node, "fmod", 0) != 0;
  const bool floats = a.values->is_float || b.values->is_float;
  r = empty_like(out_t);
  for (std::size_t i = 0; i < static_cast<std::size_t>(*n); ++i) {
    const std::size_t ia = broadcast_source(i, out, ost, *a.shape, ast),
                      ib = broadcast_source(i, out, ost, *b.shape, bst);
    if (is_compare(op)) {
      r.ints.push_back(compare_op(op, a.values->number(ia), b.values->number(ib)));
    } else if (!floats && op != "Pow") {
      std::int64_t v = 0;
      if (!int_op(op, a.values->ints[ia], b.values->ints[ib], fmod, v)) return false;
      r.ints.push_back(wrap(v, out_t));
    } else if (!put(r, out_t, float_op(op, a.values->number(ia), b.values->number(ib), fmod))) {
      return false;
    }
  }
  return true;
}

bool unary(std::string_view op, const Operand& a, DType out_t, Values& r) {
  r = empty_like(out_t);
  for (std::size_t i = 0; i < a.values->size(); ++i) {
    const double x = a.values->number(i);
    double y = x;
    if (op == "Neg") {
      if (!a.values->is_float) {
        if (a.values->ints[i] == INT64_MIN) return false;
        r.ints.push_back(-a.values->ints[i]);
        continue;
      }
      y = -x;
    } else if (op == "Abs") {
      if (!a.values->is_float) {
        if (a.values->ints[i] == INT64_MIN) return false;
        r.ints.push_back(std::llabs(a.values->ints[i]));
        continue;
      }
      y = std::fabs(x);
    } else if (op == "Floor")
      y = std::floor(x);
    else if (op == "Ceil")
      y = std::ceil(x);
    else if (op == "Round")
      y = std::nearbyint(x);
    else if (op == "Sqrt")
      y = std::sqrt(x);
    else if (op == "Reciprocal")
      y = 1 / x;
    else if (op == "Not")
      y = x == 0;
    else if (op == "Sign")
      y = (x > 0) - (x < 0);
    else if (op == "Relu")
      y = std::max(x, 0.0);
    else if (op == "Cast" && !a.values->is_float && !is_float_type(out_t)) {
      r.ints.push_back(wrap(a.values->ints[i], out_t));
      continue;
    } else if (op != "Cast" && op != "CastLike")
      return false;
    if (!put(r, out_t, y)) return false;
  }
  return true;
}

// Output element i of a gather along `axis` of `data` by `idx`.
bool gather(const Operand& data, const Operand& idx, std::int64_t axis, const Shape& out, Values& r) {
  const Shape& d = *data.shape;
  const std::int64_t outer = element_count(Shape(d.begin(), d.begin() + axis)).value_or(0);
  const std::int64_t inner = element_count(Shape(d.begin() + axis + 1, d.end())).value_or(0);
  const std::int64_t dim = d[static_cast<std::size_t>(axis)];
  r = empty_like(data.dtype);
  (void)out;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::size_t k = 0; k < idx.values->size(); ++k) {
      std::int64_t j = idx.values->ints[k];
      if (j < 0) j += dim;
      if (j < 0 || j >= dim) return false;
      for (std::int64_t in = 0; in < inner; ++in) {
        const auto src = static_cast<std::size_t>((o * dim + j) * inner + in);
        if (data.values->is_float)
          r.floats.push_back(data.values->floats[src]);
        else
          r.ints.push_back(data.values->ints[src]);
      }
    }
  return true;
}

// Copies the input elements that output elements map to (`source(i)`), for slices and transposes.
template <class Source> void remap(const Values& in, std::size_t n, const Source& source, Values& r) {
  r.is_float = in.is_float;
  for (std::size_t i = 0; i < n; ++i)
    if (in.is_float)
      r.floats.push_back(in.floats[source(i)]);
    else
      r.ints.push_back(in.ints[source(i)]);
}

} // namespace

bool fold(const ::onnx::NodeProto& node, int version, const std::vector<Operand>& in,
          const std::vector<std::pair<const Shape*, DType>>& out, std::vector<Values>& results) {
  const std::string& op = node.op_type();
  results.clear();
  for (const auto& [shape, dtype] : out) {
    const std::optional<std::int64_t> n = element_count(*shape);
    if (!n || *n > kMaxFoldElements) return false;
    (void)dtype;
  }
  if (out.empty()) return false;
  const Shape& oshape = *out[0].first;
  const DType ot = out[0].second;
  Values r = empty_like(ot);
  if (op == "Shape") {
    const Shape& s = *in.at(0).shape;
    const auto rank = static_cast<std::int64_t>(s.size());
    std::int64_t start = attr_int(node, "start", 0);
    start = std::clamp(start < 0 ? start + rank : start, std::int64_t{0}, rank);
    for (std::int64_t k = 0; k < oshape[0]; ++k)
      r.ints.push_back(s[static_cast<std::size_t>(start + k)]);
    results.push_back(std::move(r));
    return true;
  }
  if (op == "Size") {
    r.ints.push_back(element_count(*in.at(0).shape).value_or(0));
    results.push_back(std::move(r));
    return true;
  }
  if (op == "Constant") {
    const ::onnx::AttributeProto& a = node.attribute(0);
    if (a.name() == "value") {
      std::optional<Values> v = tensor_values(a.t(), ot, oshape);
      if (!v) return false;
      results.push_back(std::move(*v));
    } else if (a.name() == "value_float")
      r.floats.push_back(a.f());
    else if (a.name() == "value_int")
      r.ints.push_back(a.i());
    else if (a.name() == "value_floats")
      r.floats.assign(a.floats().begin(), a.floats().end());
    else
      r.ints.assign(a.ints().begin(), a.ints().end());
    if (results.empty()) results.push_back(std::move(r));
    return true;
  }
  for (const Operand& o : in)
    if (o.shape && !o.values) return false;
  const std::size_t n = static_cast<std::size_t>(*element_count(oshape));
  if (op == "ConstantOfShape") {
    const ::onnx::AttributeProto* value = attr(node, "value");
    double x = 0;
    if (value) {
      std::optional<Values> v = tensor_values(value->t(), ot, {1});
      if (!v || v->size() != 1) return false;
      x = v->number(0);
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!put(r, ot, x)) return false;
  } else if (op == "Range") {
    const double start = in[0].values->number(0), delta = in[2].values->number(0);
    for (std::size_t i = 0; i < n; ++i)
      if (!put(r, ot, start + static_cast<double>(i) * delta)) return false;
  } else if (op == "Identity" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten" ||
             op == "Dropout") {
    r = *in[0].values;
  } else if (op == "Cast" || op == "CastLike" || op == "Neg" || op == "Abs" || op == "Floor" ||
             op == "Ceil" || op == "Round" || op == "Sqrt" || op == "Reciprocal" || op == "Not" ||
             op == "Sign" || op == "Relu") {
    if (!unary(op, in[0], ot, r)) return false;
  } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Pow" ||
             is_compare(op) || ((op == "Max" || op == "Min" || op == "Sum") && in.size() == 2)) {
    if (!binary(op, node, in[0], in[1], oshape, ot, r)) return false;
  } else if ((op == "Max" || op == "Min" || op == "Sum") && in.size() == 1) {
    r = *in[0].values;
  } else if (op == "Where") {
    const Index ost = strides_of(oshape);
    for (std::size_t i = 0; i < n; ++i) {
      const bool c =
          in[0].values->ints[broadcast_source(i, oshape, ost, *in[0].shape, strides_of(*in[0].shape))];
      const Operand& pick = c ? in[1] : in[2];
      if (!put(r, ot,
               pick.values->number(broadcast_source(i, oshape, ost, *pick.shape, strides_of(*pick.shape)))))
        return false;
    }
  } else if (op == "Expand" || op == "Tile") {
    const Shape& s = *in[0].shape;
    const Index ost = strides_of(oshape), ist = strides_of(s);
    remap(
        *in[0].values, n,
        [&](std::size_t i) {
          std::size_t src = 0;
          const std::size_t offset = oshape.size() - s.size();
          for (std::size_t d = offset; d < oshape.size(); ++d) {
            const std::int64_t c = static_cast<std::int64_t>(i) / ost[d] % oshape[d];
            src += static_cast<std::size_t>(c % s[d - offset] * ist[d - offset]);
          }
          return src;
        },
        r);
  } else if (op == "Gather") {
    if (in[1].values->is_float) return false;
    std::int64_t axis = attr_int(node, "axis", 0);
    if (axis < 0) axis += static_cast<std::int64_t>(in[0].shape->size());
    if (!gather(in[0], in[1], axis, oshape, r)) return false;
  } else if (op == "Concat") {
    std::int64_t axis = attr_int(node, "axis", version < 4 ? 1 : 0);
    if (axis < 0) axis += static_cast<std::int64_t>(oshape.size());
    const std::int64_t outer = element_count(Shape(oshape.begin(), oshape.begin() + axis)).value_or(0);
    for (std::int64_t o = 0; o < outer; ++o)
      for (const Operand& part : in) {
        const std::int64_t chunk =
            element_count(Shape(part.shape->begin() + axis, part.shape->end())).value_or(0);
        for (std::int64_t k = 0; k < chunk; ++k)
          if (!put(r, ot, part.values->number(static_cast<std::size_t>(o * chunk + k)))) return false;
      }
  } else if (op == "Slice") {
    const Shape& s = *in[0].shape;
    // Opset 10 on: starts, ends, axes, steps as inputs; before: attributes (no steps).
    const auto operand = [&](std::size_t i, const char* name) {
      std::vector<std::int64_t> v;
      if (version >= 10) {
        if (in.size() > i && in[i].values) v = in[i].values->ints;
      } else if (const ::onnx::AttributeProto* a = attr(node, name)) {
        v.assign(a->ints().begin(), a->ints().end());
      }
      return v;
    };
    const std::vector<std::int64_t> starts = operand(1, "starts"), axes = operand(3, "axes"),
                                    steps = operand(4, "steps");
    std::vector<std::int64_t> begin(s.size(), 0), step(s.size(), 1);
    const auto rank = static_cast<std::int64_t>(s.size());
    for (std::size_t k = 0; k < starts.size(); ++k) {
      const std::int64_t ax = k < axes.size() ? axes[k] : static_cast<std::int64_t>(k);
      if (ax < -rank || ax >= rank) return false;
      const auto axis = static_cast<std::size_t>(ax < 0 ? ax + rank : ax);
      std::int64_t b = starts[k];
      const std::int64_t st = k < steps.size() ? steps[k] : 1;
      const std::int64_t dim = s[axis];
      if (b < 0) b += dim;
      b = st > 0 ? std::clamp<std::int64_t>(b, 0, dim) : std::clamp<std::int64_t>(b, -1, dim - 1);
      begin[axis] = b;
      step[axis] = st;
    }
    const Index ost = strides_of(oshape), ist = strides_of(s);
    remap(
        *in[0].values, n,
        [&](std::size_t i) {
          std::int64_t src = 0;
          for (std::size_t d = 0; d < s.size(); ++d)
            src += (begin[d] + static_cast<std::int64_t>(i) / ost[d] % oshape[d] * step[d]) * ist[d];
          return static_cast<std::size_t>(src);
        },
        r);
  } else if (op == "Transpose") {
    const Shape& s = *in[0].shape;
    std::vector<std::int64_t> perm;
    if (const ::onnx::AttributeProto* p = attr(node, "perm")) perm.assign(p->ints().begin(), p->ints().end());
    if (perm.empty())
      for (std::size_t d = s.size(); d-- > 0;)
        perm.push_back(static_cast<std::int64_t>(d));
    const Index ost = strides_of(oshape), ist = strides_of(s);
    remap(
        *in[0].values, n,
        [&](std::size_t i) {
          std::int64_t src = 0;
          for (std::size_t d = 0; d < oshape.size(); ++d)
            src += static_cast<std::int64_t>(i) / ost[d] % oshape[d] * ist[static_cast<std::size_t>(perm[d])];
          return static_cast<std::size_t>(src);
        },
        r);
  } else if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin") {
    // Only whole-tensor reductions (the shape computations' use: the product of a shape's dims).
    if (n != 1) return false;
    const Values& v = *in[0].values;
    double acc = op == "ReduceProd" ? 1 : op == "ReduceSum" ? 0 : (v.size() ? v.number(0) : 0);
    std::int64_t iacc = op == "ReduceProd" ? 1 : 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v.is_float && op == "ReduceProd" && __builtin_mul_overflow(iacc, v.ints[i], &iacc)) return false;
      if (!v.is_float && op == "ReduceSum" && __builtin_add_overflow(iacc, v.ints[i], &iacc)) return false;
      acc = op == "ReduceProd"  ? acc * v.number(i)
            : op == "ReduceSum" ? acc + v.number(i)
            : op == "ReduceMax" ? std::max(acc, v.number(i))
                                : std::min(acc, v.number(i));
    }
    if (!v.is_float && (op == "ReduceProd" || op == "ReduceSum"))
      r.ints.push_back(iacc);
    else if (!put(r, ot, acc))
      return false;
  } else {
    return false;
  }
  if (r.size() != n) return false;
  results.push_back(std::move(r));
  return true;
}

} // namespace lightsim::ir::onnxio
