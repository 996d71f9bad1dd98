// StridedCopy: copies a dense box of elements between two strided layouts, the one loop behind transpose,
// strided_slice, concatenate and split. Size-1 axes are dropped and adjacent axes that are contiguous in
// both layouts are merged once, when the plan is made, so a run is an odometer over the outer axes and
// either a memcpy or a typed strided loop over the innermost one.
//
// It is not a general tensor iterator: element sizes are 1, 2, 4 or 8 bytes.
#pragma once

#include "sim/profile/native_api.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lightsim::profile {

class LIGHTSIM_NATIVE_API StridedCopy {
public:
  // dims: the box; strides in elements for source and destination, one per dim.
  StridedCopy(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& src_strides,
              const std::vector<std::int64_t>& dst_strides, std::size_t element_bytes);

  void run(const std::byte* src, std::byte* dst) const;

  // The merged plan (innermost axis last), for a unit that runs it its own way (a GPU kernel).
  const std::vector<std::int64_t>& dims() const { return dims_; }
  const std::vector<std::int64_t>& src_strides() const { return src_; }
  const std::vector<std::int64_t>& dst_strides() const { return dst_; }
  std::size_t element_bytes() const { return element_bytes_; }

private:
  template <class Word> LIGHTSIM_NATIVE_LOCAL void inner(const std::byte* src, std::byte* dst) const;

  std::vector<std::int64_t> dims_, src_, dst_; // merged; the innermost is last
  std::size_t element_bytes_;
};

} // namespace lightsim::profile
