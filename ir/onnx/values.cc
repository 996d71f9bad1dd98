#include "ir/onnx/values.h"

#include "ir/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <onnx/onnx_pb.h>

namespace lightsim::ir::onnxio {
namespace {

using TP = ::onnx::TensorProto;

// IEEE half and bfloat16 bit patterns to float.
double half_to_double(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

double bfloat_to_double(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// One element of a little-endian raw_data buffer.
void read_raw(const char* p, DType t, Values& v) {
  const auto u = [&](auto x) {
    std::memcpy(&x, p, sizeof x);
    return x;
  };
  switch (t) {
  case DType::Bool:
    v.ints.push_back(u(std::uint8_t{}) != 0);
    break;
  case DType::Int8:
    v.ints.push_back(u(std::int8_t{}));
    break;
  case DType::Int16:
    v.ints.push_back(u(std::int16_t{}));
    break;
  case DType::Int32:
    v.ints.push_back(u(std::int32_t{}));
    break;
  case DType::Int64:
    v.ints.push_back(u(std::int64_t{}));
    break;
  case DType::UInt8:
    v.ints.push_back(u(std::uint8_t{}));
    break;
  case DType::UInt16:
    v.ints.push_back(u(std::uint16_t{}));
    break;
  case DType::UInt32:
    v.ints.push_back(u(std::uint32_t{}));
    break;
  case DType::UInt64:
    v.ints.push_back(static_cast<std::int64_t>(u(std::uint64_t{})));
    break;
  case DType::Float16:
    v.floats.push_back(half_to_double(u(std::uint16_t{})));
    break;
  case DType::BFloat16:
    v.floats.push_back(bfloat_to_double(u(std::uint16_t{})));
    break;
  case DType::Float32:
    v.floats.push_back(u(float{}));
    break;
  case DType::Float64:
    v.floats.push_back(u(double{}));
    break;
  case DType::Int4: // never imported from ONNX (dtype_of_onnx has no packed type)
  case DType::UInt4:
  case DType::Int2:
  case DType::UInt2:
    throw InputError("packed " + std::string(dtype_name(t)) + " raw data is not read");
  }
}

// The size of the typed field that holds a tensor of `dtype` (onnx.proto: float_data for float,
// int32_data for the narrower integers, bool and the 16-bit floats' bits, ...).
int typed_field_size(const TP& t, DType dtype) {
  switch (dtype) {
  case DType::Float32:
    return t.float_data_size();
  case DType::Float64:
    return t.double_data_size();
  case DType::Int64:
    return t.int64_data_size();
  case DType::UInt32:
  case DType::UInt64:
    return t.uint64_data_size();
  default:
    return t.int32_data_size();
  }
}

// How many elements the tensor's embedded data holds; -1 when it has none. A typed field other than the
// one for `dtype` holding data is an error.
std::int64_t embedded_count(const TP& t, DType dtype) {
  if (t.has_raw_data()) return static_cast<std::int64_t>(t.raw_data().size() / dtype_storage_bytes(dtype));
  const int any = std::max({t.float_data_size(), t.int32_data_size(), t.int64_data_size(),
                            t.double_data_size(), t.uint64_data_size()});
  const int own = typed_field_size(t, dtype);
  if (any > 0 && own == 0)
    throw InputError("holds its data in a field that is not the one for " + std::string(dtype_name(dtype)));
  return own > 0 ? own : -1;
}

} // namespace

bool is_float_type(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}

std::optional<std::int64_t> element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

std::optional<DType> dtype_of_onnx(int data_type) {
  switch (data_type) {
  case TP::FLOAT:
    return DType::Float32;
  case TP::UINT8:
    return DType::UInt8;
  case TP::INT8:
    return DType::Int8;
  case TP::UINT16:
    return DType::UInt16;
  case TP::INT16:
    return DType::Int16;
  case TP::INT32:
    return DType::Int32;
  case TP::INT64:
    return DType::Int64;
  case TP::BOOL:
    return DType::Bool;
  case TP::FLOAT16:
    return DType::Float16;
  case TP::DOUBLE:
    return DType::Float64;
  case TP::UINT32:
    return DType::UInt32;
  case TP::UINT64:
    return DType::UInt64;
  case TP::BFLOAT16:
    return DType::BFloat16;
  default:
    return std::nullopt;
  }
}

int onnx_of_dtype(DType t) {
  switch (t) {
  case DType::Bool:
    return TP::BOOL;
  case DType::Int8:
    return TP::INT8;
  case DType::Int16:
    return TP::INT16;
  case DType::Int32:
    return TP::INT32;
  case DType::Int64:
    return TP::INT64;
  case DType::UInt8:
    return TP::UINT8;
  case DType::UInt16:
    return TP::UINT16;
  case DType::UInt32:
    return TP::UINT32;
  case DType::UInt64:
    return TP::UINT64;
  case DType::Float16:
    return TP::FLOAT16;
  case DType::BFloat16:
    return TP::BFLOAT16;
  case DType::Float32:
    return TP::FLOAT;
  case DType::Float64:
    return TP::DOUBLE;
  case DType::Int4: // ONNX's INT4 / UINT4 (IR 10) are newer than the onnx.proto lightsim builds with
  case DType::UInt4:
  case DType::Int2:
  case DType::UInt2:
    return TP::UNDEFINED;
  }
  return TP::UNDEFINED;
}

void check_tensor_data(const TP& t, DType dtype, std::int64_t elements) {
  if (t.data_location() == TP::EXTERNAL) return;
  if (t.has_raw_data() && t.raw_data().size() % dtype_storage_bytes(dtype) != 0)
    throw InputError("raw_data of " + std::to_string(t.raw_data().size()) +
                     " bytes is not a whole number of " + std::string(dtype_name(dtype)) + " elements");
  const std::int64_t held = embedded_count(t, dtype);
  if (held >= 0 && held != elements)
    throw InputError("holds " + std::to_string(held) + " elements of data, its dims give " +
                     std::to_string(elements));
}

std::optional<Values> tensor_values(const TP& t, DType dtype, const Shape& shape) {
  const std::optional<std::int64_t> n = element_count(shape);
  if (!n) throw InputError("dims " + std::to_string(shape.size()) + "-D overflow or are negative");
  check_tensor_data(t, dtype, *n);
  if (t.data_location() == TP::EXTERNAL || *n > kMaxFoldElements) return std::nullopt;
  if (*n > 0 && embedded_count(t, dtype) < 0) return std::nullopt; // no data in the file
  Values v;
  v.is_float = is_float_type(dtype);
  const auto count = static_cast<std::size_t>(*n);
  if (t.has_raw_data()) {
    const std::size_t size = dtype_storage_bytes(dtype);
    for (std::size_t i = 0; i < count; ++i)
      read_raw(t.raw_data().data() + i * size, dtype, v);
    return v;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const int k = static_cast<int>(i);
    switch (dtype) {
    case DType::Float32:
      v.floats.push_back(t.float_data(k));
      break;
    case DType::Float64:
      v.floats.push_back(t.double_data(k));
      break;
    case DType::Float16:
      v.floats.push_back(half_to_double(static_cast<std::uint16_t>(t.int32_data(k))));
      break;
    case DType::BFloat16:
      v.floats.push_back(bfloat_to_double(static_cast<std::uint16_t>(t.int32_data(k))));
      break;
    case DType::Int64:
      v.ints.push_back(t.int64_data(k));
      break;
    case DType::UInt32:
    case DType::UInt64:
      v.ints.push_back(static_cast<std::int64_t>(t.uint64_data(k)));
      break;
    default:
      v.ints.push_back(t.int32_data(k));
      break;
    }
  }
  return v;
}

} // namespace lightsim::ir::onnxio
