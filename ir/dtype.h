// DType: the element types that TVM's graph-executor JSON names in `attrs.dltype` ("float32", "int64",
// "uint1", "int4", ...), with their width in bits and the bytes a tensor of them occupies. The sub-byte
// integers (int4, uint4, int2, uint2: DLPack ints of 4 and 2 bits, as TVM's quantisation and the published
// low-precision accelerators use them) are packed, 8 / bits elements to a byte, as accelerators keep and move
// them; Bool (uint1) is stored one per byte, as TVM stores it.
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
  Int4, // packed two to a byte
  UInt4,
  Int2, // packed four to a byte
  UInt2,
};

// Parses a DLPack type string as TVM writes it; nullopt for anything else (including vector lanes "x4").
std::optional<DType> parse_dtype(std::string_view text);

// The canonical TVM spelling ("uint1" for Bool).
std::string_view dtype_name(DType type);

// Width of one element in bits (1 for Bool).
unsigned dtype_bits(DType type);

// Bytes one element occupies on its own: ceil(bits / 8) (a packed sub-byte element alone takes a byte).
unsigned dtype_storage_bytes(DType type);

// Whether elements are packed several to a byte (int4, uint4, int2, uint2).
bool dtype_packed(DType type);

// Bytes per element in a tensor: bits / 8 for the packed types (0.5 for int4), else dtype_storage_bytes.
double dtype_element_bytes(DType type);

// Bytes a tensor of `elements` elements occupies: ceil(elements x bits / 8) for the packed types, else
// elements x dtype_storage_bytes; nullopt when that overflows 64 bits.
std::optional<std::uint64_t> dtype_tensor_bytes(DType type, std::uint64_t elements);

} // namespace lightsim::ir
