#include "ir/tvm/tvm_document.h"

#include "ir/tvm/tvm_sax_reader.h"

namespace lightsim::ir::detail {
namespace {

// A digit string as TVM writes node attrs ("3"), as JsonReader::integer_or_digits accepts it.
bool digits_value(const std::string& text, std::int64_t& value) {
  if (text.empty() || text.size() > 18) return false;
  value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
    value = value * 10 + (ch - '0');
  }
  return true;
}

} // namespace

Want TvmSaxReader::next() {
  if (stack_.empty()) return Want::Root;
  Frame& f = stack_.back();
  const std::size_t index = f.count++;
  switch (f.ctx) {
  case Ctx::Top:
  case Ctx::Node:
  case Ctx::NodeAttrs:
  case Ctx::Attrs:
    return f.key_want;
  case Ctx::Nodes:
    return Want::Node;
  case Ctx::Inputs:
  case Ctx::Heads:
    return Want::Ref;
  case Ctx::Ref:
    return Want::RefItem;
  case Ctx::RowPtr:
    return Want::RowPtrItem;
  case Ctx::ArgNodes:
    return Want::ArgNodeItem;
  case Ctx::List:
    if (list(f.list).slot == kMalformed) return Want::Ignore;
    return index == 0 ? Want::ListTag : index == 1 ? Want::ListItems : Want::ListExtra;
  case Ctx::Items:
    return f.list == kShapeList ? Want::ShapeItem : f.list == kDtypeList ? Want::DtypeItem : Want::IndexItem;
  case Ctx::Shape:
    return Want::Dim;
  }
  return Want::Ignore;
}

bool TvmSaxReader::key(std::string& name) {
  if (skip_depth_ > 0) return true;
  if (capture_.active()) {
    capture_.key(name);
    return true;
  }
  using namespace std::string_view_literals;
  const std::string_view k = name;
  Frame& f = stack_.back();
  Want w = Want::Ignore;
  switch (f.ctx) {
  case Ctx::Top:
    w = k == "nodes"sv          ? Want::Nodes
        : k == "node_row_ptr"sv ? Want::RowPtr
        : k == "arg_nodes"sv    ? Want::ArgNodes
        : k == "heads"sv        ? Want::Heads
        : k == "attrs"sv        ? Want::Attrs
                                : Want::Ignore;
    break;
  case Ctx::Node:
    w = k == "op"sv       ? Want::Op
        : k == "name"sv   ? Want::Name
        : k == "inputs"sv ? Want::Inputs
        : k == "attrs"sv  ? Want::NodeAttrs
                          : Want::Ignore;
    break;
  case Ctx::NodeAttrs:
    w = k == "func_name"sv                       ? Want::FuncName
        : k == "num_outputs"sv                   ? Want::NumOutputs
        : k == "num_inputs"sv                    ? Want::NumInputs
        : k == "flatten_data"sv || k == "hash"sv ? Want::Ignore
                                                 : Want::OpAttr;
    if (w == Want::OpAttr) attr_key_ = store(name);
    break;
  case Ctx::Attrs: {
    constexpr std::array<std::string_view, 4> kLists{"shape", "dltype", "storage_id", "device_index"};
    for (std::size_t i = 0; i < kLists.size(); ++i)
      if (k == kLists[i]) {
        w = Want::List;
        f.list = static_cast<ListId>(i);
      }
    break;
  }
  default:
    break;
  }
  f.key_want = w;
  return true;
}

template <class MakeJson>
bool TvmSaxReader::scalar(std::int64_t non_negative, const std::string* text, MakeJson make) {
  if (skip_depth_ > 0) return true;
  if (capture_.active()) {
    capture_.add(make());
    return true;
  }
  const Want w = next();
  const bool integer = non_negative >= 0;
  switch (w) {
  case Want::Ignore:
    return true;
  case Want::RowPtrItem:
  case Want::ArgNodeItem:
  case Want::IndexItem:
  case Want::Dim:
    if (!integer) break;
    if (w == Want::RowPtrItem) doc_.row_ptr_items.push_back(non_negative);
    if (w == Want::ArgNodeItem) doc_.arg_node_items.push_back(non_negative);
    if (w == Want::Dim) doc_.dims.push_back(non_negative);
    return true;
  case Want::RefItem:
    if (!integer || ref_count_ == ref_values_.size()) break;
    ref_values_[ref_count_++] = non_negative;
    return true;
  case Want::NumOutputs:
  case Want::NumInputs: {
    std::int64_t value = non_negative;
    if (!integer && !(text && digits_value(*text, value))) break;
    TvmNode& n = node();
    (w == Want::NumOutputs ? n.num_outputs : n.num_inputs) = kRead;
    (w == Want::NumOutputs ? n.num_outputs_value : n.num_inputs_value) = value;
    return true;
  }
  case Want::Name:
  case Want::Op:
  case Want::FuncName:
  case Want::ListTag: {
    if (!text) break;
    const TextRef r = store(*text);
    TvmNode* n = w == Want::ListTag ? nullptr : &node();
    if (w == Want::Name) n->name = kRead, n->name_text = r;
    if (w == Want::FuncName) n->func_name = kRead, n->func_name_text = r;
    if (w == Want::Op) {
      n->op = kRead;
      n->op_text = r;
      n->kind = *text == "null" ? NodeKind::Null : *text == "tvm_op" ? NodeKind::TvmOp : NodeKind::Other;
    }
    if (w == Want::ListTag) list(stack_.back().list).tag = r;
    return true;
  }
  case Want::OpAttr:
    if (!text) break; // a number or literal: kept whole
    doc_.op_attrs.push_back({doc_.node_list.size() - 1, attr_key_, store(*text), kRead});
    return true;
  case Want::DtypeItem:
    if (!text) break;
    if (const std::optional<DType> type = parse_dtype(*text)) {
      doc_.dtypes.push_back({*type, kRead});
      return true;
    }
    break; // an unknown dtype is kept whole, for the importer's message
  default:
    break;
  }
  unexpected(w, make(), false);
  return true;
}

bool TvmSaxReader::open(bool object) {
  if (skip_depth_ > 0) {
    ++skip_depth_;
    return true;
  }
  if (capture_.active()) {
    capture_.open(empty(object));
    return true;
  }
  const Want w = next();
  if (object) {
    switch (w) {
    case Want::Root:
      return push(Ctx::Top);
    case Want::Node:
      doc_.node_list.emplace_back();
      return push(Ctx::Node);
    case Want::NodeAttrs: {
      TvmNode& n = node();
      n.attrs = kRead;
      n.func_name = n.num_outputs = n.num_inputs = kAbsent;
      return push(Ctx::NodeAttrs);
    }
    case Want::Attrs:
      doc_.attrs = kRead;
      for (ListId id : {kShapeList, kDtypeList, kStorageIdList, kDeviceIndexList})
        reset_list(id);
      return push(Ctx::Attrs);
    default:
      break;
    }
  } else {
    switch (w) {
    case Want::Nodes:
      doc_.nodes = kRead;
      doc_.node_list.clear();
      doc_.refs.clear();
      return push(Ctx::Nodes);
    case Want::Inputs: {
      TvmNode& n = node();
      if (n.inputs == kRead) doc_.refs.resize(n.inputs_begin); // a repeated key: the last one counts
      n.inputs = kRead;
      n.inputs_begin = n.inputs_end = doc_.refs.size();
      return push(Ctx::Inputs);
    }
    case Want::Heads:
      doc_.heads = kRead;
      doc_.head_items.clear();
      return push(Ctx::Heads);
    case Want::Ref:
      ref_target().emplace_back();
      ref_count_ = 0;
      return push(Ctx::Ref);
    case Want::RowPtr:
      doc_.node_row_ptr = kRead;
      doc_.row_ptr_items.clear();
      return push(Ctx::RowPtr);
    case Want::ArgNodes:
      doc_.arg_nodes = kRead;
      doc_.arg_node_items.clear();
      return push(Ctx::ArgNodes);
    case Want::List: {
      const ListId id = stack_.back().list;
      reset_list(id);
      list(id).slot = kRead;
      return push(Ctx::List, id);
    }
    case Want::ListItems:
      return push(Ctx::Items, stack_.back().list);
    case Want::ShapeItem:
      doc_.shapes.push_back({doc_.dims.size(), doc_.dims.size(), kRead});
      return push(Ctx::Shape);
    default:
      break;
    }
  }
  if (w == Want::Ignore) {
    skip_depth_ = 1;
    return true;
  }
  unexpected(w, empty(object), true);
  return true;
}

bool TvmSaxReader::close() {
  if (skip_depth_ > 0) {
    --skip_depth_;
    return true;
  }
  if (capture_.active()) {
    if (capture_.close()) doc_.unexpected[static_cast<std::size_t>(capture_.slot())] = capture_.take();
    return true;
  }
  const Frame f = stack_.back();
  stack_.pop_back();
  switch (f.ctx) {
  case Ctx::Inputs:
    node().inputs_end = doc_.refs.size();
    break;
  case Ctx::Ref:
    if (ref_count_ >= 2) {
      ref_target().back() = {ref_values_[0], ref_values_[1]};
    } else { // [] or [n]: the importer shows it
      json partial = json::array();
      for (std::size_t i = 0; i < ref_count_; ++i)
        partial.push_back(static_cast<std::uint64_t>(ref_values_[i]));
      ref_target().back().node = -1 - keep(std::move(partial));
    }
    break;
  case Ctx::Shape:
    doc_.shapes.back().end = doc_.dims.size();
    break;
  case Ctx::List:
    if (f.count < 2) list(f.list).slot = kMalformed;
    break;
  case Ctx::Items:
    list(f.list).size = f.count;
    break;
  default:
    break;
  }
  return true;
}

void TvmSaxReader::reset_list(ListId id) {
  list(id) = TypedList{};
  if (id == kShapeList) {
    doc_.shapes.clear();
    doc_.dims.clear();
  }
  if (id == kDtypeList) doc_.dtypes.clear();
  if (id == kStorageIdList || id == kDeviceIndexList) odd_indices(id).clear();
}

// Records that the value at `w` is kept whole as unexpected[s].
void TvmSaxReader::set_slot(Want w, Slot s) {
  static constexpr std::array<std::pair<Want, Slot TvmDocument::*>, 6> kDocSlots{
      {{Want::Root, &TvmDocument::root},
       {Want::Nodes, &TvmDocument::nodes},
       {Want::Heads, &TvmDocument::heads},
       {Want::RowPtr, &TvmDocument::node_row_ptr},
       {Want::ArgNodes, &TvmDocument::arg_nodes},
       {Want::Attrs, &TvmDocument::attrs}}};
  static constexpr std::array<std::pair<Want, Slot TvmNode::*>, 7> kNodeSlots{
      {{Want::Name, &TvmNode::name},
       {Want::Op, &TvmNode::op},
       {Want::NodeAttrs, &TvmNode::attrs},
       {Want::FuncName, &TvmNode::func_name},
       {Want::NumOutputs, &TvmNode::num_outputs},
       {Want::NumInputs, &TvmNode::num_inputs},
       {Want::Inputs, &TvmNode::inputs}}};
  const std::int64_t item = -1 - std::int64_t{s};
  for (const auto& [want, slot] : kDocSlots)
    if (want == w) doc_.*slot = s;
  for (const auto& [want, slot] : kNodeSlots)
    if (want == w) node().*slot = s;
  if (w == Want::Node) doc_.node_list.emplace_back().self = s;
  if (w == Want::OpAttr) doc_.op_attrs.push_back({doc_.node_list.size() - 1, attr_key_, {}, s});
  if (w == Want::Ref) ref_target().push_back({item, 0});
  if (w == Want::RowPtrItem) doc_.row_ptr_items.push_back(item);
  if (w == Want::ArgNodeItem) doc_.arg_node_items.push_back(item);
  if (w == Want::IndexItem) odd_indices(stack_.back().list).push_back({stack_.back().count - 1, s});
  if (w == Want::ShapeItem) doc_.shapes.push_back({doc_.dims.size(), doc_.dims.size(), s});
  if (w == Want::DtypeItem) doc_.dtypes.push_back({DType::Float32, s});
}

// A value of a kind the fast form cannot hold at `w`: `value` is the scalar, or the empty container that
// the following events fill. A typed list that is not ["tag", [...]] is only marked malformed.
void TvmSaxReader::unexpected(Want w, json value, bool container) {
  if (w == Want::List || w == Want::ListTag || w == Want::ListItems || w == Want::ListExtra) {
    list(stack_.back().list).slot = kMalformed;
    if (container) skip_depth_ = 1;
    return;
  }
  if (w == Want::RefItem || w == Want::Dim) {
    // The array read so far is kept whole from here on: its elements, then the rest of it.
    json partial = json::array();
    const Slot s = keep(json());
    stack_.pop_back();
    if (w == Want::RefItem) {
      for (std::size_t i = 0; i < ref_count_; ++i)
        partial.push_back(static_cast<std::uint64_t>(ref_values_[i]));
      ref_target().back().node = -1 - std::int64_t{s};
    } else {
      ShapeItem& item = doc_.shapes.back();
      for (std::size_t i = item.begin; i < doc_.dims.size(); ++i)
        partial.push_back(static_cast<std::uint64_t>(doc_.dims[i]));
      doc_.dims.resize(item.begin);
      item.value = s;
    }
    capture_.begin(s, std::move(partial));
    if (container)
      capture_.open(std::move(value));
    else
      capture_.add(std::move(value));
    return;
  }
  if (!container) {
    set_slot(w, keep(std::move(value)));
    return;
  }
  const Slot s = keep(json());
  set_slot(w, s);
  capture_.begin(s, std::move(value));
}

} // namespace lightsim::ir::detail

namespace lightsim::ir {

bool read_tvm_document(std::string_view text, TvmDocument& doc, JsonSyntaxError& error) {
  detail::TvmSaxReader reader(doc, error);
  return nlohmann::json::sax_parse(text.begin(), text.end(), &reader);
}

} // namespace lightsim::ir
