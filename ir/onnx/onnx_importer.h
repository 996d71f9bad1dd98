// OnnxImporter: the state of one ONNX import (ir/onnx/onnx_import.h), shared by its two source files:
// onnx_import.cc reads the model (graph inputs with their bound dimensions, initializers, node order) and
// onnx_build.cc infers every node's shapes, folds the shape subgraphs and builds the ir::Graph.
// Internal to ir/onnx.
//
// It is not the interface: callers use import_onnx (ir/onnx/onnx_import.h), and the per-op shape rules
// are not here either (ir/onnx/rules_*.cc).
#pragma once

#include "ir/import_options.h"
#include "ir/onnx/shape_rules.h"

#include <onnx/onnx_pb.h>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace lightsim::ir::onnxio {

// A named tensor of the ONNX graph.
struct Value {
  std::string name;
  TensorType type;
  bool typed = false; // type known (inputs, initializers, inferred node outputs)
  enum Kind { Input, Initializer, Output } kind = Output;
  const ::onnx::TensorProto* init = nullptr; // initializer
  int producer = -1, output_index = 0;       // node outputs
  bool constant = false;                     // known at import: an initializer, or a folded node's output
  bool foldable = false;                     // its values are (or can be) known
  std::optional<Values> values;
  bool needed = false; // read as data by an op of the graph, or a graph output
};

struct NodeState {
  const ::onnx::NodeProto* node = nullptr;
  std::vector<int> inputs, outputs; // value ids (-1: an optional input or output left empty)
  const OpRule* rule = nullptr;
  bool lightsim_domain = false;
  std::optional<OpClass> unknown_class; // Opaque (unknown op) or the ai.lightsim op's class
  NodePlan plan;
  bool folded = false; // its outputs are constants (Constant, Shape, a folded shape computation)
  bool live = false;
};

class OnnxImporter {
public:
  OnnxImporter(const ::onnx::ModelProto& model, std::string source, std::size_t file_bytes,
               const ImportOptions& options);
  ImportResult run();

private:
  // onnx_import.cc
  void read_opset();
  void read_inputs_and_initializers();
  void read_nodes();
  int value_id(const std::string& name) const;
  [[noreturn]] void fail_node(std::size_t n, const std::string& reason) const;
  std::string node_place(std::size_t n) const;
  // onnx_build.cc
  void classify_nodes();
  std::optional<TensorType> declared_type(const std::string& name) const;
  void infer(std::size_t n);
  void fold_node(std::size_t n);
  const Values* resolve(int id);
  void check_declared_types();
  void mark_live();
  void build();

  const ::onnx::ModelProto& model_;
  const ::onnx::GraphProto& graph_;
  std::string source_;
  ImportOptions options_;
  ImportResult result_;
  int opset_ = 0;
  std::int64_t fold_budget_ = 0; // elements the folding may still materialise
  std::vector<Value> values_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<NodeState> nodes_;
  std::vector<std::size_t> order_; // node indices in topological order
  std::unordered_map<std::string, const ::onnx::ValueInfoProto*> declared_;
};

} // namespace lightsim::ir::onnxio
