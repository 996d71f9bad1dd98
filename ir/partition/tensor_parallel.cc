#include "ir/partition/tensor_parallel.h"

#include "ir/error.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace lightsim::ir {
namespace {

// How a tensor is divided among the shards: the axis (-1: whole) and whether its extent is padded up to a
// multiple of the degree (the vocabulary) rather than divided exactly.
struct Division {
  int axis = -1;
  bool padded = false;
};

class Sharder {
public:
  Sharder(const Graph& graph, std::int64_t degree, const std::string& flag)
      : graph_(graph), degree_(degree), flag_(flag), division_(graph.tensors.size()),
        read_whole_(graph.tensors.size(), false), all_reduce_after_(graph.ops.size(), false) {}

  Graph run() {
    for (std::size_t i = 0; i < graph_.ops.size(); ++i)
      if (is_collective(graph_.ops[i].op_class))
        fail(i, "the graph has collectives already (it is one shard of a parallel plan)");
    find_projections();
    for (std::size_t i = 0; i < graph_.ops.size(); ++i) {
      const Op& op = graph_.ops[i];
      if (op.op_class == OpClass::Input) continue;
      divide_op(i);
      for (TensorId t : op.inputs)
        if (is_input(t) && division_[static_cast<std::size_t>(t)].axis < 0)
          read_whole_[static_cast<std::size_t>(t)] = true;
    }
    if (column_projections_ == 0)
      throw InputError(graph_.source, flag_ + " " + std::to_string(degree_) +
                                          ": the graph has no projection to divide (a dense whose output "
                                          "reaches another dense, as a transformer's q, k, v, gate and up)");
    return build();
  }

private:
  const Tensor& tensor(TensorId t) const { return graph_.tensors[static_cast<std::size_t>(t)]; }
  bool is_input(TensorId t) const {
    const OpId p = tensor(t).producer;
    return p >= 0 && graph_.ops[static_cast<std::size_t>(p)].op_class == OpClass::Input;
  }

  [[noreturn]] void fail(std::size_t op_index, const std::string& what) const {
    const Op& op = graph_.ops[op_index];
    std::string where = graph_.source.empty() ? std::string("graph") : graph_.source;
    where += op.node_index >= 0 ? ": nodes[" + std::to_string(op.node_index) + "] '" + op.name + "'"
                                : ": op " + std::to_string(op_index) + " '" + op.name + "'";
    throw InputError(where, flag_ + " " + std::to_string(degree_) + ": " + what);
  }

  // Dense ops whose output reaches another dense (through any ops but denses): the column-parallel
  // candidates; the others are final (an LM head). The vocabulary: the final denses' output widths.
  void find_projections() {
    const std::size_t n = graph_.ops.size();
    reaches_dense_.assign(n, false);
    for (std::size_t i = n; i-- > 0;)
      for (TensorId t : graph_.ops[i].outputs)
        for (OpId c : graph_.consumers[static_cast<std::size_t>(t)]) {
          const Op& consumer = graph_.ops[static_cast<std::size_t>(c)];
          if (consumer.op_class == OpClass::Dense || reaches_dense_[static_cast<std::size_t>(c)])
            reaches_dense_[i] = true;
        }
    for (std::size_t i = 0; i < n; ++i) {
      const Op& op = graph_.ops[i];
      if (op.op_class == OpClass::Dense && !reaches_dense_[i] && !op.outputs.empty() &&
          !tensor(op.outputs[0]).shape.empty())
        vocabulary_.insert(tensor(op.outputs[0]).shape.back());
    }
  }

  // The axis of a dense's weight that holds `extent` (its n outputs or its k inputs): TVM's weights are
  // [n, k], ONNX's Gemm and MatMul ones may be [k, n]; a square weight is taken as TVM's.
  static int weight_axis(const std::vector<std::int64_t>& weight, std::int64_t extent, int tvm_axis) {
    return weight[static_cast<std::size_t>(tvm_axis)] == extent ? tvm_axis : 1 - tvm_axis;
  }

  // Divides tensor t on `axis` (op_index is the op that asks, for messages); an activation's division is
  // what its producer decided, so only inputs and weights are divided here.
  void divide_input(std::size_t op_index, TensorId t, int axis, bool padded) {
    Division& d = division_[static_cast<std::size_t>(t)];
    if (d.axis == axis) return;
    const std::string name = shape_text(tensor(t).shape);
    if (!is_input(t))
      fail(op_index, "reads the whole tensor " + name + " with one divided on axis " + std::to_string(axis) +
                         "; only inputs and weights can be divided where they are read");
    if (d.axis >= 0 || read_whole_[static_cast<std::size_t>(t)])
      fail(op_index, "needs input " + name + " divided on axis " + std::to_string(axis) +
                         ", but an earlier op reads it " +
                         (d.axis >= 0 ? "divided on axis " + std::to_string(d.axis) : std::string("whole")));
    check_divisible(op_index, t, axis, padded);
    d = {axis, padded};
  }

  void check_divisible(std::size_t op_index, TensorId t, int axis, bool padded) const {
    const std::int64_t extent = tensor(t).shape[static_cast<std::size_t>(axis)];
    if (!padded && extent % degree_ != 0)
      fail(op_index, "does not divide the " + std::to_string(extent) + " of axis " + std::to_string(axis) +
                         " of " + shape_text(tensor(t).shape) +
                         " (attention heads, key/value heads or FFN columns must divide by it)");
  }

  void set_output(std::size_t op_index, TensorId t, int axis, bool padded) {
    check_divisible(op_index, t, axis, padded);
    division_[static_cast<std::size_t>(t)] = {axis, padded};
  }

  void divide_op(std::size_t i) {
    const Op& op = graph_.ops[i];
    switch (op.op_class) {
    case OpClass::Dense:
      return divide_dense(i);
    case OpClass::Take:
      if (divide_embedding(i)) return;
      break;
    case OpClass::Nop:
      return divide_reshape(i);
    case OpClass::Transpose:
      return divide_transpose(i);
    default:
      break;
    }
    divide_aligned(i);
  }

  void divide_dense(std::size_t i) {
    const Op& op = graph_.ops[i];
    if (op.inputs.size() < 2 || tensor(op.inputs[1]).shape.size() != 2 || !is_input(op.inputs[1]))
      return divide_aligned(i); // not a projection by a weight [n, k]
    const TensorId data = op.inputs[0], weight = op.inputs[1];
    const Division d = division_[static_cast<std::size_t>(data)];
    const int last = static_cast<int>(tensor(data).shape.size()) - 1;
    if (d.axis >= 0) {
      if (d.axis != last)
        fail(i, "reads its data divided on axis " + std::to_string(d.axis) + ", not on the last (k) axis");
      if (!op.features.fused_tail.empty())
        fail(i, "is a row-parallel projection fused with ops after it; its all-reduce must come first "
                "(import an unfused export)");
      for (std::size_t k = 2; k < op.inputs.size(); ++k)
        if (division_[static_cast<std::size_t>(op.inputs[k])].axis >= 0)
          fail(i, "a row-parallel projection whose other operands are divided");
      divide_input(i, weight, weight_axis(tensor(weight).shape, tensor(data).shape.back(), 1), d.padded);
      all_reduce_after_[i] = true;
      return;
    }
    const bool vocabulary = !reaches_dense_[i];
    divide_input(i, weight, weight_axis(tensor(weight).shape, tensor(op.outputs[0]).shape.back(), 0),
                 vocabulary);
    column_projections_ += !vocabulary;
    for (TensorId t : op.outputs)
      set_output(i, t, static_cast<int>(tensor(t).shape.size()) - 1, vocabulary);
    divide_operands_like_output(i, op.outputs[0], 2);
  }

  // A gather from the token embedding (a weight with as many rows as the vocabulary): the table's rows are
  // divided (padded), each shard looks up the tokens it holds, and an all-reduce sums the shards' rows.
  bool divide_embedding(std::size_t i) {
    const Op& op = graph_.ops[i];
    if (op.inputs.empty()) return false;
    const TensorId table = op.inputs[0];
    const std::vector<std::int64_t>& shape = tensor(table).shape;
    if (!is_input(table) || shape.size() != 2 || !vocabulary_.contains(shape[0])) return false;
    for (std::size_t k = 1; k < op.inputs.size(); ++k)
      if (division_[static_cast<std::size_t>(op.inputs[k])].axis >= 0) return false;
    divide_input(i, table, 0, true);
    all_reduce_after_[i] = true;
    return true;
  }

  // A reshape: the output axis that starts at the same flat offset as the divided one and is longer than 1.
  void divide_reshape(std::size_t i) {
    const Op& op = graph_.ops[i];
    if (op.inputs.empty() || division_[static_cast<std::size_t>(op.inputs[0])].axis < 0)
      return divide_aligned(i);
    const Division d = division_[static_cast<std::size_t>(op.inputs[0])];
    const std::vector<std::int64_t>& in = tensor(op.inputs[0]).shape;
    const std::int64_t prefix =
        std::accumulate(in.begin(), in.begin() + d.axis, std::int64_t{1}, std::multiplies<std::int64_t>());
    for (TensorId t : op.outputs) {
      const std::vector<std::int64_t>& out = tensor(t).shape;
      std::int64_t before = 1;
      int axis = -1;
      for (std::size_t b = 0; b < out.size() && before <= prefix; before *= out[b], ++b)
        if (before == prefix && out[b] > 1) {
          axis = static_cast<int>(b);
          break;
        }
      if (axis < 0)
        fail(i, "reshapes " + shape_text(in) + " (divided on axis " + std::to_string(d.axis) + ") to " +
                    shape_text(out) + ", where no axis starts at the divided one");
      set_output(i, t, axis, d.padded);
    }
  }

  // A transpose: TVM's graph keeps no axes, so the permutation is the one that maps the input's shape to
  // the output's, moves the fewest axes and is not the identity (first in lexicographic order on a tie).
  void divide_transpose(std::size_t i) {
    const Op& op = graph_.ops[i];
    if (op.inputs.size() != 1 || op.outputs.size() != 1 ||
        division_[static_cast<std::size_t>(op.inputs[0])].axis < 0)
      return divide_aligned(i);
    const Division d = division_[static_cast<std::size_t>(op.inputs[0])];
    const std::vector<std::int64_t>& in = tensor(op.inputs[0]).shape;
    const std::vector<std::int64_t>& out = tensor(op.outputs[0]).shape;
    std::vector<int> perm(in.size()), best;
    std::iota(perm.begin(), perm.end(), 0);
    int best_moved = static_cast<int>(in.size()) + 1;
    if (out.size() == in.size() && in.size() <= 8) do {
        int moved = 0;
        bool maps = true;
        for (std::size_t b = 0; b < out.size() && maps; ++b) {
          maps = out[b] == in[static_cast<std::size_t>(perm[b])];
          moved += perm[b] != static_cast<int>(b);
        }
        if (maps && moved > 0 && moved < best_moved) {
          best = perm;
          best_moved = moved;
        }
      } while (std::next_permutation(perm.begin(), perm.end()));
    if (best.empty())
      fail(i, "transposes " + shape_text(in) + " to " + shape_text(out) + ", which no permutation does");
    const auto b = std::find(best.begin(), best.end(), d.axis) - best.begin();
    set_output(i, op.outputs[0], static_cast<int>(b), d.padded);
  }

  // Every other op keeps the division on its axis, aligned from the right as broadcasting aligns (from
  // the left where the output has fewer axes: a reduction without keepdims); batch_matmul only on a batch
  // axis. Whole operands with the full extent there are divided with it.
  void divide_aligned(std::size_t i) {
    const Op& op = graph_.ops[i];
    int out_axis = -1;
    bool padded = false;
    const std::size_t out_rank = op.outputs.empty() ? 0 : tensor(op.outputs[0]).shape.size();
    for (TensorId t : op.inputs) {
      const Division d = division_[static_cast<std::size_t>(t)];
      if (d.axis < 0) continue;
      const std::size_t rank = tensor(t).shape.size();
      const int axis = out_rank >= rank ? d.axis + static_cast<int>(out_rank - rank) : d.axis;
      if (out_axis >= 0 && axis != out_axis)
        fail(i, "reads operands divided on different axes (" + std::to_string(out_axis) + " and " +
                    std::to_string(axis) + " of its output)");
      if (op.op_class == OpClass::BatchMatmul && d.axis + 2 >= static_cast<int>(rank))
        fail(i, "reads " + shape_text(tensor(t).shape) + " divided on a matrix axis, not a batch axis");
      out_axis = axis;
      padded = padded || d.padded;
    }
    if (out_axis < 0 || op.outputs.empty()) return; // nothing divided: the op is replicated whole
    for (TensorId t : op.outputs) {
      const std::vector<std::int64_t>& out = tensor(t).shape;
      if (out_axis >= static_cast<int>(out.size()) || out[static_cast<std::size_t>(out_axis)] == 1)
        fail(i, "reduces over the divided axis (output " + shape_text(out) + ")");
      set_output(i, t, out_axis, padded);
    }
    divide_operands_like_output(i, op.outputs[0], 0);
  }

  // Whole operands (from index `first` on) whose extent on the output's divided axis is the output's own:
  // they hold a value per divided entry (a bias, a KV cache), so they are divided with it.
  void divide_operands_like_output(std::size_t i, TensorId output, std::size_t first) {
    const Op& op = graph_.ops[i];
    const Division d = division_[static_cast<std::size_t>(output)];
    const std::size_t out_rank = tensor(output).shape.size();
    const std::int64_t extent = tensor(output).shape[static_cast<std::size_t>(d.axis)];
    for (std::size_t k = first; k < op.inputs.size(); ++k) {
      const TensorId t = op.inputs[k];
      if (division_[static_cast<std::size_t>(t)].axis >= 0) continue;
      const std::vector<std::int64_t>& shape = tensor(t).shape;
      if (shape.size() > out_rank) continue;
      const int axis = d.axis - static_cast<int>(out_rank - shape.size());
      if (axis < 0 || shape[static_cast<std::size_t>(axis)] != extent || extent == 1) continue;
      divide_input(i, t, axis, d.padded);
    }
  }

  std::int64_t divided(std::int64_t extent, bool padded) const {
    return padded ? (extent + degree_ - 1) / degree_ : extent / degree_;
  }

  Graph build() const {
    Graph out;
    out.source = graph_.source;
    out.tensors = graph_.tensors;
    for (std::size_t t = 0; t < out.tensors.size(); ++t) {
      const Division d = division_[t];
      if (d.axis < 0) continue;
      Tensor& tensor = out.tensors[t];
      tensor.shape[static_cast<std::size_t>(d.axis)] =
          divided(tensor.shape[static_cast<std::size_t>(d.axis)], d.padded);
      tensor.elements =
          std::accumulate(tensor.shape.begin(), tensor.shape.end(), std::uint64_t{1},
                          [](std::uint64_t a, std::int64_t e) { return a * static_cast<std::uint64_t>(e); });
      tensor.bytes = dtype_tensor_bytes(tensor.dtype, tensor.elements).value_or(0);
    }
    std::vector<TensorId> replaced(graph_.tensors.size());
    std::iota(replaced.begin(), replaced.end(), 0);
    auto attrs = std::make_shared<OpAttrs>();
    attrs->num_workers = degree_;
    for (std::size_t i = 0; i < graph_.ops.size(); ++i) {
      Op op = graph_.ops[i];
      for (TensorId& t : op.inputs)
        t = replaced[static_cast<std::size_t>(t)];
      const auto id = static_cast<OpId>(out.ops.size());
      for (std::size_t k = 0; k < op.outputs.size(); ++k) {
        out.tensors[static_cast<std::size_t>(op.outputs[k])].producer = id;
        out.tensors[static_cast<std::size_t>(op.outputs[k])].output_index = static_cast<std::int32_t>(k);
      }
      const bool reduce = all_reduce_after_[i];
      const TensorId partial = op.outputs.empty() ? -1 : op.outputs[0];
      const std::string name = op.name;
      out.ops.push_back(std::move(op));
      if (!reduce) continue;
      Tensor sum = out.tensors[static_cast<std::size_t>(partial)];
      sum.producer = id + 1;
      sum.output_index = 0;
      const auto sum_id = static_cast<TensorId>(out.tensors.size());
      out.tensors.push_back(std::move(sum));
      Op all_reduce;
      all_reduce.name = name + "_allreduce";
      all_reduce.func_name = "tvmgen_default_fused_ccl_allreduce";
      all_reduce.op_class = OpClass::AllReduce;
      all_reduce.inputs = {partial};
      all_reduce.outputs = {sum_id};
      all_reduce.attrs = attrs;
      out.ops.push_back(std::move(all_reduce));
      replaced[static_cast<std::size_t>(partial)] = sum_id;
    }
    for (TensorId h : graph_.heads)
      out.heads.push_back(replaced[static_cast<std::size_t>(h)]);
    out.finalize();
    return out;
  }

  const Graph& graph_;
  const std::int64_t degree_;
  const std::string& flag_;
  std::vector<Division> division_;     // per tensor
  std::vector<bool> read_whole_;       // per input or weight: an op has read it whole
  std::vector<bool> all_reduce_after_; // per op: its output is a partial sum
  std::vector<bool> reaches_dense_;    // per op: a dense reads what it computes (maybe through other ops)
  std::set<std::int64_t> vocabulary_;  // output widths of the denses that reach no dense
  int column_projections_ = 0;
};

} // namespace

Graph shard_tensor_parallel(const Graph& graph, std::int64_t degree, const std::string& flag) {
  if (degree < 1)
    throw InputError(graph.source, flag + " " + std::to_string(degree) + ": must be at least 1");
  if (degree == 1) return graph;
  return Sharder(graph, degree, flag).run();
}

} // namespace lightsim::ir
