// Shape rules of the ONNX importer: per op type of the standard domain (and per opset version where the
// op's inputs or attributes changed), the output shapes and dtypes of a node from its inputs' types, the
// values of its shape operands (Reshape's target, Slice's bounds, Resize's scales, ...) and its
// attributes, and the lightsim op(s) it becomes: its op class, the Relay op TVM's ONNX front end lowers it
// to (the func_name's spelling, so that fusion names it as TVM would), which inputs are data (the rest are
// attributes in Relay's form and are not tensors of the lightsim graph), and for the few nodes TVM lowers
// to more than one op (Gemm with transA, MatMul of a vector, Einsum) the ops in order.
//
// The rules are lightsim's own, written from the ONNX operator specification (onnx/docs/Operators.md,
// opsets 1 to 22); tests check them against libonnx's shape inference for the opsets it knows (<= 17).
// It is not the folding of shape subgraphs (ir/onnx/values.h) nor the graph build (ir/onnx/onnx_import.cc).
#pragma once

#include "ir/graph.h"
#include "ir/onnx/values.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onnx {
class AttributeProto;
} // namespace onnx

namespace lightsim::ir::onnxio {

// The newest opset of the standard domain whose every op's semantics lightsim knows.
inline constexpr int kNewestKnownOpset = 22;

struct TensorType {
  Shape shape;
  DType dtype = DType::Float32;
};

// One input of a node as the rules see it: absent (an optional input left empty or not listed), or typed
// with its values when they are known.
struct InputView {
  const TensorType* type = nullptr;
  int id = -1; // the importer's id of the value, for ValueResolver
  std::string_view name;
};

// The values of the importer's value `id` when they are known at import time (read or folded on demand).
using ValueResolver = std::function<const Values*(int id)>;

// A lightsim op a node becomes. Tensor references: k >= 0 is the node's input (in `inputs`) or output
// (in `outputs`) k; k < 0 is the plan's temporary -k - 1.
struct PlannedOp {
  OpClass op_class = OpClass::Opaque;
  std::string relay; // TVM spelling of the Relay op ("nn_conv2d", "add", "reshape")
  std::vector<int> inputs, outputs;
  std::shared_ptr<OpAttrs> attrs;
  std::string suffix; // appended to the node's name for every op but the last ("/transpose_a")
};

struct NodePlan {
  std::vector<TensorType> outputs; // one per node output (the rules fill every listed output)
  std::vector<TensorType> temps;
  std::vector<PlannedOp> ops;
  // Outputs from this index on are side outputs (BatchNormalization's running statistics, Dropout's
  // mask, MaxPool's indices, LayerNormalization's mean): left out of the graph when nothing reads them.
  std::size_t side_outputs_from = SIZE_MAX;
};

class NodeContext {
public:
  // `place()` names the node in messages ("<file>: node 3 'name' (OpType)"), built only for one.
  NodeContext(const ::onnx::NodeProto& node, int version, std::vector<InputView> inputs,
              std::function<std::string()> place, ValueResolver resolve)
      : node_(node), version_(version), inputs_(std::move(inputs)), place_(std::move(place)),
        resolve_(std::move(resolve)) {}

  const ::onnx::NodeProto& node() const { return node_; }
  int version() const { return version_; }
  std::size_t num_inputs() const { return inputs_.size(); }
  std::size_t num_outputs() const;
  bool has(std::size_t i) const { return i < inputs_.size() && inputs_[i].type; }
  const TensorType& in(std::size_t i) const; // fails when absent
  const Shape& shape(std::size_t i) const { return in(i).shape; }
  DType dtype(std::size_t i) const { return in(i).dtype; }
  std::size_t rank(std::size_t i) const { return in(i).shape.size(); }
  // The values of a shape operand; fails (naming the input) when they are not known at import time.
  const Values& values(std::size_t i, const char* what) const;
  std::vector<std::int64_t> ints(std::size_t i, const char* what) const;
  std::vector<double> numbers(std::size_t i, const char* what) const;

  const ::onnx::AttributeProto* attr(std::string_view name) const;
  std::int64_t attr_int(std::string_view name, std::int64_t fallback) const;
  float attr_float(std::string_view name, float fallback) const;
  std::string attr_string(std::string_view name, const std::string& fallback) const;
  std::vector<std::int64_t> attr_ints(std::string_view name) const; // empty when absent
  std::vector<float> attr_floats(std::string_view name) const;

  // `a` in [-rank, rank) made non-negative; fails otherwise (`what` names it: "axis", "axes[1]").
  std::size_t axis(std::int64_t a, std::size_t rank, const std::string& what) const;
  std::vector<std::size_t> axes(const std::vector<std::int64_t>& a, std::size_t rank, const char* what) const;
  // Input count in [min, max]; fails otherwise.
  void arity(std::size_t min, std::size_t max) const;

  [[noreturn]] void fail(const std::string& reason) const;
  std::string place() const { return place_(); }

private:
  const ::onnx::NodeProto& node_;
  int version_;
  std::vector<InputView> inputs_;
  std::function<std::string()> place_;
  ValueResolver resolve_;
};

struct OpRule;
using InferFn = void (*)(const NodeContext&, const OpRule&, NodePlan&);

struct OpRule {
  std::string_view op_type;
  int since;        // first opset with this op
  OpClass op_class; // the class of the (last) op it becomes; rules may choose another (MatMul)
  std::string_view relay;
  InferFn infer;
  int until = 0; // the last opset with this op (0: still in the standard); Upsample ends at 9
};

// The rule of a standard-domain op type; null for an op lightsim does not know.
const OpRule* find_rule(std::string_view op_type);
// Every rule (tests).
std::vector<const OpRule*> all_rules();

// Helpers shared by the rule files.
// NumPy broadcasting of several shapes; fails on incompatible dims.
Shape broadcast(const NodeContext& ctx, const std::vector<const Shape*>& shapes);
// One op of the rule's class reading the inputs `data` (indices) and writing every output.
void single_op(const OpRule& rule, NodePlan& plan, std::vector<int> data, OpClass op_class,
               std::string_view relay);
inline void single_op(const OpRule& rule, NodePlan& plan, std::vector<int> data) {
  single_op(rule, plan, std::move(data), rule.op_class, rule.relay);
}
// Indices [0, n) of the present inputs among the first n.
std::vector<int> present_inputs(const NodeContext& ctx, std::size_t n);
std::string shape_text(const Shape& shape);
// The elements of `s`; fails (naming the node) beyond 2^63 or on a negative dim.
std::int64_t checked_element_count(const NodeContext& ctx, const Shape& s);
// An operand that is attribute `attr` up to opset `input_since` and input `input` from it on; `given` says
// whether the node has it.
std::vector<std::int64_t> attr_or_input(const NodeContext& ctx, int input_since, const char* attr,
                                        std::size_t input, bool& given);
// One op of the rule writing every output as `out` (dtype: the first input's unless given), reading `data`.
void same_shape_op(const NodeContext& ctx, const OpRule& rule, NodePlan& plan, Shape out,
                   std::vector<int> data, std::optional<DType> dtype = std::nullopt);

// The rule files' tables (rules_*.cc), joined by find_rule.
std::vector<OpRule> elementwise_rules();
std::vector<OpRule> nn_rules();
std::vector<OpRule> tensor_rules();
std::vector<OpRule> reduction_rules();

} // namespace lightsim::ir::onnxio
