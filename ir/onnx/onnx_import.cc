#include "ir/onnx/onnx_import.h"

#include "ir/error.h"
#include "ir/onnx/onnx_importer.h"
#include "ir/topological_order.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <map>
#include <set>
#include <unistd.h>
#include <unordered_set>

namespace lightsim::ir {
namespace onnxio {

OnnxImporter::OnnxImporter(const ::onnx::ModelProto& model, std::string source, std::size_t file_bytes,
                           const ImportOptions& options)
    : model_(model), graph_(model.graph()), source_(std::move(source)), options_(options),
      fold_budget_(std::int64_t{1} << 18 | static_cast<std::int64_t>(file_bytes / 8)) {}

ImportResult OnnxImporter::run() {
  if (!model_.has_graph()) throw InputError(source_, "the model has no graph");
  read_opset();
  read_inputs_and_initializers();
  read_nodes();
  classify_nodes();
  for (std::size_t n : order_)
    infer(n);
  check_declared_types();
  mark_live();
  build();
  return std::move(result_);
}

std::string OnnxImporter::node_place(std::size_t n) const {
  const ::onnx::NodeProto& node = *nodes_[n].node;
  return source_ + ": node " + std::to_string(n) + " '" + node.name() + "' (" +
         (node.domain().empty() ? "" : node.domain() + ".") + node.op_type() + ")";
}

void OnnxImporter::fail_node(std::size_t n, const std::string& reason) const {
  throw InputError(node_place(n), reason);
}

int OnnxImporter::value_id(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

void OnnxImporter::read_opset() {
  bool found = false;
  for (const ::onnx::OperatorSetIdProto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      opset_ = static_cast<int>(std::clamp<std::int64_t>(o.version(), 0, 1 << 20));
      found = true;
    }
  if (!found && model_.ir_version() >= 3)
    throw InputError(source_, "no opset_import for the standard ONNX domain (a truncated or damaged file?)");
  if (!found) opset_ = 1;
}

void OnnxImporter::read_inputs_and_initializers() {
  std::unordered_set<std::string_view> init_names;
  for (const ::onnx::TensorProto& t : graph_.initializer())
    init_names.insert(t.name());
  // Graph inputs: per-run tensors, their symbolic dims bound from options_.dims.
  std::map<std::string, std::vector<std::string>> unbound; // name -> places
  std::set<std::string> used_bindings;
  for (const ::onnx::ValueInfoProto& in : graph_.input()) {
    if (init_names.count(in.name())) continue; // an initializer listed as an input (IR < 4)
    const std::string place = "graph input '" + in.name() + "'";
    if (by_name_.count(in.name())) throw InputError(source_, place + " is declared twice");
    if (!in.type().has_tensor_type()) throw InputError(source_, place + " is not a tensor");
    const ::onnx::TypeProto_Tensor& tt = in.type().tensor_type();
    const std::optional<DType> dtype = dtype_of_onnx(tt.elem_type());
    if (!dtype)
      throw InputError(source_, place + " has element type " + std::to_string(tt.elem_type()) +
                                    ", which lightsim does not model (strings, complex, 8-bit floats)");
    if (!tt.has_shape()) throw InputError(source_, place + " has no shape");
    Value v;
    v.name = in.name();
    v.kind = Value::Input;
    v.typed = true;
    v.type.dtype = *dtype;
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const ::onnx::TensorShapeProto_Dimension& dim = tt.shape().dim(d);
      const std::string axis_key = in.name() + "[" + std::to_string(d) + "]";
      std::int64_t size = -1;
      if (const auto at = options_.dims.find(axis_key); at != options_.dims.end()) {
        size = at->second;
        used_bindings.insert(axis_key);
      } else if (dim.has_dim_value()) {
        size = dim.dim_value();
        if (size < 0) throw InputError(source_, place + " dim " + std::to_string(d) + " is negative");
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        if (const auto it = options_.dims.find(dim.dim_param()); it != options_.dims.end()) {
          size = it->second;
          used_bindings.insert(dim.dim_param());
        } else {
          unbound[dim.dim_param()].push_back(in.name() + " dim " + std::to_string(d));
        }
      } else {
        unbound[axis_key].push_back("unnamed");
      }
      v.type.shape.push_back(size);
    }
    if (!element_count(v.type.shape) && unbound.empty())
      throw InputError(source_,
                       place + " has shape " + shape_text(v.type.shape) + ": more than 2^63 elements");
    by_name_[v.name] = static_cast<int>(values_.size());
    values_.push_back(std::move(v));
  }
  if (!unbound.empty()) {
    std::string list;
    for (const auto& [name, places] : unbound) {
      std::string where;
      for (const std::string& p : places)
        where.append(where.empty() ? "" : ", ").append(p);
      list.append(list.empty() ? "" : "; ").append("'" + name + "' (" + where + ")");
    }
    throw InputError(source_, std::to_string(unbound.size()) + " unbound symbolic dimension" +
                                  (unbound.size() > 1 ? "s: " : ": ") + list +
                                  "; bind each with --dim NAME=VALUE");
  }
  for (const auto& [name, size] : options_.dims)
    if (!used_bindings.count(name))
      result_.warnings.push_back(source_ + ": --dim " + name + "=" + std::to_string(size) +
                                 " names no dimension of the model's inputs");
  for (const ::onnx::TensorProto& t : graph_.initializer()) {
    const std::string place = "initializer '" + t.name() + "'";
    if (by_name_.count(t.name())) throw InputError(source_, place + " is defined twice");
    const std::optional<DType> dtype = dtype_of_onnx(t.data_type());
    if (!dtype)
      throw InputError(source_, place + " has data type " + std::to_string(t.data_type()) +
                                    ", which lightsim does not model (strings, complex, 8-bit floats)");
    Value v;
    v.name = t.name();
    v.kind = Value::Initializer;
    v.init = &t;
    v.typed = v.constant = true;
    v.type = {{t.dims().begin(), t.dims().end()}, *dtype};
    const std::optional<std::int64_t> n = element_count(v.type.shape);
    if (!n)
      throw InputError(source_,
                       place + " has dims " + shape_text(v.type.shape) + " (negative or overflowing)");
    try {
      check_tensor_data(t, *dtype, *n);
    } catch (const InputError& e) {
      throw InputError(source_ + ": " + place, e.what());
    }
    v.foldable = t.data_location() != ::onnx::TensorProto::EXTERNAL && *n <= kMaxFoldElements &&
                 (*n == 0 || t.has_raw_data() || t.float_data_size() || t.int32_data_size() ||
                  t.int64_data_size() || t.double_data_size() || t.uint64_data_size());
    by_name_[v.name] = static_cast<int>(values_.size());
    values_.push_back(std::move(v));
  }
}

void OnnxImporter::read_nodes() {
  const int count = graph_.node_size();
  nodes_.resize(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    nodes_[static_cast<std::size_t>(i)].node = &graph_.node(i);
  // Outputs first (a node may come after its readers in a file that is not sorted).
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const ::onnx::NodeProto& node = *nodes_[n].node;
    for (int k = 0; k < node.output_size(); ++k) {
      const std::string& name = node.output(k);
      if (name.empty()) {
        nodes_[n].outputs.push_back(-1);
        continue;
      }
      if (by_name_.count(name))
        fail_node(n,
                  "output '" + name + "' is already defined (by another node, an input or an initializer)");
      Value v;
      v.name = name;
      v.producer = static_cast<int>(n);
      v.output_index = k;
      by_name_[name] = static_cast<int>(values_.size());
      nodes_[n].outputs.push_back(static_cast<int>(values_.size()));
      values_.push_back(std::move(v));
    }
  }
  PredecessorLists preds;
  preds.pred_begin.reserve(nodes_.size() + 1);
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const ::onnx::NodeProto& node = *nodes_[n].node;
    for (int k = 0; k < node.input_size(); ++k) {
      const std::string& name = node.input(k);
      if (name.empty()) {
        nodes_[n].inputs.push_back(-1);
        continue;
      }
      const int id = value_id(name);
      if (id < 0)
        fail_node(n, "input '" + name + "' is produced by no node and is no graph input or initializer");
      nodes_[n].inputs.push_back(id);
      if (values_[static_cast<std::size_t>(id)].producer >= 0)
        preds.preds.push_back(static_cast<std::size_t>(values_[static_cast<std::size_t>(id)].producer));
    }
    preds.pred_begin.push_back(preds.preds.size());
  }
  TopologicalOrder topo = stable_topological_order(preds);
  if (!topo.cycle.empty()) {
    std::string path;
    for (std::size_t n : topo.cycle)
      path += "'" + nodes_[n].node->name() + "' -> ";
    path += "'" + nodes_[topo.cycle.front()].node->name() + "'";
    fail_node(topo.cycle.front(), "is on a cycle: " + path);
  }
  order_ = std::move(topo.order);
  for (const ::onnx::ValueInfoProto& v : graph_.value_info())
    declared_[v.name()] = &v;
  for (const ::onnx::ValueInfoProto& v : graph_.output())
    declared_[v.name()] = &v;
  for (const ::onnx::ValueInfoProto& out : graph_.output())
    if (value_id(out.name()) < 0)
      throw InputError(source_, "graph output '" + out.name() + "' is produced by no node and is no input");
  if (graph_.output_size() == 0) throw InputError(source_, "the graph has no outputs");
}

} // namespace onnxio

namespace {

// Parses a ModelProto of `size` bytes, from `bytes` when the input is in memory, else from `stream`;
// InputError naming `source` when it is not one.
ImportResult parse_and_import(const char* bytes, google::protobuf::io::ZeroCopyInputStream* stream,
                              std::size_t size, const std::string& source, const ImportOptions& options) {
  if (size == 0) throw InputError(source, "is empty: not an ONNX model");
  if (size > static_cast<std::size_t>(INT32_MAX))
    throw InputError(source, "is over 2 GiB: an ONNX file that large must keep its weights as external data");
  // On an arena: the model's many small messages and strings are one allocation each block, not each.
  google::protobuf::Arena arena;
  ::onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<::onnx::ModelProto>(&arena);
  bool parsed = false;
  if (bytes) {
    // From memory, protobuf knows how many bytes are left and reserves no more for a string whose length
    // prefix claims more (from a stream it reserves up to 50 MB on the prefix's word).
    parsed = model.ParseFromArray(bytes, static_cast<int>(size));
  } else {
    google::protobuf::io::CodedInputStream coded(stream);
    coded.SetTotalBytesLimit(static_cast<int>(size));
    parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  if (!parsed)
    throw InputError(source, "not an ONNX model: the protobuf does not parse as a ModelProto (truncated or "
                             "another kind of file?)");
  if (!model.has_graph() || (model.graph().node_size() == 0 && model.graph().input_size() == 0))
    throw InputError(source, "not an ONNX model: no graph in the file");
  return onnxio::OnnxImporter(model, source, size, options).run();
}

} // namespace

ImportResult import_onnx_bytes(std::string_view bytes, const std::string& source,
                               const ImportOptions& options) {
  return parse_and_import(bytes.data(), nullptr, bytes.size(), source, options);
}

// Streams the file through protobuf's parser (the file is never held whole beside the parsed model).
ImportResult import_onnx_file(const std::string& path, const ImportOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, "no such file");
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory, not an ONNX file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path, "cannot read its size: " + ec.message());
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  google::protobuf::io::FileInputStream stream(fd, 1 << 20);
  stream.SetCloseOnDelete(true);
  return parse_and_import(nullptr, &stream, static_cast<std::size_t>(size), path, options);
}

} // namespace lightsim::ir
