// Broadcast: numpy-style broadcasting of up to three operands to an output shape, planned once. Operand
// shapes are right-aligned with the output; an axis of size 1 repeats. Size-1 output axes are dropped and
// adjacent axes that step the same way for every operand are merged, so a run is an odometer over the
// outer axes and one innermost row in which each operand is either contiguous or a single repeated value.
//
// It is not a kernel: for_each_row hands row pointers to the caller's typed inner loop.
#pragma once

#include "sim/profile/buffer.h"
#include "sim/profile/native_api.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lightsim::profile {

class LIGHTSIM_NATIVE_API Broadcast {
public:
  static constexpr std::size_t kMaxOperands = 3;

  // Throws InputError naming `where` when an operand does not broadcast to `out`.
  Broadcast(const std::vector<Shape>& operands, const std::vector<std::size_t>& element_bytes,
            const Shape& out, std::size_t out_element_bytes, const std::string& where);

  std::int64_t row_length() const { return inner_; }
  // True when operand i holds one value along the row (stride 0).
  bool row_scalar(std::size_t i) const { return inner_scalar_[i]; }

  // The plan itself, for a unit that walks it its own way (a GPU kernel): the merged outer axes and, per
  // outer axis, each operand's stride in elements (0 where it repeats).
  std::size_t operands() const { return operands_; }
  const std::vector<std::int64_t>& outer_dims() const { return outer_; }
  const std::vector<std::array<std::int64_t, kMaxOperands>>& outer_strides() const { return strides_; }

  // row(operand row pointers, output row pointer) for every row, in output order.
  template <class F>
  void for_each_row(const std::array<const std::byte*, kMaxOperands>& base, std::byte* out, F&& row) const {
    const std::size_t rank = outer_.size();
    std::array<std::int64_t, kMaxOperands> off{};
    std::vector<std::int64_t> index(rank, 0);
    const std::int64_t out_row_bytes = inner_ * out_bytes_;
    std::array<const std::byte*, kMaxOperands> ptr{};
    while (true) {
      for (std::size_t i = 0; i < operands_; ++i)
        ptr[i] = base[i] + off[i] * bytes_[i];
      row(ptr, out);
      out += out_row_bytes;
      std::size_t axis = rank;
      while (axis-- > 0) {
        for (std::size_t i = 0; i < operands_; ++i)
          off[i] += strides_[axis][i];
        if (++index[axis] < outer_[axis]) break;
        for (std::size_t i = 0; i < operands_; ++i)
          off[i] -= strides_[axis][i] * outer_[axis];
        index[axis] = 0;
      }
      if (axis == static_cast<std::size_t>(-1)) return;
    }
  }

private:
  std::size_t operands_;
  std::vector<std::int64_t> outer_;                             // outer axes, merged
  std::vector<std::array<std::int64_t, kMaxOperands>> strides_; // per outer axis, per operand (elements)
  std::int64_t inner_ = 1;
  std::array<bool, kMaxOperands> inner_scalar_{};
  std::array<std::int64_t, kMaxOperands> bytes_{};
  std::int64_t out_bytes_;
};

// The plan for operands `ins` and output `out` of an elementwise op (their shapes and element sizes).
LIGHTSIM_NATIVE_API Broadcast plan_broadcast(const std::vector<TensorRef>& ins, const TensorRef& out,
                                             const std::string& where);

} // namespace lightsim::profile
