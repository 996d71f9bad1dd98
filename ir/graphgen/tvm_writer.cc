#include "ir/graphgen/tvm_writer.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace lightsim::ir::graphgen {
namespace {

// TVM's graph-executor device type for CPU (kDLCPU).
constexpr int kDeviceCpu = 1;

nlohmann::json node_json(const TvmGraph& g, std::size_t n) {
  const TvmNode& node = g.nodes[n];
  nlohmann::json j;
  j["op"] = node.is_null ? "null" : "tvm_op";
  j["name"] = node.name;
  if (!node.is_null) {
    const std::size_t outputs = static_cast<std::size_t>(g.node_row_ptr[n + 1] - g.node_row_ptr[n]);
    j["attrs"] = {{"num_outputs", std::to_string(outputs)},
                  {"num_inputs", std::to_string(node.inputs.size())},
                  {"flatten_data", "0"},
                  {"func_name", node.func_name},
                  {"hash", node.hash}};
    for (const auto& [key, value] : g.exprs->exprs()[static_cast<std::size_t>(node.expr)].node_attrs)
      j["attrs"][key] = value;
  }
  nlohmann::json inputs = nlohmann::json::array();
  for (const TvmEntryRef& in : node.inputs)
    inputs.push_back({in.node, in.index, 0});
  j["inputs"] = std::move(inputs);
  return j;
}

// Writes `name: [elem0, elem1, ...]` calling emit(i) for each element.
template <typename Emit> void write_list(std::ostream& out, std::size_t count, Emit emit) {
  out << '[';
  for (std::size_t i = 0; i < count; ++i) {
    if (i) out << ", ";
    emit(i);
  }
  out << ']';
}

} // namespace

void write_tvm_graph(const TvmGraph& g, std::ostream& out) {
  const std::size_t entries = g.storage_id.size();
  // Entry i -> (node, output index), for the per-entry lists.
  auto entry_type = [&g](std::size_t node, std::size_t k) -> const TensorType& {
    return g.entry_type(static_cast<std::int32_t>(node), static_cast<std::int32_t>(k));
  };

  out << "{\n  \"nodes\": [";
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    out << (n ? ",\n    " : "\n    ") << node_json(g, n).dump();
  out << "\n  ],\n  \"arg_nodes\": ";
  write_list(out, g.arg_nodes.size(), [&](std::size_t i) { out << g.arg_nodes[i]; });
  out << ",\n  \"heads\": ";
  write_list(out, g.heads.size(),
             [&](std::size_t i) { out << '[' << g.heads[i].node << ", " << g.heads[i].index << ", 0]"; });
  out << ",\n  \"attrs\": {\n    \"dltype\": [\"list_str\", ";
  auto for_each_entry = [&](auto emit) {
    out << '[';
    bool first = true;
    for (std::size_t n = 0; n < g.nodes.size(); ++n)
      for (std::int64_t k = 0; k < g.node_row_ptr[n + 1] - g.node_row_ptr[n]; ++k) {
        if (!first) out << ", ";
        first = false;
        emit(entry_type(n, static_cast<std::size_t>(k)));
      }
    out << ']';
  };
  for_each_entry([&](const TensorType& t) { out << '"' << dtype_name(t.dtype) << '"'; });
  out << "],\n    \"device_index\": [\"list_int\", ";
  write_list(out, entries, [&](std::size_t) { out << kDeviceCpu; });
  out << "],\n    \"storage_id\": [\"list_int\", ";
  write_list(out, entries, [&](std::size_t i) { out << g.storage_id[i]; });
  out << "],\n    \"shape\": [\"list_shape\", ";
  for_each_entry([&](const TensorType& t) {
    write_list(out, t.shape.size(), [&](std::size_t i) { out << t.shape[i]; });
  });
  out << "]\n  },\n  \"node_row_ptr\": ";
  write_list(out, g.node_row_ptr.size(), [&](std::size_t i) { out << g.node_row_ptr[i]; });
  out << "\n}\n";
}

} // namespace lightsim::ir::graphgen
