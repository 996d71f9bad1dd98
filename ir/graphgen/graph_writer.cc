#include "ir/graphgen/graph_writer.h"

#include "ir/graphgen/tvm_plan.h"
#include "ir/graphgen/tvm_writer.h"

namespace lightsim::ir::graphgen {
namespace {

// The graph as an ExprGraph (for the entry types) and a lowered TvmGraph over it.
struct Lowered {
  ExprGraph exprs;
  TvmGraph tvm;
};

void lower(const Graph& g, Lowered& out) {
  TvmGraph& t = out.tvm;
  std::vector<ExprRef> ref(g.tensors.size());
  std::vector<std::int64_t> uses(g.tensors.size(), 0);
  for (const Op& op : g.ops)
    for (TensorId in : op.inputs)
      ++uses[static_cast<std::size_t>(in)];
  for (TensorId h : g.heads)
    ++uses[static_cast<std::size_t>(h)];
  auto type_of = [&](TensorId id) {
    const Tensor& tensor = g.tensors[static_cast<std::size_t>(id)];
    return TensorType{tensor.shape, tensor.dtype};
  };
  detail::StoragePlanner planner;
  std::vector<std::int32_t> token(g.tensors.size(), -1);
  t.node_row_ptr.push_back(0);
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    TvmNode node;
    node.name = op.name;
    std::vector<TensorType> outs;
    for (TensorId o : op.outputs)
      outs.push_back(type_of(o));
    if (op.op_class == OpClass::Input) {
      node.is_null = true;
      const ExprRef e = out.exprs.input(op.name, outs.at(0));
      node.expr = e.expr;
      ref[static_cast<std::size_t>(op.outputs.at(0))] = e;
      t.arg_nodes.push_back(static_cast<std::int32_t>(i));
      const TensorId o = op.outputs[0];
      token[static_cast<std::size_t>(o)] = planner.alloc_pinned(g.tensors[static_cast<std::size_t>(o)].bytes,
                                                                uses[static_cast<std::size_t>(o)]);
    } else {
      std::vector<ExprRef> args;
      std::string key = op.func_name + '|';
      for (TensorId in : op.inputs) {
        args.push_back(ref[static_cast<std::size_t>(in)]);
        const Tensor& tensor = g.tensors[static_cast<std::size_t>(in)];
        node.inputs.push_back({tensor.producer, tensor.output_index});
        key += std::string(dtype_name(tensor.dtype)) + std::to_string(tensor.elements) + ';';
      }
      const std::vector<ExprRef> results = out.exprs.call_multi(op.func_name, args, outs);
      node.expr = results.at(0).expr;
      node.func_name = op.func_name;
      node.hash = detail::fnv1a_hex(key);
      for (std::size_t k = 0; k < op.outputs.size(); ++k) {
        const auto o = static_cast<std::size_t>(op.outputs[k]);
        ref[o] = results[k];
        if (op.func_name == "__nop" && !op.inputs.empty()) { // a reshape aliases its input's storage
          const std::int32_t tok = token[static_cast<std::size_t>(op.inputs[0])];
          planner.add_refs(tok, uses[o]);
          token[o] = tok;
        } else {
          token[o] = planner.request(g.tensors[o].bytes, uses[o]);
        }
      }
      for (TensorId o : op.outputs)
        planner.check_release(token[static_cast<std::size_t>(o)]);
      for (TensorId in : op.inputs)
        planner.release_one(token[static_cast<std::size_t>(in)]);
    }
    for (TensorId o : op.outputs)
      t.storage_id.push_back(planner.storage_id(token[static_cast<std::size_t>(o)]));
    t.node_row_ptr.push_back(t.node_row_ptr.back() + static_cast<std::int64_t>(op.outputs.size()));
    t.nodes.push_back(std::move(node));
  }
  for (TensorId h : g.heads) {
    const Tensor& tensor = g.tensors[static_cast<std::size_t>(h)];
    t.heads.push_back({tensor.producer, tensor.output_index});
  }
  t.exprs = &out.exprs;
}

} // namespace

void write_graph(const Graph& graph, std::ostream& out) {
  Lowered l;
  lower(graph, l);
  write_tvm_graph(l.tvm, out);
}

} // namespace lightsim::ir::graphgen
