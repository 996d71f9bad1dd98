#include "sim/trace/graph_table.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace lightsim::sim {

void write_op_inputs(const H5::Group& root, const ir::Graph& graph, const h5::IoStatus* io) {
  // Row r is input `rows[r].second` of op `rows[r].first`: ops in id order, inputs in argument order.
  std::vector<std::pair<std::int32_t, std::int32_t>> rows;
  for (std::size_t op = 0; op < graph.ops.size(); ++op)
    for (std::size_t k = 0; k < graph.ops[op].inputs.size(); ++k)
      rows.emplace_back(static_cast<std::int32_t>(op), static_cast<std::int32_t>(k));
  std::vector<h5::Column> cols = {
      {"op", h5::ColumnType::I32},
      {"input", h5::ColumnType::I32},
      {"tensor", h5::ColumnType::I32},
      {"producer", h5::ColumnType::I32},
  };
  h5::Table table(root, "op_inputs", std::move(cols), rows.size(), io);
  table.write([&](std::size_t r, h5::RowCursor& row) {
    const auto [op, k] = rows[r];
    const ir::TensorId tensor = graph.ops[static_cast<std::size_t>(op)].inputs[static_cast<std::size_t>(k)];
    row.i32(op);
    row.i32(k);
    row.i32(static_cast<std::int32_t>(tensor));
    row.i32(static_cast<std::int32_t>(graph.tensors[static_cast<std::size_t>(tensor)].producer));
  });
}

} // namespace lightsim::sim
