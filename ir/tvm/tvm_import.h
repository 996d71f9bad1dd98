// Import of TVM graph-executor JSON (the `graph.json` that relay.build / tvm.relay writes, and that
// lightsim-graph emits) into an ir::Graph. Reads nodes, arg_nodes, heads, node_row_ptr and the per-entry
// attrs.shape / attrs.dltype lists (storage_id and device_index are read for validation only), keeps
// every output of multi-output nodes (split), and the output index of every input.
//
// Everything is validated; the first problem found raises InputError with the file, the JSON path or
// node index, and what is wrong ("g.json: nodes[12].inputs[1]: refers to output 3 of node 7 'split',
// which has 3 outputs"). Unknown func_names are gathered over the whole graph and reported together.
//
// Rules the importer applies:
// - Ops keep the file's node order when it is topological; an acyclic file in another order is
//   reordered stably (smallest ready node first); a cycle is an error naming a node on it. Op::node_index
//   keeps the file's index; tensor ids are the file's entry ids (node_row_ptr[n] + output index).
// - "null" nodes become OpClass::Input. Op::is_param is true for those named like TVM's bound
//   parameters, "p" followed by digits only (p0, p17): relay.build binds weights and constants under
//   these names. Every other null node (input_ids, past_k_0, attention_mask, ...) is a per-run input.
// - Shape dims must be non-negative JSON integers; elements and bytes (elements x storage bytes of the
//   dtype) must fit 64 bits.
//
// It is not a TVM runtime: no kernels are loaded or run.
#pragma once

#include "ir/graph.h"
#include "ir/import_options.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::ir {

ImportResult import_tvm_graph_file(const std::string& path, const ImportOptions& options = {});
// The same from the file's text (`source` names it in messages).
ImportResult import_tvm_graph_text(std::string_view text, const std::string& source,
                                   const ImportOptions& options = {});
// `source` names the text in messages.
ImportResult import_tvm_graph(const nlohmann::json& doc, const std::string& source,
                              const ImportOptions& options = {});

} // namespace lightsim::ir
