#include "sim/profile/strided_copy.h"

#include <cstring>
#include <stdexcept>

namespace lightsim::profile {

StridedCopy::StridedCopy(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& src_strides,
                         const std::vector<std::int64_t>& dst_strides, std::size_t element_bytes)
    : element_bytes_(element_bytes) {
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8)
    throw std::invalid_argument("StridedCopy: element size must be 1, 2, 4 or 8 bytes");
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) { // an empty box: nothing to copy
      dims_.assign(1, 0);
      src_.assign(1, 1);
      dst_.assign(1, 1);
      return;
    }
    if (dims[i] == 1) continue;
    if (!dims_.empty() && src_.back() == src_strides[i] * dims[i] &&
        dst_.back() == dst_strides[i] * dims[i]) {
      dims_.back() *= dims[i]; // the previous axis steps over exactly this one in both layouts
      src_.back() = src_strides[i];
      dst_.back() = dst_strides[i];
      continue;
    }
    dims_.push_back(dims[i]);
    src_.push_back(src_strides[i]);
    dst_.push_back(dst_strides[i]);
  }
  if (dims_.empty()) { // a single element
    dims_.assign(1, 1);
    src_.assign(1, 1);
    dst_.assign(1, 1);
  }
}

template <class Word> void StridedCopy::inner(const std::byte* src, std::byte* dst) const {
  const std::int64_t n = dims_.back(), ss = src_.back(), ds = dst_.back();
  const Word* s = reinterpret_cast<const Word*>(src);
  Word* d = reinterpret_cast<Word*>(dst);
  for (std::int64_t i = 0; i < n; ++i)
    d[i * ds] = s[i * ss];
}

void StridedCopy::run(const std::byte* src, std::byte* dst) const {
  const std::size_t rank = dims_.size();
  const auto eb = static_cast<std::int64_t>(element_bytes_);
  const bool contiguous = src_.back() == 1 && dst_.back() == 1;
  const auto row_bytes = static_cast<std::size_t>(dims_.back() * eb);
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t src_off = 0, dst_off = 0; // in elements
  while (true) {
    const std::byte* s = src + src_off * eb;
    std::byte* d = dst + dst_off * eb;
    if (contiguous)
      std::memcpy(d, s, row_bytes);
    else if (element_bytes_ == 4)
      inner<std::uint32_t>(s, d);
    else if (element_bytes_ == 8)
      inner<std::uint64_t>(s, d);
    else if (element_bytes_ == 2)
      inner<std::uint16_t>(s, d);
    else
      inner<std::uint8_t>(s, d);
    // Advance the odometer over the outer axes.
    std::size_t axis = rank - 1;
    while (axis-- > 0) {
      src_off += src_[axis];
      dst_off += dst_[axis];
      if (++index[axis] < dims_[axis]) break;
      src_off -= src_[axis] * dims_[axis];
      dst_off -= dst_[axis] * dims_[axis];
      index[axis] = 0;
    }
    if (axis == static_cast<std::size_t>(-1)) return;
  }
}

} // namespace lightsim::profile
