// Layout kernels: transpose, strided_slice, concatenate, split (strided copies) and take (a gather).
#include "ir/error.h"
#include "sim/profile/kernels.h"
#include "sim/profile/shape_rules.h"
#include "sim/profile/strided_copy.h"

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

// One part of a concatenation: its box inside the whole, starting at `offset` along `axis`.
struct Part {
  StridedCopy copy;
  std::int64_t whole_offset_elements;
};

std::vector<Part> plan_parts(const std::vector<Shape>& parts, const Shape& whole, int axis, std::size_t eb,
                             bool part_is_source) {
  const auto whole_strides = contiguous_strides(whole);
  std::vector<Part> plan;
  std::int64_t offset = 0;
  for (const Shape& p : parts) {
    const auto part_strides = contiguous_strides(p);
    plan.push_back({part_is_source ? StridedCopy(p, part_strides, whole_strides, eb)
                                   : StridedCopy(p, whole_strides, part_strides, eb),
                    offset * whole_strides[static_cast<std::size_t>(axis)]});
    offset += p[static_cast<std::size_t>(axis)];
  }
  return plan;
}

} // namespace

Kernel make_transpose(const TensorRef& in, const TensorRef& out, const std::string& where) {
  require_same_dtype(in, out, where);
  const Shape in_shape = shape_of(in), out_shape = shape_of(out);
  const std::vector<int> perm = infer_permutation(in_shape, out_shape, where);
  const auto in_strides = contiguous_strides(in_shape);
  std::vector<std::int64_t> src(perm.size());
  for (std::size_t j = 0; j < perm.size(); ++j)
    src[j] = in_strides[static_cast<std::size_t>(perm[j])];
  StridedCopy copy(out_shape, src, contiguous_strides(out_shape), element_bytes(in, where));
  return [copy, s = in.data, d = out.data] { copy.run(s, d); };
}

Kernel make_strided_slice(const TensorRef& in, const TensorRef& out, const std::string& where) {
  require_same_dtype(in, out, where);
  const Shape in_shape = shape_of(in), out_shape = shape_of(out);
  check_slice(in_shape, out_shape, where);
  StridedCopy copy(out_shape, contiguous_strides(in_shape), contiguous_strides(out_shape),
                   element_bytes(in, where));
  return [copy, s = in.data, d = out.data] { copy.run(s, d); };
}

Kernel make_concatenate(const std::vector<TensorRef>& ins, const TensorRef& out, const std::string& where) {
  std::vector<Shape> parts;
  std::vector<const std::byte*> sources;
  for (const TensorRef& t : ins) {
    require_same_dtype(t, out, where);
    parts.push_back(shape_of(t));
    sources.push_back(t.data);
  }
  const Shape whole = shape_of(out);
  const int axis = infer_concat_axis(parts, whole, where);
  const std::size_t eb = element_bytes(out, where);
  auto plan = plan_parts(parts, whole, axis, eb, true);
  return [plan = std::move(plan), sources = std::move(sources), d = out.data, eb] {
    for (std::size_t i = 0; i < plan.size(); ++i)
      plan[i].copy.run(sources[i], d + plan[i].whole_offset_elements * static_cast<std::int64_t>(eb));
  };
}

Kernel make_split(const TensorRef& in, const std::vector<TensorRef>& outs, const std::string& where) {
  std::vector<Shape> parts;
  std::vector<std::byte*> targets;
  for (const TensorRef& t : outs) {
    require_same_dtype(in, t, where);
    parts.push_back(shape_of(t));
    targets.push_back(t.data);
  }
  const Shape whole = shape_of(in);
  const int axis = infer_concat_axis(parts, whole, where);
  const std::size_t eb = element_bytes(in, where);
  auto plan = plan_parts(parts, whole, axis, eb, false);
  return [plan = std::move(plan), targets = std::move(targets), s = in.data, eb] {
    for (std::size_t i = 0; i < plan.size(); ++i)
      plan[i].copy.run(s + plan[i].whole_offset_elements * static_cast<std::int64_t>(eb), targets[i]);
  };
}

Kernel make_take(const TensorRef& data, const TensorRef& indices, const TensorRef& out,
                 const std::string& where) {
  require_same_dtype(data, out, where);
  if (indices.dtype != ir::DType::Int64 && indices.dtype != ir::DType::Int32)
    throw InputError(where, "take indices must be int32 or int64, not " +
                                std::string(ir::dtype_name(indices.dtype)));
  const Shape data_shape = shape_of(data);
  const int axis = infer_take_axis(data_shape, shape_of(indices), shape_of(out), where);
  std::int64_t outer = 1, extent = data.elements, inner = 1;
  if (axis >= 0) {
    const auto a = static_cast<std::size_t>(axis);
    for (std::size_t i = 0; i < a; ++i)
      outer *= data_shape[i];
    extent = data_shape[a];
    for (std::size_t i = a + 1; i < data_shape.size(); ++i)
      inner *= data_shape[i];
  }
  if (extent == 0) throw InputError(where, "take from an empty axis");
  const auto eb = static_cast<std::int64_t>(element_bytes(data, where));
  const bool wide = indices.dtype == ir::DType::Int64;
  return [=, src = data.data, idx = indices.data, dst = out.data, n = indices.elements] {
    const auto row_bytes = static_cast<std::size_t>(inner * eb);
    std::byte* d = dst;
    for (std::int64_t o = 0; o < outer; ++o) {
      const std::byte* base = src + o * extent * inner * eb;
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t k = wide ? reinterpret_cast<const std::int64_t*>(idx)[i]
                              : reinterpret_cast<const std::int32_t*>(idx)[i];
        k = std::clamp<std::int64_t>(k, 0, extent - 1);
        std::memcpy(d, base + k * inner * eb, row_bytes);
        d += row_bytes;
      }
    }
  };
}

} // namespace lightsim::profile
