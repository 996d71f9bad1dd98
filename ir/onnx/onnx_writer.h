// ONNX writer: an unfused ir::Graph (what lightsim-graph builds, as imported from its TVM JSON) written as
// an ONNX model, shapes only: weights (Input ops with is_param) are initializers whose data is an external
// reference (to `weights_file`, never written), per-run inputs are graph inputs. Each Relay op becomes the
// ONNX op TVM's ONNX front end would have read it from (nn_dense -> Gemm or Einsum, nn_batch_matmul -> MatMul
// or Einsum, __nop -> Reshape, nn_conv2d -> Conv, ...), with the attributes and shape operands (small int64
// initializers) that reproduce its shapes; Relay ops ONNX has no op for (rsqrt, variance) are written in the
// domain "ai.lightsim" with their Relay name and their outputs' value_info, which lightsim's importer reads
// back by that name (other tensors get no value_info: the importer infers them). Importing the file gives the
// same op classes, shapes, MACs and bytes.
//
// It is not a general exporter: fused graphs are refused, and attributes the TVM JSON did not keep (a
// pooling window, a convolution's padding) are chosen to reproduce the shapes, not recovered.
#pragma once

#include "ir/graph.h"

#include <iosfwd>
#include <string>

namespace lightsim::ir {

// Writes `graph` as a serialized ModelProto (opset 17) to `out`; InputError for a fused graph or an op the
// writer cannot express.
void write_onnx_graph(const Graph& graph, std::ostream& out, const std::string& weights_file = "weights.bin");

} // namespace lightsim::ir
