// The one entry point for graph files given by users (--graph, --retrain-graphs, lightsim-profile): the
// format is told by the content, not the extension. A file whose first non-blank byte is '{' is TVM
// graph-executor JSON (ir/tvm/tvm_import.h); anything else is read as an ONNX model (ir/onnx/onnx_import.h),
// which rejects what does not parse as one.
//
// It is not an importer itself.
#pragma once

#include "ir/import_options.h"

#include <string>
#include <string_view>

namespace lightsim::ir {

enum class GraphFormat { TvmJson, Onnx };

// The format of a file that begins with `head` (its first bytes).
GraphFormat sniff_graph_format(std::string_view head);

// Imports `path` in the format its content shows. --dim bindings given for a TVM graph (which has no
// symbolic dimensions) are reported as a warning.
ImportResult import_graph_file(const std::string& path, const ImportOptions& options = {});

} // namespace lightsim::ir
