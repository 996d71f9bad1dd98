// TensorBuffer: the bytes of one tensor while the profiler executes a graph, 64-byte aligned, with the
// tensor's dtype and shape. TensorRef is a non-owning view of such bytes handed to the kernels (a reshape
// output may view its input's bytes). Random fill and a checksum of the bytes live here too.
//
// It is not a tensor library: no arithmetic, no strides (every buffer is dense and row-major).
#pragma once

#include "ir/dtype.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace lightsim::profile {

using Shape = std::vector<std::int64_t>;

class TensorBuffer {
public:
  TensorBuffer() = default;
  TensorBuffer(ir::DType dtype, std::uint64_t bytes); // uninitialised

  std::byte* data() { return storage_.get(); }
  const std::byte* data() const { return storage_.get(); }
  std::uint64_t bytes() const { return bytes_; }

private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte[], Free> storage_;
  std::uint64_t bytes_ = 0;
};

// A dense row-major tensor somewhere in memory.
struct TensorRef {
  std::byte* data = nullptr;
  ir::DType dtype = ir::DType::Float32;
  std::span<const std::int64_t> shape;
  std::int64_t elements = 0;

  template <class T> T* as() const { return reinterpret_cast<T*>(data); }
};

// Fills `bytes` of `dtype` elements with deterministic pseudo-random values from `seed`: floats uniform in
// [-1, 1), integers uniform in [0, 32768) (non-negative, so they are usable as indices after clipping),
// booleans 0 or 1.
void fill_random(std::byte* data, ir::DType dtype, std::uint64_t elements, std::uint64_t seed);

// An order-sensitive 64-bit hash of the bytes (FNV-1a over 8-byte words, then the tail bytes).
std::uint64_t checksum_bytes(const std::byte* data, std::uint64_t bytes);
// The checksum of an op's outputs: each output's checksum_bytes folded in, in output order, from h = 0.
inline std::uint64_t checksum_combine(std::uint64_t h, std::uint64_t part) {
  return h * 0x9e3779b97f4a7c15ULL + part;
}

} // namespace lightsim::profile
