#include "ir/onnx/onnx_writer.h"

#include "ir/error.h"
#include "ir/onnx/values.h"

#include <algorithm>
#include <onnx/onnx_pb.h>
#include <ostream>
#include <set>

namespace lightsim::ir {
namespace {

using onnxio::Shape;

class Writer {
public:
  Writer(const Graph& g, const std::string& weights) : g_(g), weights_(weights) {}

  void write(std::ostream& out) {
    ::onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("lightsim-graph");
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    auto* custom = model.add_opset_import();
    custom->set_domain("ai.lightsim");
    custom->set_version(1);
    graph_ = model.mutable_graph();
    graph_->set_name(g_.source.empty() ? "lightsim" : g_.source);
    name_tensors();
    plan_bias_dims();
    for (std::size_t i = 0; i < g_.ops.size(); ++i)
      emit(i);
    for (TensorId h : g_.heads)
      value_info(graph_->add_output(), h);
    if (!model.SerializeToOstream(&out)) throw InputError(g_.source, "cannot write the ONNX model");
  }

private:
  const Tensor& t(TensorId id) const { return g_.tensors[static_cast<std::size_t>(id)]; }
  const std::string& name(TensorId id) const { return names_[static_cast<std::size_t>(id)]; }
  // ONNX names every value once; TVM's node names repeat ("reshape_nop"): a repeated name gets "#<op>".
  void name_tensors() {
    std::set<std::string> taken;
    names_.resize(g_.tensors.size());
    for (std::size_t i = 0; i < g_.ops.size(); ++i) {
      const Op& op = g_.ops[i];
      const std::string base = taken.count(op.name) ? op.name + "#" + std::to_string(i) : op.name;
      for (TensorId o : op.outputs) {
        const auto k = static_cast<std::size_t>(t(o).output_index);
        names_[static_cast<std::size_t>(o)] = op.outputs.size() == 1 ? base : base + ":" + std::to_string(k);
        taken.insert(names_[static_cast<std::size_t>(o)]);
      }
      taken.insert(base);
    }
  }
  void value_info(::onnx::ValueInfoProto* v, TensorId id, const Shape* dims = nullptr) const {
    v->set_name(name(id));
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnxio::onnx_of_dtype(t(id).dtype));
    auto* shape = tt->mutable_shape();
    for (std::int64_t d : dims ? *dims : t(id).shape)
      shape->add_dim()->set_dim_value(d);
  }
  // A shape operand: an int64 (or float) initializer with its data in the file.
  std::string ints(const std::vector<std::int64_t>& v) {
    auto* init = graph_->add_initializer();
    init->set_name("shape_operand_" + std::to_string(graph_->initializer_size()));
    init->set_data_type(::onnx::TensorProto::INT64);
    init->add_dims(static_cast<std::int64_t>(v.size()));
    for (std::int64_t x : v)
      init->add_int64_data(x);
    return init->name();
  }
  std::string scalar(float x) {
    auto* init = graph_->add_initializer();
    init->set_name("shape_operand_" + std::to_string(graph_->initializer_size()));
    init->set_data_type(::onnx::TensorProto::FLOAT);
    init->add_float_data(x);
    return init->name();
  }

  // A bias_add's bias on axis 1 of an N-D tensor is declared [C, 1, ...] so that ONNX's broadcasting
  // (which aligns trailing dims) puts it on the channels: same elements and bytes.
  void plan_bias_dims() {
    bias_dims_.assign(g_.tensors.size(), {});
    for (const Op& op : g_.ops) {
      if (relay_ops_of(op.func_name) != "nn_bias_add" || op.inputs.size() != 2) continue;
      const Shape &x = t(op.inputs[0]).shape, &b = t(op.inputs[1]).shape;
      if (b.size() == 1 && x.size() > 2 && x.back() != b[0] && x[1] == b[0]) {
        Shape dims(x.size() - 1, 1);
        dims[0] = b[0];
        bias_dims_[static_cast<std::size_t>(op.inputs[1])] = dims;
      }
    }
  }

  ::onnx::NodeProto* node(const Op& op, const std::string& type, std::size_t data_inputs) {
    auto* n = graph_->add_node();
    n->set_name(name(op.outputs.at(0)));
    n->set_op_type(type);
    for (std::size_t i = 0; i < std::min(data_inputs, op.inputs.size()); ++i)
      n->add_input(name(op.inputs[i]));
    for (TensorId o : op.outputs)
      n->add_output(name(o));
    return n;
  }
  static void attr(::onnx::NodeProto* n, const char* key, std::int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr(::onnx::NodeProto* n, const char* key, const std::vector<std::int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(::onnx::AttributeProto::INTS);
    for (std::int64_t x : v)
      a->add_ints(x);
  }
  static void attr(::onnx::NodeProto* n, const char* key, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  }

  void emit(std::size_t i) {
    const Op& op = g_.ops[i];
    if (op.op_class == OpClass::Input) {
      if (!op.is_param) return value_info(graph_->add_input(), op.outputs.at(0));
      const TensorId o = op.outputs.at(0);
      auto* init = graph_->add_initializer();
      init->set_name(name(o));
      init->set_data_type(onnxio::onnx_of_dtype(t(o).dtype));
      for (std::int64_t d : bias_dims_[static_cast<std::size_t>(o)].empty()
                                ? t(o).shape
                                : bias_dims_[static_cast<std::size_t>(o)])
        init->add_dims(d);
      init->set_data_location(::onnx::TensorProto::EXTERNAL);
      for (const auto& [key, value] : {std::pair<std::string, std::string>{"location", weights_},
                                       {"offset", std::to_string(offset_)},
                                       {"length", std::to_string(t(o).bytes)}}) {
        auto* e = init->add_external_data();
        e->set_key(key);
        e->set_value(value);
      }
      offset_ += t(o).bytes;
      return;
    }
    if (!op.features.fused_tail.empty() || op.fused)
      throw InputError(g_.source, "op '" + op.name + "' is fused: --format onnx writes unfused graphs");
    compute(op, std::string(relay_ops_of(op.func_name)));
  }

  void compute(const Op& op, const std::string& relay);

  const Graph& g_;
  std::string weights_;
  ::onnx::GraphProto* graph_ = nullptr;
  std::uint64_t offset_ = 0;
  std::vector<Shape> bias_dims_;
  std::vector<std::string> names_; // per tensor
};

// The first axis where two shapes of equal rank differ (0 when none does).
std::size_t differing_axis(const Shape& a, const Shape& b) {
  for (std::size_t d = 0; d < std::min(a.size(), b.size()); ++d)
    if (a[d] != b[d]) return d;
  return 0;
}

// A window (stride, total padding) that slides a kernel of `k` over `in` to give `out` positions.
std::pair<std::int64_t, std::int64_t> window_for(std::int64_t in, std::int64_t out, std::int64_t k) {
  for (std::int64_t s = 1; s <= std::max<std::int64_t>(in, 1); ++s) {
    const std::int64_t pad = std::max<std::int64_t>(0, (out - 1) * s + k - in);
    if ((in + pad - k) / s + 1 == out) return {s, pad};
  }
  return {1, std::max<std::int64_t>(0, out - 1 + k - in)};
}

void Writer::compute(const Op& op, const std::string& relay) {
  const Shape& x = t(op.inputs.empty() ? op.outputs[0] : op.inputs[0]).shape;
  const Shape& y = t(op.outputs[0]).shape;
  static const std::vector<std::pair<std::string, std::string>> kDirect{
      {"add", "Add"},   {"subtract", "Sub"}, {"multiply", "Mul"},    {"divide", "Div"},
      {"power", "Pow"}, {"negative", "Neg"}, {"sqrt", "Sqrt"},       {"exp", "Exp"},
      {"erf", "Erf"},   {"tanh", "Tanh"},    {"sigmoid", "Sigmoid"}, {"nn_relu", "Relu"},
      {"less", "Less"}, {"where", "Where"},  {"nn_bias_add", "Add"}};
  for (const auto& [r, type] : kDirect)
    if (relay == r) {
      node(op, type, op.inputs.size());
      return;
    }
  if (relay == "cast") {
    attr(node(op, "Cast", 1), "to", static_cast<std::int64_t>(onnxio::onnx_of_dtype(t(op.outputs[0]).dtype)));
  } else if (relay == "clip") {
    auto* n = node(op, "Clip", 1);
    n->add_input(scalar(0));
    n->add_input(scalar(6));
  } else if (relay == "nn_softmax") {
    attr(node(op, "Softmax", 1), "axis", std::int64_t{-1});
  } else if (relay == "reshape" || relay == "squeeze" || relay == "expand_dims" ||
             relay == "nn_batch_flatten") {
    node(op, "Reshape", 1)->add_input(ints(y));
  } else if (relay == "broadcast_to") {
    node(op, "Expand", 1)->add_input(ints(y));
  } else if (relay == "repeat" || relay == "tile") {
    std::vector<std::int64_t> reps;
    for (std::size_t d = 0; d < y.size(); ++d)
      reps.push_back(x[d] ? y[d] / x[d] : 1);
    node(op, "Tile", 1)->add_input(ints(reps));
  } else if (relay == "mean") {
    std::vector<std::int64_t> axes;
    for (std::size_t d = 0; d < x.size() && x.size() == y.size(); ++d)
      if (y[d] == 1 && x[d] != 1) axes.push_back(static_cast<std::int64_t>(d));
    if (axes.empty()) axes.push_back(static_cast<std::int64_t>(x.size()) - 1);
    auto* n = node(op, "ReduceMean", 1);
    attr(n, "axes", axes);
    attr(n, "keepdims", std::int64_t{x.size() == y.size()});
  } else if (relay == "transpose") {
    std::vector<std::int64_t> perm;
    std::vector<bool> used(x.size(), false);
    for (std::size_t d = 0; d < y.size(); ++d) {
      std::size_t pick = d < x.size() && !used[d] && x[d] == y[d] ? d : x.size();
      for (std::size_t i = 0; pick == x.size() && i < x.size(); ++i)
        if (!used[i] && x[i] == y[d]) pick = i;
      used[pick] = true;
      perm.push_back(static_cast<std::int64_t>(pick));
    }
    attr(node(op, "Transpose", 1), "perm", perm);
  } else if (relay == "take") {
    const Shape& idx = t(op.inputs[1]).shape;
    std::int64_t axis = 0;
    for (std::size_t a = 0; a < x.size(); ++a) {
      Shape s(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(a));
      s.insert(s.end(), idx.begin(), idx.end());
      s.insert(s.end(), x.begin() + static_cast<std::ptrdiff_t>(a) + 1, x.end());
      if (s == y) {
        axis = static_cast<std::int64_t>(a);
        break;
      }
    }
    attr(node(op, "Gather", 2), "axis", axis);
  } else if (relay == "strided_slice") {
    std::vector<std::int64_t> starts, ends, axes;
    for (std::size_t d = 0; d < x.size(); ++d)
      if (x[d] != y[d]) {
        starts.push_back(0);
        ends.push_back(y[d]);
        axes.push_back(static_cast<std::int64_t>(d));
      }
    auto* n = node(op, "Slice", 1);
    n->add_input(ints(starts));
    n->add_input(ints(ends));
    n->add_input(ints(axes));
  } else if (relay == "split") {
    const std::size_t axis = differing_axis(x, y);
    std::vector<std::int64_t> sizes;
    for (TensorId o : op.outputs)
      sizes.push_back(t(o).shape[axis]);
    auto* n = node(op, "Split", 1);
    n->add_input(ints(sizes));
    attr(n, "axis", static_cast<std::int64_t>(axis));
  } else if (relay == "concatenate") {
    attr(node(op, "Concat", op.inputs.size()), "axis", static_cast<std::int64_t>(differing_axis(x, y)));
  } else if (relay == "nn_dense") {
    const Shape& w = t(op.inputs[1]).shape;
    if (x.size() == 2 && w.size() == 2 && w[1] == x[1]) {
      attr(node(op, "Gemm", op.inputs.size()), "transB", std::int64_t{1});
    } else {
      attr(node(op, "Einsum", 2), "equation", std::string("...k,nk->...n"));
    }
  } else if (relay == "nn_batch_matmul") {
    const Shape& b = t(op.inputs[1]).shape;
    if (b[b.size() - 2] == x.back() && b.back() == y.back()) {
      node(op, "MatMul", 2);
    } else {
      attr(node(op, "Einsum", 2), "equation", std::string("...mk,...nk->...mn"));
    }
  } else if (relay == "nn_conv2d" || relay == "nn_conv1d" || relay == "nn_conv3d") {
    const Shape& w = t(op.inputs[1]).shape;
    auto* n = node(op, "Conv", op.inputs.size());
    std::vector<std::int64_t> strides, pads_begin, pads_end;
    for (std::size_t i = 2; i < x.size(); ++i) {
      const auto [s, pad] = window_for(x[i], y[i], w[i]);
      strides.push_back(s);
      pads_begin.push_back(pad / 2);
      pads_end.push_back(pad - pad / 2);
    }
    pads_begin.insert(pads_begin.end(), pads_end.begin(), pads_end.end());
    attr(n, "group", w[1] ? x[1] / w[1] : 1);
    attr(n, "strides", strides);
    attr(n, "pads", pads_begin);
  } else if (relay == "nn_max_pool2d" || relay == "nn_avg_pool2d" ||
             (relay == "nn_adaptive_avg_pool2d" && !(y[2] == 1 && y[3] == 1))) {
    std::vector<std::int64_t> kernel, strides;
    for (std::size_t i = 2; i < x.size(); ++i) {
      const std::int64_t s = std::max<std::int64_t>(1, x[i] / std::max<std::int64_t>(y[i], 1));
      strides.push_back(s);
      kernel.push_back(x[i] - (y[i] - 1) * s);
    }
    auto* n = node(op, relay == "nn_max_pool2d" ? "MaxPool" : "AveragePool", 1);
    attr(n, "kernel_shape", kernel);
    attr(n, "strides", strides);
  } else if (relay == "nn_adaptive_avg_pool2d" || relay == "nn_global_avg_pool2d") {
    node(op, "GlobalAveragePool", 1);
  } else if (relay == "nn_layer_norm") {
    node(op, "LayerNormalization", op.inputs.size());
  } else {
    // A Relay op ONNX has no op for (rsqrt, variance, ...): in lightsim's domain, by its Relay name.
    if (!classify_func_name("tvmgen_default_fused_" + relay))
      throw InputError(g_.source, "op '" + op.name + "' (" + op.func_name + ") has no ONNX form");
    node(op, relay, op.inputs.size())->set_domain("ai.lightsim");
    for (TensorId o : op.outputs) // the importer has no shape rule for these: it reads the declared types
      value_info(graph_->add_value_info(), o);
  }
}

} // namespace

void write_onnx_graph(const Graph& graph, std::ostream& out, const std::string& weights_file) {
  Writer(graph, weights_file).write(out);
}

} // namespace lightsim::ir
