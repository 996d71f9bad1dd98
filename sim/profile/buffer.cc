#include "sim/profile/buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace lightsim::profile {
namespace {

constexpr std::size_t kAlignment = 64;

// splitmix64: a counter-based generator, so a fill is reproducible from (seed, index) alone.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in [-1, 1) from the top 24 bits.
float unit_float(std::uint64_t r) {
  return static_cast<float>(r >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <class T> void fill_typed(std::byte* data, std::uint64_t elements, std::uint64_t seed, auto make) {
  T* out = reinterpret_cast<T*>(data);
  const std::uint64_t base = splitmix64(seed);
  for (std::uint64_t i = 0; i < elements; ++i)
    out[i] = make(splitmix64(base + i));
}

} // namespace

void TensorBuffer::Free::operator()(std::byte* p) const {
  std::free(p);
}

TensorBuffer::TensorBuffer(ir::DType, std::uint64_t bytes) : bytes_(bytes) {
  const std::size_t rounded = (static_cast<std::size_t>(bytes) + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (!p) throw std::bad_alloc();
  storage_.reset(static_cast<std::byte*>(p));
}

void fill_random(std::byte* data, ir::DType dtype, std::uint64_t elements, std::uint64_t seed) {
  using ir::DType;
  const auto integer = [](std::uint64_t r) { return static_cast<std::int64_t>(r >> 49); }; // [0, 32768)
  switch (dtype) {
  case DType::Float32:
    return fill_typed<float>(data, elements, seed, unit_float);
  case DType::Float64:
    return fill_typed<double>(data, elements, seed, [](std::uint64_t r) { return double(unit_float(r)); });
  case DType::Bool:
    return fill_typed<bool>(data, elements, seed, [](std::uint64_t r) { return (r >> 63) != 0; });
  case DType::Int8:
  case DType::UInt8:
    return fill_typed<std::uint8_t>(data, elements, seed,
                                    [](std::uint64_t r) { return std::uint8_t(r >> 57); });
  case DType::Int16:
  case DType::UInt16:
  case DType::Float16:
  case DType::BFloat16: // bit patterns of small positive numbers; the profiler computes on no 16-bit type
    return fill_typed<std::uint16_t>(data, elements, seed,
                                     [](std::uint64_t r) { return std::uint16_t(r >> 50); });
  case DType::Int32:
  case DType::UInt32:
    return fill_typed<std::int32_t>(data, elements, seed,
                                    [&](std::uint64_t r) { return static_cast<std::int32_t>(integer(r)); });
  case DType::Int64:
  case DType::UInt64:
    return fill_typed<std::int64_t>(data, elements, seed, integer);
  case DType::Int4: // packed: random bytes over the tensor's packed size
  case DType::UInt4:
  case DType::Int2:
  case DType::UInt2:
    return fill_typed<std::uint8_t>(data, ir::dtype_tensor_bytes(dtype, elements).value_or(0), seed,
                                    [](std::uint64_t r) { return std::uint8_t(r >> 56); });
  }
}

std::uint64_t checksum_bytes(const std::byte* data, std::uint64_t bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  std::uint64_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, data + i, 8);
    h = (h ^ word) * 0x100000001b3ULL;
  }
  for (; i < bytes; ++i)
    h = (h ^ static_cast<std::uint64_t>(data[i])) * 0x100000001b3ULL;
  return h;
}

} // namespace lightsim::profile
