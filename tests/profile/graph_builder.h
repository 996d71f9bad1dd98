// A tiny helper for the profiler tests: builds an ir::Graph op by op, as lightsim-graph or the importer
// would (tensors with shape, dtype, elements, bytes; ops in topological order), then finalizes it.
#pragma once

#include "ir/graph.h"

#include <string>
#include <vector>

namespace lightsim::test {

class GraphBuilder {
public:
  ir::TensorId input(std::vector<std::int64_t> shape, ir::DType dtype = ir::DType::Float32) {
    return add(ir::OpClass::Input, {}, {{std::move(shape), dtype}}).front();
  }
  struct Out {
    std::vector<std::int64_t> shape;
    ir::DType dtype = ir::DType::Float32;
  };
  ir::TensorId op(ir::OpClass c, std::vector<ir::TensorId> ins, std::vector<std::int64_t> shape,
                  ir::DType dtype = ir::DType::Float32) {
    return add(c, std::move(ins), {{std::move(shape), dtype}}).front();
  }
  std::vector<ir::TensorId> add(ir::OpClass c, std::vector<ir::TensorId> ins, const std::vector<Out>& outs) {
    ir::Op op;
    op.name = std::string(ir::op_class_name(c)) + "_" + std::to_string(graph.ops.size());
    op.op_class = c;
    op.inputs = std::move(ins);
    const auto id = static_cast<ir::OpId>(graph.ops.size());
    for (std::size_t k = 0; k < outs.size(); ++k) {
      ir::Tensor t;
      t.shape = outs[k].shape;
      t.dtype = outs[k].dtype;
      t.elements = 1;
      for (auto d : t.shape)
        t.elements *= static_cast<std::uint64_t>(d);
      t.bytes = t.elements * ir::dtype_storage_bytes(t.dtype);
      t.producer = id;
      t.output_index = static_cast<std::int32_t>(k);
      op.outputs.push_back(static_cast<ir::TensorId>(graph.tensors.size()));
      graph.tensors.push_back(std::move(t));
    }
    graph.ops.push_back(std::move(op));
    return graph.ops.back().outputs;
  }
  ir::Graph finish() {
    graph.source = "test-graph";
    graph.finalize();
    return std::move(graph);
  }

  ir::Graph graph;
};

} // namespace lightsim::test
