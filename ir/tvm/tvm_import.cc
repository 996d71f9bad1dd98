#include "ir/tvm/tvm_import.h"

#include "ir/error.h"
#include "ir/json_reader.h"
#include "ir/topological_order.h"
#include "ir/tvm/tvm_attrs.h"
#include "ir/tvm/tvm_document.h"

#include <map>
#include <span>
#include <tuple>

namespace lightsim::ir {
namespace {

constexpr std::int64_t kMaxIndex = INT32_MAX - 1; // node and entry ids are int32 in ir::Graph

// An input or head: output `output` of node `node`.
struct EntryRef {
  std::size_t node = 0, output = 0;
};

// What the importer learns about one node.
struct NodeInfo {
  bool is_op = false; // "tvm_op"; false for "null"
  std::int64_t first_entry = 0, num_outputs = 0;
  std::size_t inputs_begin = 0, inputs_end = 0; // in TvmImporter::inputs_
};

// Bound parameters: TVM's relay.build names the constants it binds p0, p1, ... ; every other null node
// (input_ids, past_k_0, attention masks) is fed per run.
bool is_bound_param_name(std::string_view name) {
  return name.size() >= 2 && name[0] == 'p' && name.find_first_not_of("0123456789", 1) == std::string::npos;
}

// "[2,3]", as nlohmann dumps an array of integers.
std::string dims_text(std::span<const std::int64_t> dims) {
  std::string text = "[";
  for (std::size_t d = 0; d < dims.size(); ++d)
    text.append(d ? "," : "").append(std::to_string(dims[d]));
  return text + "]";
}

// Validates a TvmDocument and converts it. Values the document kept whole (of an unexpected kind) go
// through JsonReader, which names what it found; the rest is checked on the flat form. Paths for
// messages are built only when something is wrong.
class TvmImporter {
public:
  TvmImporter(const TvmDocument& doc, const std::string& source, const ImportOptions& options)
      : doc_(doc), in_(source), options_(options) {}

  ImportResult run() {
    if (doc_.root >= 0) in_.object(doc_.value(doc_.root), "");
    present(doc_.nodes, "", "nodes");
    const std::size_t num_nodes = doc_.node_list.size();
    if (num_nodes == 0) in_.fail("nodes", "is empty: the graph has no nodes");
    if (num_nodes > static_cast<std::size_t>(kMaxIndex)) in_.fail("nodes", "too many nodes");
    read_row_ptr(num_nodes);
    nodes_.resize(num_nodes);
    for (std::size_t i = 0; i < num_nodes; ++i)
      read_node_header(i);
    read_entries();
    inputs_.reserve(doc_.refs.size());
    for (std::size_t i = 0; i < num_nodes; ++i)
      read_node_inputs(i);
    read_arg_nodes();
    read_heads();
    const std::vector<std::size_t> order = topological_order();
    classify_ops();
    build(order);
    return std::move(result_);
  }

private:
  std::string_view name(std::size_t i) const { return doc_.text(doc_.node_list[i].name_text); }
  std::string node_place(std::size_t i) const {
    return "nodes[" + std::to_string(i) + "] '" + std::string(name(i)) + "'";
  }

  // A member that must be there and, where it is not of the expected kind, an array.
  void present(Slot slot, const std::string& object_path, std::string_view key) const {
    if (slot == kAbsent) in_.missing(object_path, key);
    if (slot >= 0) in_.array(doc_.value(slot), std::string(key));
  }

  template <class PathFn>
  std::int64_t integer(IntItem item, const PathFn& path, std::int64_t min,
                       std::int64_t max = INT64_MAX) const {
    if (is_unexpected(item)) return in_.integer(doc_.value(unexpected_slot(item)), path(), min, max);
    return in_.in_range(item, path, min, max);
  }

  void read_row_ptr(std::size_t num_nodes) {
    present(doc_.node_row_ptr, "", "node_row_ptr");
    const std::vector<IntItem>& ptr = doc_.row_ptr_items;
    if (ptr.size() != num_nodes + 1)
      in_.fail("node_row_ptr", "has " + std::to_string(ptr.size()) +
                                   " elements, expected nodes + 1 = " + std::to_string(num_nodes + 1));
    row_ptr_.reserve(ptr.size());
    for (std::size_t i = 0; i < ptr.size(); ++i) {
      const std::int64_t v = integer(
          ptr[i], [i] { return index_path("node_row_ptr", i); }, 0, kMaxIndex);
      if (i == 0 && v != 0) in_.fail("node_row_ptr[0]", "is " + std::to_string(v) + ", expected 0");
      if (i > 0 && v < row_ptr_.back())
        in_.fail(index_path("node_row_ptr", i),
                 "decreases (" + std::to_string(row_ptr_.back()) + " -> " + std::to_string(v) + ")");
      row_ptr_.push_back(v);
    }
  }

  void read_node_header(std::size_t i) {
    const TvmNode& node = doc_.node_list[i];
    const auto path = [i] { return index_path("nodes", i); };
    if (node.self >= 0) in_.object(doc_.value(node.self), path());
    for (const auto& [slot, key] : {std::pair{node.name, "name"}, std::pair{node.op, "op"}}) {
      if (slot == kAbsent) in_.missing(path(), key);
      if (slot >= 0) in_.string(doc_.value(slot), path() + "." + key);
    }
    NodeInfo& info = nodes_[i];
    info.first_entry = row_ptr_[i];
    info.num_outputs = row_ptr_[i + 1] - row_ptr_[i];
    if (node.kind == NodeKind::TvmOp) {
      info.is_op = true;
      if (node.attrs == kAbsent) in_.missing(node_place(i), "attrs");
      if (node.attrs >= 0) in_.object(doc_.value(node.attrs), path() + ".attrs");
      if (node.func_name == kAbsent) in_.missing(path() + ".attrs", "func_name");
      if (node.func_name >= 0) in_.string(doc_.value(node.func_name), path() + ".attrs.func_name");
      const std::int64_t declared =
          attr_count(node.num_outputs, node.num_outputs_value, i, ".attrs.num_outputs", 1);
      if (declared != info.num_outputs)
        in_.fail(node_place(i), "attrs.num_outputs is " + std::to_string(declared) +
                                    " but node_row_ptr gives it " + std::to_string(info.num_outputs) +
                                    " outputs");
    } else if (node.kind == NodeKind::Null) {
      if (info.num_outputs != 1)
        in_.fail(node_place(i), "an input (op \"null\") must have 1 output, node_row_ptr gives it " +
                                    std::to_string(info.num_outputs));
    } else {
      in_.fail(path() + ".op", "unknown node kind \"" + std::string(doc_.text(node.op_text)) +
                                   "\" (expected \"null\" or \"tvm_op\")");
    }
  }

  // attrs.num_outputs / num_inputs: `fallback` when absent.
  std::int64_t attr_count(Slot slot, std::int64_t value, std::size_t i, const char* key,
                          std::int64_t fallback) const {
    const auto path = [&] { return index_path("nodes", i) + key; };
    if (slot == kAbsent) return fallback;
    if (slot >= 0) return in_.integer_or_digits(doc_.value(slot), path(), fallback, kMaxIndex);
    return in_.in_range(value, path, fallback, kMaxIndex);
  }

  void typed_list(const TypedList& list, std::string_view key, std::string_view tag,
                  std::size_t length) const {
    const std::string path = "attrs." + std::string(key);
    if (list.slot == kAbsent) in_.missing("attrs", key);
    if (list.slot == kMalformed) in_.fail(path, "expected [\"" + std::string(tag) + "\", [...]]");
    const std::string_view found = doc_.text(list.tag);
    if (found != tag)
      in_.fail(index_path(path, 0),
               "expected \"" + std::string(tag) + "\", found " + nlohmann::json(std::string(found)).dump());
    if (list.size != length)
      in_.fail(index_path(path, 1), "has " + std::to_string(list.size) +
                                        " elements, expected one per entry (" + std::to_string(length) + ")");
  }

  void read_entries() {
    const auto entries = static_cast<std::size_t>(row_ptr_.back());
    if (doc_.attrs == kAbsent) in_.missing("", "attrs");
    if (doc_.attrs >= 0) in_.object(doc_.value(doc_.attrs), "attrs");
    typed_list(doc_.shape, "shape", "list_shape", entries);
    typed_list(doc_.dltype, "dltype", "list_str", entries);
    for (const auto& [list, odd, key] :
         {std::tuple{&doc_.storage_id, &doc_.odd_storage_ids, "storage_id"},
          std::tuple{&doc_.device_index, &doc_.odd_device_indices, "device_index"}})
      if (list->slot != kAbsent) {
        typed_list(*list, key, "list_int", entries);
        for (const IndexItem& item : *odd) // the others are non-negative integers
          in_.integer(doc_.value(item.value), index_path("attrs." + std::string(key) + "[1]", item.index),
                      -1);
      }
    tensors_.resize(entries);
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      for (std::int64_t k = 0; k < nodes_[i].num_outputs; ++k) {
        const auto e = static_cast<std::size_t>(nodes_[i].first_entry + k);
        const auto place = [&](const char* list) {
          return index_path(list, e) + " (output " + std::to_string(k) + " of " + node_place(i) + ")";
        };
        Tensor& t = tensors_[e];
        t.producer = static_cast<OpId>(i);
        t.output_index = static_cast<std::int32_t>(k);
        const DtypeItem& dtype = doc_.dtypes[e];
        t.dtype = dtype.type;
        if (dtype.value >= 0) read_dtype(doc_.value(dtype.value), place("attrs.dltype[1]"), t);
        const ShapeItem& shape = doc_.shapes[e];
        if (shape.value >= 0)
          read_shape(doc_.value(shape.value), place("attrs.shape[1]"), t);
        else
          read_shape(
              std::span(doc_.dims).subspan(shape.begin, shape.end - shape.begin),
              [&] { return place("attrs.shape[1]"); }, t);
      }
  }

  void read_dtype(const nlohmann::json& value, const std::string& place, Tensor& t) const {
    const std::string& text = in_.string(value, place);
    const std::optional<DType> type = parse_dtype(text);
    if (!type) in_.fail(place, "unknown dtype \"" + text + "\"");
    t.dtype = *type;
  }

  // One more dim of `t`; `place()` and `shape()` (the whole shape) are for the message.
  template <class PlaceFn, class ShapeFn>
  void add_dim(Tensor& t, std::int64_t dim, const PlaceFn& place, const ShapeFn& shape) const {
    t.shape.push_back(dim);
    if (__builtin_mul_overflow(t.elements, static_cast<std::uint64_t>(dim), &t.elements))
      in_.fail(place(), "shape " + shape() + " has more than 2^64 elements");
  }

  template <class PlaceFn, class ShapeFn>
  void set_bytes(Tensor& t, const PlaceFn& place, const ShapeFn& shape) const {
    const std::optional<std::uint64_t> bytes = dtype_tensor_bytes(t.dtype, t.elements);
    if (bytes)
      t.bytes = *bytes;
    else
      in_.fail(place(),
               "shape " + shape() + " of " + std::string(dtype_name(t.dtype)) + " is more than 2^64 bytes");
  }

  // A shape of non-negative integers.
  template <class PlaceFn>
  void read_shape(std::span<const std::int64_t> dims, const PlaceFn& place, Tensor& t) const {
    const auto shape = [&] { return dims_text(dims); };
    t.shape.reserve(dims.size());
    t.elements = 1;
    for (std::int64_t dim : dims)
      add_dim(t, dim, place, shape);
    set_bytes(t, place, shape);
  }

  // A shape the document kept whole: something in it is not a non-negative integer.
  void read_shape(const nlohmann::json& value, const std::string& place, Tensor& t) const {
    in_.array(value, place);
    const auto shape = [&] { return value.dump(); };
    const auto where = [&] { return place; };
    t.elements = 1;
    for (std::size_t d = 0; d < value.size(); ++d) {
      const nlohmann::json& dim = value[d];
      if (dim.is_number_float())
        in_.fail(place, "dim " + std::to_string(d) + " is " + dim.dump() + ", not an integer");
      if (dim.is_number_integer() && !dim.is_number_unsigned() && dim.get<std::int64_t>() < 0)
        in_.fail(place, "dim " + std::to_string(d) + " is negative (" + dim.dump() + ")");
      add_dim(t, in_.integer(dim, place + " dim " + std::to_string(d), 0), where, shape);
    }
    set_bytes(t, where, shape);
  }

  // [node, output index] or [node, output index, version], checked against the graph.
  template <class PathFn> EntryRef read_entry_ref(const TvmRef& ref, const PathFn& path) const {
    std::int64_t node = ref.node, index = ref.output;
    if (node < 0) { // kept whole: not 2 or 3 non-negative integers
      const nlohmann::json& value = doc_.value(unexpected_slot(node));
      in_.array(value, path());
      if (value.size() != 2 && value.size() != 3)
        in_.fail(path(), "expected [node, output index, version], found " + value.dump());
      node = in_.integer(value[0], path() + "[0]", 0);
      index = in_.integer(value[1], path() + "[1]", 0);
      if (value.size() == 3) in_.integer(value[2], path() + "[2]", 0);
    }
    if (node >= static_cast<std::int64_t>(nodes_.size()))
      in_.fail(path(), "refers to node " + std::to_string(node) + ", but the graph has " +
                           std::to_string(nodes_.size()) + " nodes");
    const NodeInfo& target = nodes_[static_cast<std::size_t>(node)];
    if (index >= target.num_outputs)
      in_.fail(path(), "refers to output " + std::to_string(index) + " of node " + std::to_string(node) +
                           " '" + std::string(name(static_cast<std::size_t>(node))) + "', which has " +
                           std::to_string(target.num_outputs) +
                           (target.num_outputs == 1 ? " output" : " outputs"));
    return {static_cast<std::size_t>(node), static_cast<std::size_t>(index)};
  }

  void read_node_inputs(std::size_t i) {
    const TvmNode& node = doc_.node_list[i];
    const auto path = [i] { return index_path("nodes", i); };
    if (node.inputs == kAbsent) in_.missing(path(), "inputs");
    if (node.inputs >= 0) in_.array(doc_.value(node.inputs), path() + ".inputs");
    NodeInfo& info = nodes_[i];
    const std::size_t count = node.inputs_end - node.inputs_begin;
    if (!info.is_op && count > 0)
      in_.fail(node_place(i), "an input (op \"null\") has " + std::to_string(count) + " inputs");
    if (info.is_op && node.num_inputs != kAbsent) {
      const std::int64_t declared =
          attr_count(node.num_inputs, node.num_inputs_value, i, ".attrs.num_inputs", 0);
      if (declared != static_cast<std::int64_t>(count))
        in_.fail(node_place(i), "attrs.num_inputs is " + std::to_string(declared) + " but it lists " +
                                    std::to_string(count) + " inputs");
    }
    info.inputs_begin = inputs_.size();
    for (std::size_t k = 0; k < count; ++k)
      inputs_.push_back(read_entry_ref(doc_.refs[node.inputs_begin + k],
                                       [&] { return index_path(path() + ".inputs", k); }));
    info.inputs_end = inputs_.size();
  }

  void read_arg_nodes() {
    present(doc_.arg_nodes, "", "arg_nodes");
    for (std::size_t k = 0; k < doc_.arg_node_items.size(); ++k) {
      const auto path = [k] { return index_path("arg_nodes", k); };
      const std::int64_t node = integer(doc_.arg_node_items[k], path, 0);
      if (node >= static_cast<std::int64_t>(nodes_.size()))
        in_.fail(path(), "refers to node " + std::to_string(node) + ", but the graph has " +
                             std::to_string(nodes_.size()) + " nodes");
      if (nodes_[static_cast<std::size_t>(node)].is_op)
        in_.fail(path(),
                 "refers to " + node_place(static_cast<std::size_t>(node)) + ", which is not an input");
    }
  }

  void read_heads() {
    present(doc_.heads, "", "heads");
    if (doc_.head_items.empty()) in_.fail("heads", "is empty: the graph has no outputs");
    for (std::size_t k = 0; k < doc_.head_items.size(); ++k)
      heads_.push_back(read_entry_ref(doc_.head_items[k], [k] { return index_path("heads", k); }));
  }

  std::vector<std::size_t> topological_order() const {
    PredecessorLists graph;
    graph.pred_begin.reserve(nodes_.size() + 1);
    graph.preds.reserve(inputs_.size());
    for (const NodeInfo& node : nodes_) {
      for (std::size_t k = node.inputs_begin; k < node.inputs_end; ++k)
        graph.preds.push_back(inputs_[k].node);
      graph.pred_begin.push_back(graph.preds.size());
    }
    TopologicalOrder topo = stable_topological_order(graph);
    if (topo.cycle.empty()) return topo.order;
    std::string path;
    for (std::size_t n : topo.cycle)
      path += std::to_string(n) + " -> ";
    path += std::to_string(topo.cycle.front());
    in_.fail(node_place(topo.cycle.front()), "is on a cycle: nodes " + path);
  }

  std::string_view func_name(std::size_t i) const { return doc_.text(doc_.node_list[i].func_name_text); }

  void classify_ops() {
    std::map<std::string_view, std::vector<std::size_t>> unknown; // func_name -> nodes, sorted by name
    classes_.resize(nodes_.size(), Classification{OpClass::Input, {}});
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i].is_op) continue;
      if (std::optional<Classification> c = classify_func_name(func_name(i)))
        classes_[i] = std::move(*c);
      else
        unknown[func_name(i)].push_back(i);
    }
    if (unknown.empty()) return;
    std::string list;
    for (const auto& [func, where] : unknown) {
      const std::string count = where.size() > 1 ? ", " + std::to_string(where.size()) + " nodes" : "";
      const std::string first = "first at nodes[" + std::to_string(where.front()) + "]" + count;
      list += (list.empty() ? "" : ", ") + ("'" + std::string(func) + "' (" + first + ")");
      if (options_.unknown_ops == UnknownOpPolicy::Cpu) {
        result_.warnings.push_back(in_.source() + ": " + node_place(where.front()) + ": unknown op '" +
                                   std::string(func) + "' (" + std::to_string(where.size()) +
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
    g.ops.resize(order.size());
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      const std::size_t i = order[pos];
      const NodeInfo& node = nodes_[i];
      Op& op = g.ops[pos];
      op.name = name(i);
      if (node.is_op) op.func_name = func_name(i);
      op.op_class = classes_[i].anchor;
      op.features.fused_tail = std::move(classes_[i].tail);
      op.is_param = !node.is_op && is_bound_param_name(op.name);
      op.node_index = static_cast<std::int32_t>(i);
      op.inputs.reserve(node.inputs_end - node.inputs_begin);
      for (std::size_t k = node.inputs_begin; k < node.inputs_end; ++k)
        op.inputs.push_back(tensor_of(inputs_[k]));
      op.outputs.reserve(static_cast<std::size_t>(node.num_outputs));
      for (std::int64_t k = 0; k < node.num_outputs; ++k)
        op.outputs.push_back(static_cast<TensorId>(node.first_entry + k));
    }
    for (const EntryRef& r : heads_)
      g.heads.push_back(tensor_of(r));
    read_op_attrs(op_of);
    g.finalize();
  }

  // The Relay op attributes some exporters keep in a node's attrs (none in TVM's own output).
  void read_op_attrs(const std::vector<OpId>& op_of) {
    std::map<std::size_t, std::shared_ptr<OpAttrs>> by_node;
    for (const OpAttrItem& item : doc_.op_attrs) {
      if (!nodes_[item.node].is_op) continue;
      std::shared_ptr<OpAttrs>& attrs = by_node[item.node];
      if (!attrs) attrs = std::make_shared<OpAttrs>();
      read_op_attr(doc_, item, *attrs, in_.source() + ": " + node_place(item.node));
    }
    for (auto& [node, attrs] : by_node)
      result_.graph.ops[static_cast<std::size_t>(op_of[node])].attrs = std::move(attrs);
  }

  const TvmDocument& doc_;
  JsonReader in_;
  ImportOptions options_;
  std::vector<std::int64_t> row_ptr_;
  std::vector<NodeInfo> nodes_;
  std::vector<EntryRef> inputs_; // every node's inputs, node after node
  std::vector<Tensor> tensors_;
  std::vector<EntryRef> heads_;
  std::vector<Classification> classes_;
  ImportResult result_;
};

} // namespace

ImportResult import_tvm_graph_text(std::string_view text, const std::string& source,
                                   const ImportOptions& options) {
  TvmDocument doc;
  JsonSyntaxError error;
  if (!read_tvm_document(text, doc, error))
    throw error.too_deep ? json_too_deep_error(source)
                         : json_syntax_error(source, text.size(), error.byte, error.what);
  return TvmImporter(doc, source, options).run();
}

// A document already parsed (tests, tools) goes through the same reader as a file.
ImportResult import_tvm_graph(const nlohmann::json& doc, const std::string& source,
                              const ImportOptions& options) {
  return import_tvm_graph_text(doc.dump(), source, options);
}

ImportResult import_tvm_graph_file(const std::string& path, const ImportOptions& options) {
  return import_tvm_graph_text(read_text_file(path), path, options);
}

} // namespace lightsim::ir
