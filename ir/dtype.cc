#include "ir/dtype.h"

#include <array>

namespace lightsim::ir {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  unsigned bits;
};

constexpr std::array<DTypeInfo, 17> kTypes{{
    {DType::Bool, "uint1", 1},
    {DType::Int8, "int8", 8},
    {DType::Int16, "int16", 16},
    {DType::Int32, "int32", 32},
    {DType::Int64, "int64", 64},
    {DType::UInt8, "uint8", 8},
    {DType::UInt16, "uint16", 16},
    {DType::UInt32, "uint32", 32},
    {DType::UInt64, "uint64", 64},
    {DType::Float16, "float16", 16},
    {DType::BFloat16, "bfloat16", 16},
    {DType::Float32, "float32", 32},
    {DType::Float64, "float64", 64},
    {DType::Int4, "int4", 4},
    {DType::UInt4, "uint4", 4},
    {DType::Int2, "int2", 2},
    {DType::UInt2, "uint2", 2},
}};

const DTypeInfo& info(DType type) {
  return kTypes[static_cast<std::size_t>(type)];
}

} // namespace

std::optional<DType> parse_dtype(std::string_view text) {
  if (text == "bool") return DType::Bool;
  for (const DTypeInfo& t : kTypes)
    if (t.name == text) return t.type;
  return std::nullopt;
}

std::string_view dtype_name(DType type) {
  return info(type).name;
}

unsigned dtype_bits(DType type) {
  return info(type).bits;
}

unsigned dtype_storage_bytes(DType type) {
  return (info(type).bits + 7) / 8;
}

bool dtype_packed(DType type) {
  return type != DType::Bool && info(type).bits < 8;
}

double dtype_element_bytes(DType type) {
  return dtype_packed(type) ? info(type).bits / 8.0 : dtype_storage_bytes(type);
}

std::optional<std::uint64_t> dtype_tensor_bytes(DType type, std::uint64_t elements) {
  std::uint64_t out = 0;
  if (dtype_packed(type)) {
    const std::uint64_t per_byte = 8 / info(type).bits;
    return elements / per_byte + (elements % per_byte ? 1 : 0);
  }
  if (__builtin_mul_overflow(elements, std::uint64_t{dtype_storage_bytes(type)}, &out)) return std::nullopt;
  return out;
}

} // namespace lightsim::ir
