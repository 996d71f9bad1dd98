// What every graph importer takes and gives back (ir/tvm/tvm_import.h, ir/onnx/onnx_import.h and the
// dispatcher ir/import/graph_import.h): the policy for ops lightsim does not know, the values bound to an
// ONNX model's symbolic dimensions (--dim NAME=VALUE), and the imported graph with its warnings.
//
// It is not an importer.
#pragma once

#include "ir/graph.h"
#include "ir/names.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lightsim::ir {

enum class UnknownOpPolicy {
  Error, // an op whose func_name (ONNX: op type) names no known op is an error (all of them are listed)
  Cpu,   // such ops become OpClass::Opaque (elementwise cost on CPUs only) and are reported as warnings
};
inline constexpr NameTable kUnknownOpPolicies{
    std::array{std::pair{UnknownOpPolicy::Error, std::string_view("error")},
               std::pair{UnknownOpPolicy::Cpu, std::string_view("cpu")}}};

// NAME -> value. A NAME is a dimension's dim_param ("N", "seq", "p2o.DynamicDimension.0"), or
// "INPUT[AXIS]" for one axis of a graph input (the only way to bind an axis that has no name).
using DimBindings = std::map<std::string, std::int64_t>;

struct ImportOptions {
  UnknownOpPolicy unknown_ops = UnknownOpPolicy::Error;
  DimBindings dims{}; // ONNX only; TVM graphs have no symbolic dimensions
};

struct ImportResult {
  Graph graph;
  std::vector<std::string> warnings; // one line each
};

// Parses one --dim argument "NAME=VALUE" (VALUE a positive decimal integer) into `dims`; InputError
// naming the argument when it is malformed or binds NAME twice to different values.
void add_dim_binding(DimBindings& dims, const std::string& argument);

} // namespace lightsim::ir
