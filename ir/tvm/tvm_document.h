// TvmDocument: the parts of a TVM graph-executor JSON document that the importer reads, gathered in one
// SAX pass (nlohmann::json::sax_parse) into flat arrays instead of a JSON DOM: the nodes (op, name,
// attrs.func_name / num_outputs / num_inputs and any Relay op attributes, inputs), arg_nodes, heads,
// node_row_ptr and the per-entry attrs.shape / dltype / storage_id / device_index lists. Keys it does not
// read are skipped.
//
// It does not validate: ir/tvm/tvm_import.cc does, on this form. So that the importer can say exactly what it
// found where the type is wrong, a value of a kind the fast form cannot hold (a string where a node
// index belongs, a negative or fractional dim, a 4-element input reference, a node that is not an
// object...) is kept whole as an nlohmann::json in `unexpected`, and its slot refers to it. Private to
// ir/ (it includes the full nlohmann header).
#pragma once

#include "ir/dtype.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::ir {

// State of one value in the document: absent, present in the fast form, or kept whole in
// TvmDocument::unexpected (index >= 0).
using Slot = std::int32_t;
inline constexpr Slot kAbsent = -2;
inline constexpr Slot kRead = -1;

// A non-negative integer, or -1 - i for TvmDocument::unexpected[i] (any other value at that place).
using IntItem = std::int64_t;
inline bool is_unexpected(IntItem v) {
  return v < 0;
}
inline Slot unexpected_slot(IntItem v) {
  return static_cast<Slot>(-1 - v);
}

// A run of characters in TvmDocument::chars.
struct TextRef {
  std::size_t begin = 0, size = 0;
};

enum class NodeKind : std::uint8_t { Null, TvmOp, Other };

struct TvmNode {
  Slot self = kRead; // >= 0: the node is not an object
  Slot name = kAbsent, op = kAbsent, inputs = kAbsent, attrs = kAbsent;
  Slot func_name = kAbsent, num_outputs = kAbsent, num_inputs = kAbsent; // inside attrs
  NodeKind kind = NodeKind::Other;
  TextRef name_text, op_text, func_name_text;
  std::int64_t num_outputs_value = 0, num_inputs_value = 0; // from a JSON integer or a digit string
  std::size_t inputs_begin = 0, inputs_end = 0;             // in TvmDocument::refs
};

// An input or head reference [node, output index(, version)] of non-negative integers, or
// (node < 0) TvmDocument::unexpected[-1 - node].
struct TvmRef {
  std::int64_t node = 0, output = 0;
};

// TVM's ["<tag>", [items...]]. `slot` is kAbsent, kRead, or kMalformed (not a 2-element array of a
// string and an array; the importer's message for that does not show the value).
inline constexpr Slot kMalformed = -3;
struct TypedList {
  Slot slot = kAbsent;
  TextRef tag;
  std::size_t size = 0; // items
};

struct ShapeItem {
  std::size_t begin = 0, end = 0; // in TvmDocument::dims
  Slot value = kRead;             // >= 0: not an array of non-negative integers
};

struct DtypeItem {
  DType type = DType::Float32;
  Slot value = kRead; // >= 0: not a string naming a known dtype
};

// A node attribute other than func_name / num_outputs / num_inputs / flatten_data / hash: a Relay op
// attribute (strides, padding, pool_size, groups ...) that an exporter kept. `text` is the value when it
// is a JSON string; otherwise `value` >= 0 keeps it whole in TvmDocument::unexpected.
struct OpAttrItem {
  std::size_t node = 0; // index in TvmDocument::node_list
  TextRef key, text;
  Slot value = kRead;
};

// An item of storage_id / device_index that is not a non-negative integer.
struct IndexItem {
  std::size_t index = 0;
  Slot value = 0;
};

struct TvmDocument {
  Slot root = kRead; // >= 0: the document is not an object
  Slot nodes = kAbsent, node_row_ptr = kAbsent, arg_nodes = kAbsent, heads = kAbsent, attrs = kAbsent;

  std::vector<TvmNode> node_list;
  std::vector<TvmRef> refs; // every node's inputs, node after node
  std::vector<IntItem> row_ptr_items, arg_node_items;
  std::vector<TvmRef> head_items;

  TypedList shape, dltype, storage_id, device_index;
  std::vector<ShapeItem> shapes;
  std::vector<std::int64_t> dims;
  std::vector<DtypeItem> dtypes;
  std::vector<IndexItem> odd_storage_ids, odd_device_indices;
  std::vector<OpAttrItem> op_attrs; // in document order

  std::string chars; // names, func_names, op kinds and list tags
  std::vector<nlohmann::json> unexpected;

  std::string_view text(TextRef r) const { return std::string_view(chars).substr(r.begin, r.size); }
  const nlohmann::json& value(Slot s) const { return unexpected[static_cast<std::size_t>(s)]; }
};

// Where the text is not JSON: the 1-based byte nlohmann stopped at and its message.
struct JsonSyntaxError {
  std::size_t byte = 0;
  std::string what;
  bool too_deep = false; // nested deeper than kMaxJsonDepth (ir/json_reader.h) instead
};

// Parses `text`; returns false and fills `error` when it is not JSON (truncated, garbage).
bool read_tvm_document(std::string_view text, TvmDocument& doc, JsonSyntaxError& error);

} // namespace lightsim::ir
