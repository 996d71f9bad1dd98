// Layout plans (transpose, strided_slice, concatenate, split, take) and this CPU's kernels for them:
// strided copies and a row gather.
#include "ir/error.h"
#include "sim/profile/kernels.h"
#include "sim/profile/op_plans.h"
#include "sim/profile/shape_rules.h"

#include <algorithm>
#include <cstring>

namespace lightsim::profile {
namespace {

Shape shape_of(const TensorRef& t) {
  return Shape(t.shape.begin(), t.shape.end());
}

std::size_t element_bytes(const TensorRef& t, const std::string& where) {
  const unsigned b = ir::dtype_storage_bytes(t.dtype);
  if (b != 1 && b != 2 && b != 4 && b != 8)
    throw InputError(where, "dtype " + std::string(ir::dtype_name(t.dtype)) + " is not supported here");
  return b;
}

void require_same_dtype(const TensorRef& a, const TensorRef& b, const std::string& where) {
  if (a.dtype != b.dtype)
    throw InputError(where, "operands have dtypes " + std::string(ir::dtype_name(a.dtype)) + " and " +
                                std::string(ir::dtype_name(b.dtype)));
}

std::vector<CopyPart> plan_parts(const std::vector<Shape>& parts, const Shape& whole, int axis,
                                 std::size_t eb, bool part_is_source) {
  const auto whole_strides = contiguous_strides(whole);
  std::vector<CopyPart> plan;
  std::int64_t offset = 0;
  for (const Shape& p : parts) {
    const auto part_strides = contiguous_strides(p);
    plan.push_back({part_is_source ? StridedCopy(p, part_strides, whole_strides, eb)
                                   : StridedCopy(p, whole_strides, part_strides, eb),
                    offset * whole_strides[static_cast<std::size_t>(axis)] * static_cast<std::int64_t>(eb)});
    offset += p[static_cast<std::size_t>(axis)];
  }
  return plan;
}

} // namespace

StridedCopy plan_transpose(const TensorRef& in, const TensorRef& out, const std::string& where) {
  require_same_dtype(in, out, where);
  const Shape in_shape = shape_of(in), out_shape = shape_of(out);
  const std::vector<int> perm = infer_permutation(in_shape, out_shape, where);
  const auto in_strides = contiguous_strides(in_shape);
  std::vector<std::int64_t> src(perm.size());
  for (std::size_t j = 0; j < perm.size(); ++j)
    src[j] = in_strides[static_cast<std::size_t>(perm[j])];
  return StridedCopy(out_shape, src, contiguous_strides(out_shape), element_bytes(in, where));
}

StridedCopy plan_strided_slice(const TensorRef& in, const TensorRef& out, const std::string& where) {
  require_same_dtype(in, out, where);
  const Shape in_shape = shape_of(in), out_shape = shape_of(out);
  check_slice(in_shape, out_shape, where);
  return StridedCopy(out_shape, contiguous_strides(in_shape), contiguous_strides(out_shape),
                     element_bytes(in, where));
}

std::vector<CopyPart> plan_concatenate(const std::vector<TensorRef>& ins, const TensorRef& out,
                                       const std::string& where) {
  std::vector<Shape> parts;
  for (const TensorRef& t : ins) {
    require_same_dtype(t, out, where);
    parts.push_back(shape_of(t));
  }
  const Shape whole = shape_of(out);
  return plan_parts(parts, whole, infer_concat_axis(parts, whole, where), element_bytes(out, where), true);
}

std::vector<CopyPart> plan_split(const TensorRef& in, const std::vector<TensorRef>& outs,
                                 const std::string& where) {
  std::vector<Shape> parts;
  for (const TensorRef& t : outs) {
    require_same_dtype(in, t, where);
    parts.push_back(shape_of(t));
  }
  const Shape whole = shape_of(in);
  return plan_parts(parts, whole, infer_concat_axis(parts, whole, where), element_bytes(in, where), false);
}

TakePlan plan_take(const TensorRef& data, const TensorRef& indices, const TensorRef& out,
                   const std::string& where) {
  require_same_dtype(data, out, where);
  if (indices.dtype != ir::DType::Int64 && indices.dtype != ir::DType::Int32)
    throw InputError(where, "take indices must be int32 or int64, not " +
                                std::string(ir::dtype_name(indices.dtype)));
  const Shape data_shape = shape_of(data);
  const int axis = infer_take_axis(data_shape, shape_of(indices), shape_of(out), where);
  TakePlan p;
  p.extent = data.elements;
  if (axis >= 0) {
    const auto a = static_cast<std::size_t>(axis);
    for (std::size_t i = 0; i < a; ++i)
      p.outer *= data_shape[i];
    p.extent = data_shape[a];
    for (std::size_t i = a + 1; i < data_shape.size(); ++i)
      p.inner *= data_shape[i];
  }
  if (p.extent == 0) throw InputError(where, "take from an empty axis");
  p.element_bytes = static_cast<std::int64_t>(element_bytes(data, where));
  p.wide_indices = indices.dtype == ir::DType::Int64;
  return p;
}

Kernel make_transpose(const TensorRef& in, const TensorRef& out, const std::string& where) {
  return [copy = plan_transpose(in, out, where), s = in.data, d = out.data] { copy.run(s, d); };
}

Kernel make_strided_slice(const TensorRef& in, const TensorRef& out, const std::string& where) {
  return [copy = plan_strided_slice(in, out, where), s = in.data, d = out.data] { copy.run(s, d); };
}

Kernel make_concatenate(const std::vector<TensorRef>& ins, const TensorRef& out, const std::string& where) {
  std::vector<const std::byte*> sources;
  for (const TensorRef& t : ins)
    sources.push_back(t.data);
  return [plan = plan_concatenate(ins, out, where), sources = std::move(sources), d = out.data] {
    for (std::size_t i = 0; i < plan.size(); ++i)
      plan[i].copy.run(sources[i], d + plan[i].whole_offset_bytes);
  };
}

Kernel make_split(const TensorRef& in, const std::vector<TensorRef>& outs, const std::string& where) {
  std::vector<std::byte*> targets;
  for (const TensorRef& t : outs)
    targets.push_back(t.data);
  return [plan = plan_split(in, outs, where), targets = std::move(targets), s = in.data] {
    for (std::size_t i = 0; i < plan.size(); ++i)
      plan[i].copy.run(s + plan[i].whole_offset_bytes, targets[i]);
  };
}

Kernel make_take(const TensorRef& data, const TensorRef& indices, const TensorRef& out,
                 const std::string& where) {
  const TakePlan p = plan_take(data, indices, out, where);
  return [p, src = data.data, idx = indices.data, dst = out.data, n = indices.elements] {
    const auto eb = p.element_bytes;
    const auto row_bytes = static_cast<std::size_t>(p.inner * eb);
    std::byte* d = dst;
    for (std::int64_t o = 0; o < p.outer; ++o) {
      const std::byte* base = src + o * p.extent * p.inner * eb;
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t k = p.wide_indices ? reinterpret_cast<const std::int64_t*>(idx)[i]
                                        : reinterpret_cast<const std::int32_t*>(idx)[i];
        k = std::clamp<std::int64_t>(k, 0, p.extent - 1);
        std::memcpy(d, base + k * p.inner * eb, row_bytes);
        d += row_bytes;
      }
    }
  };
}

} // namespace lightsim::profile
