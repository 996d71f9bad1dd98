// Import of an ONNX model (a ModelProto, read with libonnx's protobuf classes) into an ir::Graph, with the
// same op classes, shapes, dtypes, MACs and bytes as the TVM importer gives the same computation
// (ir/tvm/tvm_import.h), so that fusion, the solver, the replay and the traces work on it unchanged.
//
// - Every graph input's symbolic dimension (dim_param) must be bound (ImportOptions::dims, --dim
//   NAME=VALUE); unbound ones are one error listing every name and where it appears.
// - Shapes are inferred by lightsim's own rules per op and opset (ir/onnx/shape_rules.h), opsets 1 to 22
//   of the standard domain: current exporters' opset-18 forms (ReduceMean's axes as an input, Split's
//   num_outputs, ...) included, which Debian's libonnx 1.12 (opset 17) does not know.
// - Shape subgraphs (Shape -> Gather -> Concat -> Reshape, Range, ConstantOfShape ...) are folded once the
//   dims are bound (ir/onnx/values.h): their nodes are not ops; a folded tensor that an op reads as data
//   (position ids) becomes a bound constant. Constant nodes and initializers are read for their values
//   only where a shape needs them; external data is never read.
// - Initializers and Constant nodes become Input ops with is_param (TVM's bound constants); graph inputs
//   that are not initializers are per-run inputs. Nodes whose outputs nothing reads are left out.
// - Ops of domain "ai.lightsim" (what lightsim-graph --format onnx writes for Relay ops ONNX lacks, e.g.
//   rsqrt) are classified by their op type as a TVM func_name, with the shapes the file declares
//   (value_info). With UnknownOpPolicy::Cpu an unknown op is Opaque with its declared shapes.
//
// Bad input (not a protobuf ModelProto, a truncated file, a node reading a value nothing produces, a cycle,
// an unbound dimension, shapes that contradict an op or its declared type, an op at an opset whose
// semantics lightsim does not know) is an InputError naming the file, the node and the reason.
// It is not an ONNX runtime: no values but the shape subgraphs' are computed.
#pragma once

#include "ir/import_options.h"

#include <string>
#include <string_view>

namespace lightsim::ir {

ImportResult import_onnx_file(const std::string& path, const ImportOptions& options = {});
// The same from the file's bytes (`source` names them in messages).
ImportResult import_onnx_bytes(std::string_view bytes, const std::string& source,
                               const ImportOptions& options = {});

} // namespace lightsim::ir
