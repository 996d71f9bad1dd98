// OnnxModel: builds small ONNX models in tests with libonnx's protobuf classes (inputs with fixed or
// symbolic dims, weights as external references, int64 shape operands with their data, nodes with
// attributes), serializes them and imports them with lightsim's ONNX importer.
#pragma once

#include "ir/onnx/onnx_import.h"

#include <cstdint>
#include <initializer_list>
#include <onnx/onnx_pb.h>
#include <string>
#include <variant>
#include <vector>

namespace lightsim::test {

using Dim = std::variant<std::int64_t, std::string>;

class OnnxModel {
public:
  explicit OnnxModel(int opset);
  void input(const std::string& name, std::vector<Dim> dims, int elem_type = ::onnx::TensorProto::FLOAT);
  void weight(const std::string& name, std::vector<std::int64_t> dims,
              int elem_type = ::onnx::TensorProto::FLOAT);
  void ints(const std::string& name, std::vector<std::int64_t> values, bool scalar = false);
  void floats(const std::string& name, std::vector<float> values);
  ::onnx::NodeProto& node(const std::string& type, std::vector<std::string> inputs,
                          std::vector<std::string> outputs, const std::string& name = "");
  void output(const std::string& name);
  ::onnx::ModelProto& proto() { return model_; }
  std::string bytes() const;
  ir::ImportResult import(const ir::ImportOptions& options = {}) const;

private:
  ::onnx::ModelProto model_;
};

void set_attr(::onnx::NodeProto& n, const std::string& name, std::int64_t value);
void set_attr(::onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> values);
void set_attr(::onnx::NodeProto& n, const std::string& name, float value);
void set_attr(::onnx::NodeProto& n, const std::string& name, const std::string& value);

// The op named `name` (an ONNX node name) in an imported graph; fails the test when absent.
const ir::Op& op_named(const ir::Graph& g, const std::string& name);
const ir::Tensor& out_of(const ir::Graph& g, const std::string& name, std::size_t k = 0);

} // namespace lightsim::test
