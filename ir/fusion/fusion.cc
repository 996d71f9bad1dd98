#include "ir/fusion/fusion.h"

#include "ir/fusion/attention.h"
#include "ir/fusion/fuse_ops.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace lightsim::ir::fusion {
namespace {

constexpr std::string_view kFuncPrefix = "tvmgen_default_fused_";

std::string type_text(const Tensor& t) {
  std::string s(dtype_name(t.dtype));
  s += '[';
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(t.shape[i]);
  }
  return s + ']';
}

struct Group {
  std::vector<OpId> members;    // op order, inlined constants included
  std::vector<OpId> body;       // compute members in TVM's post-order (the function name's order)
  std::vector<TensorId> params; // tensors entering the group, in parameter order
  std::vector<TensorId> outputs;
  bool input_only = false; // a graph input or constant outside every group
  bool attention = false;
};

// Builds the fused graph from a grouping (see fusion.h for the rules).
class FusedGraphBuilder {
public:
  FusedGraphBuilder(const Graph& g, const Grouping& grouping) : g_(g), group_of_(g.ops.size()) {
    std::unordered_map<std::int32_t, std::int32_t> index;
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
      auto [it, fresh] = index.try_emplace(grouping.group_of[i], static_cast<std::int32_t>(groups_.size()));
      if (fresh) groups_.emplace_back();
      group_of_[i] = it->second;
      groups_[static_cast<std::size_t>(it->second)].members.push_back(static_cast<OpId>(i));
    }
    is_head_.assign(g.tensors.size(), false);
    for (TensorId t : g.heads)
      is_head_[static_cast<std::size_t>(t)] = true;
    for (Group& group : groups_)
      describe(group);
  }

  FusionResult build() {
    order_groups();
    FusionResult result;
    Graph& out = result.graph;
    out.source = g_.source;
    new_tensor_.assign(g_.tensors.size(), -1);
    std::int64_t params = 0;
    for (std::int32_t gi : order_) {
      const Group& group = groups_[static_cast<std::size_t>(gi)];
      const auto id = static_cast<OpId>(out.ops.size());
      Op op = group.input_only ? input_op(group, params) : fused_op(group);
      for (TensorId t :
           group.input_only ? g_.ops[static_cast<std::size_t>(group.members[0])].outputs : group.outputs) {
        Tensor tensor = g_.tensors[static_cast<std::size_t>(t)];
        tensor.producer = id;
        tensor.output_index = static_cast<std::int32_t>(op.outputs.size());
        new_tensor_[static_cast<std::size_t>(t)] = static_cast<TensorId>(out.tensors.size());
        op.outputs.push_back(static_cast<TensorId>(out.tensors.size()));
        out.tensors.push_back(std::move(tensor));
      }
      op.inputs.reserve(group.params.size());
      for (TensorId t : group.input_only ? std::vector<TensorId>{} : group.params) {
        const TensorId mapped = new_tensor_[static_cast<std::size_t>(t)];
        if (mapped < 0) throw std::logic_error("fusion: a group reads a tensor produced after it (a cycle)");
        op.inputs.push_back(mapped);
      }
      out.ops.push_back(std::move(op));
      result.members.push_back(group.members);
      result.attention_ops += group.attention;
    }
    for (TensorId t : g_.heads)
      out.heads.push_back(new_tensor_[static_cast<std::size_t>(t)]);
    out.finalize();
    return result;
  }

private:
  const Op& op(OpId id) const { return g_.ops[static_cast<std::size_t>(id)]; }
  std::int32_t group_of_tensor(TensorId t) const {
    return group_of_[static_cast<std::size_t>(g_.tensors[static_cast<std::size_t>(t)].producer)];
  }

  // Body order, parameters and outputs of one group.
  void describe(Group& group) {
    const std::int32_t gi = group_of_[static_cast<std::size_t>(group.members[0])];
    std::vector<OpId> compute;
    for (OpId m : group.members)
      if (op(m).op_class != OpClass::Input) compute.push_back(m);
    if (compute.empty()) {
      if (group.members.size() != 1) throw std::logic_error("fusion: a group of inputs only");
      group.input_only = true;
      return;
    }
    for (OpId m : compute)
      for (TensorId t : op(m).outputs) {
        bool leaves = is_head_[static_cast<std::size_t>(t)];
        for (OpId c : g_.consumers[static_cast<std::size_t>(t)])
          leaves = leaves || group_of_[static_cast<std::size_t>(c)] != gi;
        if (leaves) group.outputs.push_back(t);
      }
    if (group.outputs.empty()) // dead code: keep what the last member writes
      group.outputs = op(compute.back()).outputs;
    // TVM's FuseMutator and lowering: a depth-first walk from the output, arguments left to right; an
    // argument from outside becomes the next parameter, a call is named after its arguments (post-order).
    std::unordered_set<OpId> seen;
    struct Frame {
      OpId op;
      std::size_t next = 0;
    };
    std::vector<Frame> stack;
    for (TensorId t : group.outputs) {
      const OpId root = g_.tensors[static_cast<std::size_t>(t)].producer;
      if (!seen.insert(root).second) continue;
      stack.push_back({root});
      while (!stack.empty()) {
        Frame& f = stack.back();
        const Op& o = op(f.op);
        if (f.next == o.inputs.size()) {
          group.body.push_back(f.op);
          stack.pop_back();
          continue;
        }
        const TensorId arg = o.inputs[f.next++];
        const OpId producer = g_.tensors[static_cast<std::size_t>(arg)].producer;
        if (group_of_[static_cast<std::size_t>(producer)] != gi) {
          if (std::find(group.params.begin(), group.params.end(), arg) == group.params.end())
            group.params.push_back(arg);
        } else if (op(producer).op_class != OpClass::Input && seen.insert(producer).second) {
          stack.push_back({producer});
        }
      }
    }
    if (group.body.size() != compute.size())
      throw std::logic_error("fusion: a group member does not lead to the group's output");
    std::vector<OpId> products;
    for (OpId m : compute)
      if (op(m).op_class == OpClass::BatchMatmul) products.push_back(m);
    group.attention = products.size() == 2;
    if (group.attention) { // fused attention takes Q, K, the scale and mask operands, V (ir/graph.h)
      const std::vector<TensorId> qk = op(products[0]).inputs;
      const TensorId v = op(products[1]).inputs[1];
      std::vector<TensorId> params = qk;
      for (TensorId t : group.params)
        if (std::find(qk.begin(), qk.end(), t) == qk.end() && t != v) params.push_back(t);
      params.push_back(v);
      group.params = std::move(params);
    }
  }

  // TVM's graph-executor codegen order: per-run inputs first, then a post-order walk from the outputs
  // (arguments left to right); groups the walk does not reach follow in their original order.
  void order_groups() {
    std::vector<bool> done(groups_.size(), false);
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      const Group& group = groups_[gi];
      if (group.input_only && !op(group.members[0]).is_param) {
        order_.push_back(static_cast<std::int32_t>(gi));
        done[gi] = true;
      }
    }
    struct Frame {
      std::int32_t group;
      std::size_t next = 0;
    };
    std::vector<Frame> stack;
    auto walk = [&](std::int32_t start) {
      if (done[static_cast<std::size_t>(start)]) return;
      done[static_cast<std::size_t>(start)] = true;
      stack.push_back({start});
      while (!stack.empty()) {
        Frame& f = stack.back();
        const Group& group = groups_[static_cast<std::size_t>(f.group)];
        if (group.input_only || f.next == group.params.size()) {
          order_.push_back(f.group);
          stack.pop_back();
          continue;
        }
        const std::int32_t arg = group_of_tensor(group.params[f.next++]);
        if (!done[static_cast<std::size_t>(arg)]) {
          done[static_cast<std::size_t>(arg)] = true;
          stack.push_back({arg});
        }
      }
    };
    for (TensorId t : g_.heads)
      walk(group_of_tensor(t));
    std::vector<std::pair<OpId, std::int32_t>> rest; // unreachable groups by their first member
    for (std::size_t gi = 0; gi < groups_.size(); ++gi)
      if (!done[gi]) rest.emplace_back(groups_[gi].members.front(), static_cast<std::int32_t>(gi));
    std::sort(rest.begin(), rest.end());
    for (const auto& [first, gi] : rest)
      walk(gi);
  }

  Op input_op(const Group& group, std::int64_t& params) const {
    Op o = op(group.members[0]);
    o.outputs.clear();
    o.inputs.clear();
    if (o.is_param) {
      o.name = std::to_string(params++);
      o.name.insert(o.name.begin(), 'p');
    }
    o.node_index = -1;
    return o;
  }

  // TVM's names: the func name once per distinct function, `_<n>` for further variants; node names the
  // func name made unique.
  void name(const Group& group, Op& o) {
    const bool views_only = std::all_of(group.body.begin(), group.body.end(),
                                        [&](OpId m) { return op(m).op_class == OpClass::Nop; });
    if (views_only) {
      o.func_name = "__nop";
      o.name = "reshape_nop";
      return;
    }
    std::string body, key;
    for (OpId m : group.body) {
      if (!body.empty()) body += '_';
      body += relay_ops_of(op(m).func_name);
      key += op(m).func_name;
      key += ';';
    }
    key.insert(0, body + '|');
    key += '|';
    for (TensorId t : group.params)
      key += type_text(g_.tensors[static_cast<std::size_t>(t)]) + ';';
    key += "->";
    for (TensorId t : group.outputs)
      key += type_text(g_.tensors[static_cast<std::size_t>(t)]) + ';';
    auto [it, fresh] = func_of_key_.try_emplace(key);
    if (fresh) {
      const std::int64_t k = variants_[body]++;
      it->second = std::string(kFuncPrefix);
      it->second += body;
      if (k) it->second += "_" + std::to_string(k);
    }
    o.func_name = it->second;
    if (used_names_.insert(o.func_name).second) {
      o.name = o.func_name;
      return;
    }
    std::int64_t& c = name_counter_.try_emplace(o.func_name, 1).first->second;
    while (used_names_.count(o.func_name + "_" + std::to_string(c)))
      ++c;
    o.name = o.func_name + "_" + std::to_string(c++);
    used_names_.insert(o.name);
  }

  Op fused_op(const Group& group) {
    std::size_t compute = group.body.size();
    const bool single = compute == 1 && group.members.size() == 1 && !group.attention;
    const Op& first = op(group.body.front());
    Op o;
    if (single && first.op_class == OpClass::Opaque) { // an unknown op keeps its name
      o.name = first.name;
      o.func_name = first.func_name;
      used_names_.insert(o.name);
    } else {
      name(group, o);
    }
    if (single) {
      o.op_class = first.op_class;
      o.fused_tail = first.fused_tail;
      return o;
    }
    const std::optional<Classification> c = classify_func_name(o.func_name);
    if (!c) throw std::logic_error("fusion: cannot classify its own name " + o.func_name);
    o.op_class = c->anchor;
    o.fused_tail = c->tail;
    FusedShape shape;
    for (TensorId t : group.params) {
      std::uint64_t read = 0;
      for (OpId m : group.body)
        if (std::find(op(m).inputs.begin(), op(m).inputs.end(), t) != op(m).inputs.end())
          read = std::max(read, bytes_read_from(g_, op(m), t));
      shape.input_bytes_read.push_back(read);
    }
    const Op* anchor = nullptr;
    for (OpId m : group.body) {
      const Op& member = op(m);
      if (member.op_class == OpClass::Nop) continue;
      shape.elementwise_ops += member.features.elementwise_ops;
      if (!anchor && member.op_class == o.op_class) anchor = &member;
    }
    if (anchor) {
      shape.fused_ops = shape.elementwise_ops - anchor->features.elementwise_ops;
      shape.gemm_batch = anchor->features.gemm_batch;
      shape.gemm_m = anchor->features.gemm_m;
      shape.gemm_n = anchor->features.gemm_n;
      shape.gemm_k = anchor->features.gemm_k;
    } else {
      shape.fused_ops = shape.elementwise_ops;
    }
    o.fused = std::move(shape);
    return o;
  }

  const Graph& g_;
  std::vector<std::int32_t> group_of_; // per op: index into groups_
  std::vector<Group> groups_;
  std::vector<bool> is_head_;
  std::vector<std::int32_t> order_;
  std::vector<TensorId> new_tensor_;
  std::unordered_map<std::string, std::string> func_of_key_;
  std::unordered_map<std::string, std::int64_t> variants_;
  std::unordered_set<std::string> used_names_;
  std::unordered_map<std::string, std::int64_t> name_counter_;
};

FusionResult unchanged(const Graph& graph, bool arrived_fused) {
  FusionResult result;
  result.graph = graph;
  result.arrived_fused = arrived_fused;
  result.members.resize(graph.ops.size());
  for (std::size_t i = 0; i < graph.ops.size(); ++i)
    result.members[i] = {static_cast<OpId>(i)};
  return result;
}

} // namespace

bool is_fused(const Graph& graph) {
  return std::any_of(graph.ops.begin(), graph.ops.end(), [](const Op& op) {
    return !op.fused_tail.empty() || op.fused.has_value() || op.op_class == OpClass::Attention;
  });
}

FusionResult fuse(const Graph& graph, const FusionOptions& options) {
  if (options.mode == FuseMode::None) return unchanged(graph, false);
  if (is_fused(graph)) return unchanged(graph, true);
  std::vector<std::vector<OpId>> attention;
  if (options.mode == FuseMode::Flash) attention = find_attention(graph);
  const Grouping grouping = tvm_fuse_ops(graph, options.max_depth, attention);
  return FusedGraphBuilder(graph, grouping).build();
}

} // namespace lightsim::ir::fusion
