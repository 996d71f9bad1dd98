// TvmSaxReader: the SAX handler behind ir::read_tvm_document (ir/tvm/tvm_document.h). It reads a TVM
// graph-executor JSON document in one pass into TvmDocument's flat arrays: nodes, their attrs and input
// references, heads, the row pointers and the attrs' typed lists, keeping whole (JsonCapture) any value of
// a kind the fast form does not hold, for the importer to reject with its path. Private to ir/tvm.
//
// It is not the importer: ir/tvm/tvm_import.h checks the document and builds the graph.
#pragma once

#include "ir/json_reader.h"
#include "ir/tvm/json_capture.h"
#include "ir/tvm/tvm_document.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lightsim::ir::detail {

using nlohmann::json;

// What the next value in the document is.
enum class Want : std::uint8_t {
  Ignore,
  Root,
  Nodes,
  Node,
  Name,
  Op,
  NodeAttrs,
  FuncName,
  NumOutputs,
  NumInputs,
  OpAttr,
  Inputs,
  Heads,
  Ref,
  RefItem,
  RowPtr,
  RowPtrItem,
  ArgNodes,
  ArgNodeItem,
  Attrs,
  List,
  ListTag,
  ListItems,
  ListExtra,
  ShapeItem,
  Dim,
  DtypeItem,
  IndexItem,
};

// The open containers the reader is inside.
enum class Ctx : std::uint8_t {
  Top,
  Nodes,
  Node,
  NodeAttrs,
  Inputs,
  Heads,
  Ref,
  RowPtr,
  ArgNodes,
  Attrs,
  List,
  Items,
  Shape
};

enum ListId : std::uint8_t { kShapeList, kDtypeList, kStorageIdList, kDeviceIndexList };

struct Frame {
  Ctx ctx;
  Want key_want = Want::Ignore; // objects: the value after the last key
  ListId list = kShapeList;     // Attrs (after a list key), List, Items
  std::size_t count = 0;        // arrays: values so far
};

class TvmSaxReader {
public:
  TvmSaxReader(TvmDocument& doc, JsonSyntaxError& error) : doc_(doc), error_(error) {}

  bool null() {
    return scalar(-1, nullptr, [] { return json(nullptr); });
  }
  bool boolean(bool v) {
    return scalar(-1, nullptr, [v] { return json(v); });
  }
  bool number_integer(std::int64_t v) {
    return scalar(v >= 0 ? v : -1, nullptr, [v] { return json(v); });
  }
  bool number_unsigned(std::uint64_t v) {
    const bool fits = v <= static_cast<std::uint64_t>(INT64_MAX);
    return scalar(fits ? static_cast<std::int64_t>(v) : -1, nullptr, [v] { return json(v); });
  }
  bool number_float(double v, const std::string&) {
    return scalar(-1, nullptr, [v] { return json(v); });
  }
  bool string(std::string& v) {
    return scalar(-1, &v, [&v] { return json(v); });
  }
  bool binary(json::binary_t&) { return true; } // not produced by JSON text
  bool key(std::string& k);
  bool start_object(std::size_t) { return deeper() && open(true); }
  bool start_array(std::size_t) { return deeper() && open(false); }
  bool end_object() { return shallower() && close(); }
  bool end_array() { return shallower() && close(); }

  template <class Exception> bool parse_error(std::size_t byte, const std::string&, const Exception& e) {
    error_.byte = byte;
    error_.what = e.what();
    return false;
  }

private:
  TvmNode& node() { return doc_.node_list.back(); }
  TypedList& list(ListId id) {
    const std::array<TypedList*, 4> lists{&doc_.shape, &doc_.dltype, &doc_.storage_id, &doc_.device_index};
    return *lists[id];
  }
  std::vector<IndexItem>& odd_indices(ListId id) {
    return id == kStorageIdList ? doc_.odd_storage_ids : doc_.odd_device_indices;
  }
  // The references of the Inputs or Heads array on top of the stack.
  std::vector<TvmRef>& ref_target() { return stack_.back().ctx == Ctx::Inputs ? doc_.refs : doc_.head_items; }
  TextRef store(const std::string& text) {
    const TextRef r{doc_.chars.size(), text.size()};
    doc_.chars += text;
    return r;
  }
  Slot keep(json value) {
    doc_.unexpected.push_back(std::move(value));
    return static_cast<Slot>(doc_.unexpected.size() - 1);
  }
  bool push(Ctx ctx, ListId id = kShapeList) {
    stack_.push_back(Frame{ctx, Want::Ignore, id, 0});
    return true;
  }

  Want next();
  template <class MakeJson> bool scalar(std::int64_t non_negative, const std::string* text, MakeJson make);
  // Nesting deeper than kMaxJsonDepth stops the parse before a captured value can grow from it.
  bool deeper() {
    if (++depth_ <= kMaxJsonDepth) return true;
    error_.too_deep = true;
    return false;
  }
  bool shallower() {
    --depth_;
    return true;
  }
  bool open(bool object); // a container starts
  static json empty(bool object) { return object ? json::object() : json::array(); }
  bool close();
  void reset_list(ListId id);
  void set_slot(Want w, Slot s);
  void unexpected(Want w, json value, bool container);

  TvmDocument& doc_;
  JsonSyntaxError& error_;
  std::vector<Frame> stack_;
  std::size_t skip_depth_ = 0; // > 0 inside a container the importer does not read
  std::size_t depth_ = 0;      // containers open
  JsonCapture capture_;
  std::array<std::int64_t, 3> ref_values_{};
  TextRef attr_key_; // the key of the op attribute being read
  std::size_t ref_count_ = 0;
};

} // namespace lightsim::ir::detail
