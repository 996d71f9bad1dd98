#include "ir/tvm_import.h"

#include "ir/error.h"
#include "ir/json_reader.h"
#include "ir/topological_order.h"

#include <map>

namespace lightsim::ir {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxIndex = INT32_MAX - 1; // node and entry ids are int32 in ir::Graph

// An input or head: output `output` of node `node`.
struct EntryRef {
  std::size_t node = 0, output = 0;
};

// What the first pass learns about one node.
struct NodeInfo {
  std::string name;
  bool is_op = false;    // "tvm_op"; false for "null"
  std::string func_name; // tvm_op only
  std::int64_t first_entry = 0, num_outputs = 0;
  std::vector<EntryRef> inputs;
};

// Bound parameters: TVM's relay.build names the constants it binds p0, p1, ... ; every other null node
// (input_ids, past_k_0, attention masks) is fed per run.
bool is_bound_param_name(const std::string& name) {
  return name.size() >= 2 && name[0] == 'p' && name.find_first_not_of("0123456789", 1) == std::string::npos;
}

class TvmImporter {
public:
  TvmImporter(const json& doc, const std::string& source, const ImportOptions& options)
      : doc_(doc), in_(source), options_(options) {}

  ImportResult run() {
    in_.object(doc_, "");
    const json& nodes = in_.array(in_.member(doc_, "nodes", ""), "nodes");
    if (nodes.empty()) in_.fail("nodes", "is empty: the graph has no nodes");
    if (nodes.size() > static_cast<std::size_t>(kMaxIndex)) in_.fail("nodes", "too many nodes");
    read_row_ptr(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
      read_node_header(nodes[i], i);
    read_entries();
    for (std::size_t i = 0; i < nodes.size(); ++i)
      read_node_inputs(nodes[i], i);
    read_arg_nodes();
    read_heads();
    const std::vector<std::size_t> order = topological_order();
    classify_ops();
    build(order);
    return std::move(result_);
  }

private:
  std::string node_place(std::size_t i) const {
    return "nodes[" + std::to_string(i) + "] '" + nodes_[i].name + "'";
  }

  void read_row_ptr(std::size_t num_nodes) {
    const json& ptr = in_.array(in_.member(doc_, "node_row_ptr", ""), "node_row_ptr");
    if (ptr.size() != num_nodes + 1)
      in_.fail("node_row_ptr", "has " + std::to_string(ptr.size()) +
                                   " elements, expected nodes + 1 = " + std::to_string(num_nodes + 1));
    row_ptr_.reserve(ptr.size());
    for (std::size_t i = 0; i < ptr.size(); ++i) {
      const std::int64_t v = in_.integer(ptr[i], index_path("node_row_ptr", i), 0, kMaxIndex);
      if (i == 0 && v != 0) in_.fail("node_row_ptr[0]", "is " + std::to_string(v) + ", expected 0");
      if (i > 0 && v < row_ptr_.back())
        in_.fail(index_path("node_row_ptr", i),
                 "decreases (" + std::to_string(row_ptr_.back()) + " -> " + std::to_string(v) + ")");
      row_ptr_.push_back(v);
    }
  }

  void read_node_header(const json& node, std::size_t i) {
    const std::string path = index_path("nodes", i);
    NodeInfo info;
    info.name = in_.string(in_.member(node, "name", path), path + ".name");
    const std::string& op = in_.string(in_.member(node, "op", path), path + ".op");
    info.first_entry = row_ptr_[i];
    info.num_outputs = row_ptr_[i + 1] - row_ptr_[i];
    const std::string place = path + " '" + info.name + "'";
    if (op == "tvm_op") {
      info.is_op = true;
      const json& attrs = in_.member(node, "attrs", place);
      info.func_name = in_.string(in_.member(attrs, "func_name", path + ".attrs"), path + ".attrs.func_name");
      std::int64_t declared = 1;
      if (const json* n = in_.find(attrs, "num_outputs", path + ".attrs"))
        declared = in_.integer_or_digits(*n, path + ".attrs.num_outputs", 1, kMaxIndex);
      if (declared != info.num_outputs)
        in_.fail(place, "attrs.num_outputs is " + std::to_string(declared) + " but node_row_ptr gives it " +
                            std::to_string(info.num_outputs) + " outputs");
    } else if (op == "null") {
      if (info.num_outputs != 1)
        in_.fail(place, "an input (op \"null\") must have 1 output, node_row_ptr gives it " +
                            std::to_string(info.num_outputs));
    } else {
      in_.fail(path + ".op", "unknown node kind \"" + op + "\" (expected \"null\" or \"tvm_op\")");
    }
    nodes_.push_back(std::move(info));
  }

  void read_entries() {
    const auto entries = static_cast<std::size_t>(row_ptr_.back());
    const json& attrs = in_.member(doc_, "attrs", "");
    const json& shapes =
        in_.typed_list(in_.member(attrs, "shape", "attrs"), "list_shape", entries, "attrs.shape");
    const json& dtypes =
        in_.typed_list(in_.member(attrs, "dltype", "attrs"), "list_str", entries, "attrs.dltype");
    for (const char* key : {"storage_id", "device_index"})
      if (const json* list = in_.find(attrs, key, "attrs")) {
        const std::string path = std::string("attrs.") + key;
        const json& items = in_.typed_list(*list, "list_int", entries, path);
        for (std::size_t e = 0; e < items.size(); ++e)
          in_.integer(items[e], index_path(path + "[1]", e), -1);
      }
    tensors_.resize(entries);
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      for (std::int64_t k = 0; k < nodes_[i].num_outputs; ++k) {
        const auto e = static_cast<std::size_t>(nodes_[i].first_entry + k);
        const std::string owner = " (output " + std::to_string(k) + " of " + node_place(i) + ")";
        Tensor& t = tensors_[e];
        t.producer = static_cast<OpId>(i);
        t.output_index = static_cast<std::int32_t>(k);
        read_dtype(dtypes[e], index_path("attrs.dltype[1]", e) + owner, t);
        read_shape(shapes[e], index_path("attrs.shape[1]", e) + owner, t);
      }
  }

  void read_dtype(const json& value, const std::string& place, Tensor& t) const {
    const std::string& text = in_.string(value, place);
    const std::optional<DType> type = parse_dtype(text);
    if (!type) in_.fail(place, "unknown dtype \"" + text + "\"");
    t.dtype = *type;
  }

  void read_shape(const json& value, const std::string& place, Tensor& t) const {
    in_.array(value, place);
    std::uint64_t elements = 1;
    for (std::size_t d = 0; d < value.size(); ++d) {
      const json& dim = value[d];
      if (dim.is_number_float())
        in_.fail(place, "dim " + std::to_string(d) + " is " + dim.dump() + ", not an integer");
      if (dim.is_number_integer() && !dim.is_number_unsigned() && dim.get<std::int64_t>() < 0)
        in_.fail(place, "dim " + std::to_string(d) + " is negative (" + dim.dump() + ")");
      const std::int64_t v = in_.integer(dim, place + " dim " + std::to_string(d), 0);
      t.shape.push_back(v);
      if (__builtin_mul_overflow(elements, static_cast<std::uint64_t>(v), &elements))
        in_.fail(place, "shape " + value.dump() + " has more than 2^64 elements");
    }
    t.elements = elements;
    if (__builtin_mul_overflow(elements, std::uint64_t{dtype_storage_bytes(t.dtype)}, &t.bytes))
      in_.fail(place, "shape " + value.dump() + " of " + std::string(dtype_name(t.dtype)) +
                          " is more than 2^64 bytes");
  }

  // [node, output index] or [node, output index, version], checked against the graph.
  EntryRef read_entry_ref(const json& value, const std::string& path) const {
    in_.array(value, path);
    if (value.size() != 2 && value.size() != 3)
      in_.fail(path, "expected [node, output index, version], found " + value.dump());
    const std::int64_t node = in_.integer(value[0], path + "[0]", 0);
    const std::int64_t index = in_.integer(value[1], path + "[1]", 0);
    if (value.size() == 3) in_.integer(value[2], path + "[2]", 0);
    if (node >= static_cast<std::int64_t>(nodes_.size()))
      in_.fail(path, "refers to node " + std::to_string(node) + ", but the graph has " +
                         std::to_string(nodes_.size()) + " nodes");
    const NodeInfo& target = nodes_[static_cast<std::size_t>(node)];
    if (index >= target.num_outputs)
      in_.fail(path, "refers to output " + std::to_string(index) + " of node " + std::to_string(node) + " '" +
                         target.name + "', which has " + std::to_string(target.num_outputs) +
                         (target.num_outputs == 1 ? " output" : " outputs"));
    return {static_cast<std::size_t>(node), static_cast<std::size_t>(index)};
  }

  void read_node_inputs(const json& node, std::size_t i) {
    const std::string path = index_path("nodes", i);
    const json& inputs = in_.array(in_.member(node, "inputs", path), path + ".inputs");
    NodeInfo& info = nodes_[i];
    if (!info.is_op && !inputs.empty())
      in_.fail(node_place(i), "an input (op \"null\") has " + std::to_string(inputs.size()) + " inputs");
    if (info.is_op)
      if (const json* n = in_.find(node["attrs"], "num_inputs", path + ".attrs")) {
        const std::int64_t declared = in_.integer_or_digits(*n, path + ".attrs.num_inputs", 0, kMaxIndex);
        if (declared != static_cast<std::int64_t>(inputs.size()))
          in_.fail(node_place(i), "attrs.num_inputs is " + std::to_string(declared) + " but it lists " +
                                      std::to_string(inputs.size()) + " inputs");
      }
    for (std::size_t k = 0; k < inputs.size(); ++k)
      info.inputs.push_back(read_entry_ref(inputs[k], index_path(path + ".inputs", k)));
  }

  void read_arg_nodes() {
    const json& args = in_.array(in_.member(doc_, "arg_nodes", ""), "arg_nodes");
    for (std::size_t k = 0; k < args.size(); ++k) {
      const std::string path = index_path("arg_nodes", k);
      const std::int64_t node = in_.integer(args[k], path, 0);
      if (node >= static_cast<std::int64_t>(nodes_.size()))
        in_.fail(path, "refers to node " + std::to_string(node) + ", but the graph has " +
                           std::to_string(nodes_.size()) + " nodes");
      if (nodes_[static_cast<std::size_t>(node)].is_op)
        in_.fail(path, "refers to " + node_place(static_cast<std::size_t>(node)) + ", which is not an input");
    }
  }

  void read_heads() {
    const json& heads = in_.array(in_.member(doc_, "heads", ""), "heads");
    if (heads.empty()) in_.fail("heads", "is empty: the graph has no outputs");
    for (std::size_t k = 0; k < heads.size(); ++k)
      heads_.push_back(read_entry_ref(heads[k], index_path("heads", k)));
  }

  std::vector<std::size_t> topological_order() const {
    std::vector<std::vector<std::size_t>> preds(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      for (const EntryRef& r : nodes_[i].inputs)
        preds[i].push_back(r.node);
    TopologicalOrder topo = stable_topological_order(preds);
    if (topo.cycle.empty()) return topo.order;
    std::string path;
    for (std::size_t n : topo.cycle)
      path += std::to_string(n) + " -> ";
    path += std::to_string(topo.cycle.front());
    in_.fail(node_place(topo.cycle.front()), "is on a cycle: nodes " + path);
  }

  void classify_ops() {
    std::map<std::string, std::vector<std::size_t>> unknown; // func_name -> nodes, sorted by name
    classes_.resize(nodes_.size(), Classification{OpClass::Input, {}});
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i].is_op) continue;
      if (std::optional<Classification> c = classify_func_name(nodes_[i].func_name))
        classes_[i] = std::move(*c);
      else
        unknown[nodes_[i].func_name].push_back(i);
    }
    if (unknown.empty()) return;
    std::string list;
    for (const auto& [func_name, where] : unknown) {
      const std::string count = where.size() > 1 ? ", " + std::to_string(where.size()) + " nodes" : "";
      const std::string first = "first at nodes[" + std::to_string(where.front()) + "]" + count;
      list += (list.empty() ? "" : ", ") + ("'" + func_name + "' (" + first + ")");
      if (options_.unknown_ops == UnknownOpPolicy::Cpu) {
        result_.warnings.push_back(in_.source() + ": " + node_place(where.front()) + ": unknown op '" +
                                   func_name + "' (" + std::to_string(where.size()) +
                                   " nodes): treated as opaque, elementwise cost on CPUs only");
        for (std::size_t i : where)
          classes_[i] = Classification{OpClass::Opaque, {}};
      }
    }
    if (options_.unknown_ops == UnknownOpPolicy::Error)
      in_.fail("nodes", std::to_string(unknown.size()) + " unknown op func_name" +
                            (unknown.size() > 1 ? "s: " : ": ") + list +
                            "; --unknown-op=cpu runs them as opaque CPU ops");
  }

  void build(const std::vector<std::size_t>& order) {
    Graph& g = result_.graph;
    g.source = in_.source();
    std::vector<OpId> op_of(nodes_.size());
    for (std::size_t pos = 0; pos < order.size(); ++pos)
      op_of[order[pos]] = static_cast<OpId>(pos);
    auto tensor_of = [&](const EntryRef& r) {
      return static_cast<TensorId>(nodes_[r.node].first_entry + static_cast<std::int64_t>(r.output));
    };
    g.tensors = std::move(tensors_);
    for (Tensor& t : g.tensors)
      t.producer = op_of[static_cast<std::size_t>(t.producer)];
    g.ops.reserve(order.size());
    for (std::size_t i : order) {
      NodeInfo& node = nodes_[i];
      Op op;
      op.name = std::move(node.name);
      op.func_name = std::move(node.func_name);
      op.op_class = classes_[i].anchor;
      op.fused_tail = std::move(classes_[i].tail);
      op.is_param = !node.is_op && is_bound_param_name(op.name);
      op.node_index = static_cast<std::int32_t>(i);
      for (const EntryRef& r : node.inputs)
        op.inputs.push_back(tensor_of(r));
      for (std::int64_t k = 0; k < node.num_outputs; ++k)
        op.outputs.push_back(static_cast<TensorId>(node.first_entry + k));
      g.ops.push_back(std::move(op));
    }
    for (const EntryRef& r : heads_)
      g.heads.push_back(tensor_of(r));
    g.finalize();
  }

  const json& doc_;
  JsonReader in_;
  ImportOptions options_;
  std::vector<std::int64_t> row_ptr_;
  std::vector<NodeInfo> nodes_;
  std::vector<Tensor> tensors_;
  std::vector<EntryRef> heads_;
  std::vector<Classification> classes_;
  ImportResult result_;
};

} // namespace

ImportResult import_tvm_graph(const nlohmann::json& doc, const std::string& source,
                              const ImportOptions& options) {
  return TvmImporter(doc, source, options).run();
}

ImportResult import_tvm_graph_file(const std::string& path, const ImportOptions& options) {
  const nlohmann::json doc = read_json_file(path);
  return import_tvm_graph(doc, path, options);
}

} // namespace lightsim::ir
