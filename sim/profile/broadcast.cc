#include "sim/profile/broadcast.h"

#include "ir/error.h"
#include "sim/profile/shape_rules.h"

namespace lightsim::profile {

Broadcast::Broadcast(const std::vector<Shape>& operands, const std::vector<std::size_t>& element_bytes,
                     const Shape& out, std::size_t out_element_bytes, const std::string& where)
    : operands_(operands.size()), out_bytes_(static_cast<std::int64_t>(out_element_bytes)) {
  if (operands.empty() || operands.size() > kMaxOperands)
    throw InputError(where, "elementwise op with " + std::to_string(operands.size()) + " operands");
  const std::size_t rank = out.size();
  // Per output axis: its size and each operand's stride (0 where the operand repeats).
  std::vector<std::array<std::int64_t, kMaxOperands>> axis_strides(rank);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    bytes_[i] = static_cast<std::int64_t>(element_bytes[i]);
    const Shape& s = operands[i];
    if (s.size() > rank)
      throw InputError(where,
                       "operand " + shape_text(s) + " has a higher rank than the output " + shape_text(out));
    const auto strides = contiguous_strides(s);
    const std::size_t lead = rank - s.size();
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t dim = d < lead ? 1 : s[d - lead];
      if (dim != out[d] && dim != 1)
        throw InputError(where, "operand " + shape_text(s) + " does not broadcast to " + shape_text(out));
      axis_strides[d][i] = (dim == 1) ? 0 : strides[d - lead];
    }
  }
  std::vector<std::int64_t> dims;
  std::vector<std::array<std::int64_t, kMaxOperands>> merged;
  for (std::size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    if (out[d] == 0) { // empty output: one empty row
      dims.assign(1, 0);
      merged.assign(1, {});
      break;
    }
    bool mergeable = !dims.empty();
    for (std::size_t i = 0; mergeable && i < operands_; ++i)
      mergeable = merged.back()[i] == axis_strides[d][i] * out[d];
    if (mergeable) {
      dims.back() *= out[d];
      merged.back() = axis_strides[d];
    } else {
      dims.push_back(out[d]);
      merged.push_back(axis_strides[d]);
    }
  }
  if (dims.empty()) { // a scalar output
    inner_ = 1;
    inner_scalar_.fill(true);
    return;
  }
  inner_ = dims.back();
  for (std::size_t i = 0; i < operands_; ++i)
    inner_scalar_[i] = merged.back()[i] == 0;
  dims.pop_back();
  merged.pop_back();
  outer_ = std::move(dims);
  strides_ = std::move(merged);
}

Broadcast plan_broadcast(const std::vector<TensorRef>& ins, const TensorRef& out, const std::string& where) {
  std::vector<Shape> shapes;
  std::vector<std::size_t> bytes;
  for (const TensorRef& t : ins) {
    shapes.emplace_back(t.shape.begin(), t.shape.end());
    bytes.push_back(ir::dtype_storage_bytes(t.dtype));
  }
  return Broadcast(shapes, bytes, Shape(out.shape.begin(), out.shape.end()),
                   ir::dtype_storage_bytes(out.dtype), where);
}

} // namespace lightsim::profile
