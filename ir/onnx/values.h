// Values: the data of a small tensor that the ONNX importer knows at import time (a Constant node, an
// initializer whose data is in the file, or what a shape computation gives once every dimension is bound),
// and the evaluator that folds the ops of shape subgraphs (Shape -> Gather -> Concat -> Reshape) on them.
// Integers (and booleans) are held as int64, floating-point numbers as double.
//
// It is not a tensor library: only the ops that compute shapes, indices and masks are evaluated, on tensors
// of at most kMaxFoldElements elements, and arithmetic that would overflow or divide by zero is not folded.
#pragma once

#include "ir/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
class NodeProto;
} // namespace onnx

namespace lightsim::ir::onnxio {

using Shape = std::vector<std::int64_t>;

// The most elements one folded tensor may have (larger results stay ops in the graph).
inline constexpr std::int64_t kMaxFoldElements = 1 << 16;

struct Values {
  bool is_float = false;
  std::vector<std::int64_t> ints; // when !is_float
  std::vector<double> floats;     // when is_float
  std::size_t size() const { return is_float ? floats.size() : ints.size(); }
  double number(std::size_t i) const { return is_float ? floats[i] : static_cast<double>(ints[i]); }
};

bool is_float_type(DType t);

// Product of the dims, or nullopt when a dim is negative or the product exceeds 2^63 - 1.
std::optional<std::int64_t> element_count(const Shape& shape);

// The DType of an ONNX TensorProto data type; nullopt for strings, complex and 8-bit floats.
std::optional<DType> dtype_of_onnx(int data_type);
int onnx_of_dtype(DType t);

// The values a TensorProto holds in the file (raw_data or the typed fields), when it holds them and has
// at most kMaxFoldElements elements; nullopt for external data or a larger tensor. Throws InputError
// (the message without a place: the caller adds it) when the data does not fit its dims and type.
std::optional<Values> tensor_values(const onnx::TensorProto& tensor, DType dtype, const Shape& shape);

// Checks that a TensorProto's embedded data, if any, has one element per element of its dims (the
// message without a place); external data is not read.
void check_tensor_data(const onnx::TensorProto& tensor, DType dtype, std::int64_t elements);

// A typed input of an op being folded.
struct Operand {
  const Shape* shape;
  DType dtype;
  const Values* values; // null when unknown
};

// Folds `node` (op type, attributes and the opset `version` of its domain) on its operands into its
// outputs' values, whose shapes and dtypes the shape rules gave; false when the op is not folded
// (not a shape op, an operand unknown, or a result it cannot compute exactly).
bool fold(const onnx::NodeProto& node, int version, const std::vector<Operand>& in,
          const std::vector<std::pair<const Shape*, DType>>& out, std::vector<Values>& results);

} // namespace lightsim::ir::onnxio
