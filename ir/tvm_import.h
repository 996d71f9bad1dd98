// Import of TVM graph-executor JSON (the `graph.json` that relay.build / tvm.relay writes, and that
// lightsim-graph emits) into an ir::Graph. Reads nodes, arg_nodes, heads, node_row_ptr and the per-entry
// attrs.shape / attrs.dltype lists (storage_id and device_index are read for validation only), keeps
// every output of multi-output nodes (split), and the output index of every input.
//
// Everything is validated; the first problem found raises InputError with the file, the JSON path or
// node index, and what is wrong. It is not a TVM runtime: no kernels are loaded or run.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ir/graph.h"

namespace lightsim::ir {

enum class UnknownOpPolicy {
  Error, // an op whose func_name names no known op is an error (all of them are listed)
  Cpu,   // such ops become OpClass::Opaque (elementwise cost on CPUs only) and are reported as warnings
};

struct ImportOptions {
  UnknownOpPolicy unknown_ops = UnknownOpPolicy::Error;
};

struct ImportResult {
  Graph graph;
  std::vector<std::string> warnings; // one line each
};

ImportResult import_tvm_graph_file(const std::string& path, const ImportOptions& options = {});
// `source` names the text in messages.
ImportResult import_tvm_graph(const nlohmann::json& doc, const std::string& source,
                              const ImportOptions& options = {});

} // namespace lightsim::ir
