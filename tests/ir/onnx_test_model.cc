#include "tests/ir/onnx_test_model.h"

#include <gtest/gtest.h>
#include <stdexcept>

namespace lightsim::test {

OnnxModel::OnnxModel(int opset) {
  model_.set_ir_version(8);
  auto* o = model_.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

void OnnxModel::input(const std::string& name, std::vector<Dim> dims, int elem_type) {
  auto* v = model_.mutable_graph()->add_input();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* shape = tt->mutable_shape();
  for (const Dim& d : dims) {
    auto* dim = shape->add_dim();
    if (const auto* n = std::get_if<std::int64_t>(&d))
      dim->set_dim_value(*n);
    else
      dim->set_dim_param(std::get<std::string>(d));
  }
}

void OnnxModel::weight(const std::string& name, std::vector<std::int64_t> dims, int elem_type) {
  auto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(elem_type);
  for (std::int64_t d : dims)
    t->add_dims(d);
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* e = t->add_external_data();
  e->set_key("location");
  e->set_value("weights_not_shipped.bin");
}

void OnnxModel::ints(const std::string& name, std::vector<std::int64_t> values, bool scalar) {
  auto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  if (!scalar) t->add_dims(static_cast<std::int64_t>(values.size()));
  for (std::int64_t v : values)
    t->add_int64_data(v);
}

void OnnxModel::floats(const std::string& name, std::vector<float> values) {
  auto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<std::int64_t>(values.size()));
  for (float v : values)
    t->add_float_data(v);
}

::onnx::NodeProto& OnnxModel::node(const std::string& type, std::vector<std::string> inputs,
                                   std::vector<std::string> outputs, const std::string& name) {
  auto* n = model_.mutable_graph()->add_node();
  n->set_op_type(type);
  n->set_name(name.empty() ? outputs.at(0) : name);
  for (const std::string& i : inputs)
    n->add_input(i);
  for (const std::string& o : outputs)
    n->add_output(o);
  return *n;
}

void OnnxModel::output(const std::string& name) {
  model_.mutable_graph()->add_output()->set_name(name);
}

std::string OnnxModel::bytes() const {
  std::string out;
  model_.SerializeToString(&out);
  return out;
}

ir::ImportResult OnnxModel::import(const ir::ImportOptions& options) const {
  return ir::import_onnx_bytes(bytes(), "m.onnx", options);
}

void set_attr(::onnx::NodeProto& n, const std::string& name, std::int64_t value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(value);
}

void set_attr(::onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> values) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (std::int64_t v : values)
    a->add_ints(v);
}

void set_attr(::onnx::NodeProto& n, const std::string& name, float value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

void set_attr(::onnx::NodeProto& n, const std::string& name, const std::string& value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(value);
}

const ir::Op& op_named(const ir::Graph& g, const std::string& name) {
  for (const ir::Op& op : g.ops)
    if (op.name == name) return op;
  ADD_FAILURE() << "no op named " << name;
  throw std::runtime_error("no op named " + name);
}

const ir::Tensor& out_of(const ir::Graph& g, const std::string& name, std::size_t k) {
  return g.tensors[static_cast<std::size_t>(op_named(g, name).outputs.at(k))];
}

} // namespace lightsim::test
