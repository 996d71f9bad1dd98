// DType: the element types that TVM's graph-executor JSON names in `attrs.dltype` ("float32", "int64",
// "uint1", ...), with their width in bits and the bytes one element occupies in a TVM NDArray.
//
// It is not a tensor type: shapes live in ir/graph.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace lightsim::ir {

enum class DType : std::uint8_t {
  Bool, // TVM "uint1" / "bool": one bit of information, stored one per byte
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
};

// Parses a DLPack type string as TVM writes it; nullopt for anything else (including vector lanes "x4").
std::optional<DType> parse_dtype(std::string_view text);

// The canonical TVM spelling ("uint1" for Bool).
std::string_view dtype_name(DType type);

// Width of one element in bits (1 for Bool).
unsigned dtype_bits(DType type);

// Bytes one element occupies in memory: ceil(bits / 8), as TVM's NDArray stores it.
unsigned dtype_storage_bytes(DType type);

} // namespace lightsim::ir
