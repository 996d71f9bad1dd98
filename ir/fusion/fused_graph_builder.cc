#include "ir/fusion/fused_graph_builder.h"

#include "ir/fusion/attention.h"
#include "ir/fusion/hash_index.h"
#include "ir/fusion/vllm_kernels.h"

#include <algorithm>
#include <functional>
#include <span>
#include <stdexcept>

namespace lightsim::ir::fusion {
namespace {

constexpr std::string_view kFuncPrefix = "tvmgen_default_fused_";

// A group's lists, as ranges of the builder's flat arrays (one allocation for all groups, not four each).
struct Range {
  std::uint32_t begin = 0, end = 0;
  std::uint32_t size() const { return end - begin; }
};

struct Group {
  Range members;           // op order, inlined constants included
  Range body;              // compute members in TVM's post-order (the function name's order)
  Range params;            // tensors entering the group, in parameter order
  Range outputs;           // tensors leaving it
  bool input_only = false; // a graph input or constant outside every group
  bool attention = false;
  std::uint64_t key = 0; // hash of what tells its function apart (members, argument and result types)
};

// Builds the fused graph from a grouping (see fusion.h for the rules). It takes the tensors and inputs it
// keeps from `g` (moves them): everything it needs of them later is worked out before build().
class FusedGraphBuilder {
public:
  // `vectorized` (vllm mode, per op: merge_vllm_kernels) makes the ops without an anchor row kernels.
  FusedGraphBuilder(Graph& g, const Grouping& grouping, const FusionOptions& options,
                    std::vector<std::uint8_t> vectorized)
      : g_(g), options_(options), vectorized_(std::move(vectorized)), group_of_(g.ops.size()),
        seen_(g.ops.size(), 0), is_head_(g.tensors.size(), false) {
    // Groups numbered in the order of their first op; their members by a counting sort.
    const std::int32_t ids = grouping.group_of.empty()
                                 ? 0
                                 : *std::max_element(grouping.group_of.begin(), grouping.group_of.end()) + 1;
    std::vector<std::int32_t> index(static_cast<std::size_t>(ids), -1);
    std::vector<std::uint32_t> count;
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
      std::int32_t& gi = index[static_cast<std::size_t>(grouping.group_of[i])];
      if (gi < 0) {
        gi = static_cast<std::int32_t>(count.size());
        count.push_back(0);
      }
      group_of_[i] = gi;
      ++count[static_cast<std::size_t>(gi)];
    }
    groups_.resize(count.size());
    std::uint32_t at = 0;
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      groups_[gi].members = {at, at};
      at += count[gi];
    }
    members_.resize(g.ops.size());
    for (std::size_t i = 0; i < g.ops.size(); ++i)
      members_[groups_[static_cast<std::size_t>(group_of_[i])].members.end++] = static_cast<OpId>(i);
    for (TensorId t : g.heads)
      is_head_[static_cast<std::size_t>(t)] = true;
    body_.reserve(g.ops.size());
    params_.reserve(2 * g.ops.size());
    outputs_.reserve(g.ops.size());
    for (std::size_t gi = 0; gi < groups_.size(); ++gi)
      describe(static_cast<std::int32_t>(gi));
  }

  FusionResult build() {
    order_groups();
    functions_.reserve(groups_.size());
    function_index_ = HashIndex(groups_.size());
    body_index_ = HashIndex(groups_.size());
    FusionResult result;
    Graph& out = result.graph;
    out.source = g_.source;
    out.ops.reserve(order_.size());
    out.tensors.reserve(outputs_.size() + g_.ops.size());
    result.member_begin.reserve(order_.size() + 1);
    result.member_ops.reserve(members_.size());
    new_tensor_.assign(g_.tensors.size(), -1);
    std::int64_t params = 0;
    for (std::int32_t gi : order_) {
      const Group& group = groups_[static_cast<std::size_t>(gi)];
      const auto id = static_cast<OpId>(out.ops.size());
      Op& op = out.ops.emplace_back(); // filled in place (an Op is a few hundred bytes)
      if (group.input_only)
        input_op(group, params, op);
      else
        fused_op(group, op);
      const std::vector<TensorId> input_outputs =
          group.input_only ? std::move(op.outputs) : std::vector<TensorId>{};
      const std::span<const TensorId> outputs =
          group.input_only ? std::span<const TensorId>(input_outputs) : range(outputs_, group.outputs);
      op.outputs.clear();
      op.outputs.reserve(outputs.size());
      for (TensorId t : outputs) {
        Tensor tensor = std::move(g_.tensors[static_cast<std::size_t>(t)]);
        tensor.producer = id;
        tensor.output_index = static_cast<std::int32_t>(op.outputs.size());
        new_tensor_[static_cast<std::size_t>(t)] = static_cast<TensorId>(out.tensors.size());
        op.outputs.push_back(static_cast<TensorId>(out.tensors.size()));
        out.tensors.push_back(std::move(tensor));
      }
      op.inputs.reserve(group.params.size());
      for (TensorId t : range(params_, group.params)) { // none for an input
        const TensorId mapped = new_tensor_[static_cast<std::size_t>(t)];
        if (mapped < 0) throw std::logic_error("fusion: a group reads a tensor produced after it (a cycle)");
        op.inputs.push_back(mapped);
      }
      result.member_begin.push_back(static_cast<std::uint32_t>(result.member_ops.size()));
      for (OpId m : members(group))
        result.member_ops.push_back(m);
      result.attention_ops += group.attention;
    }
    result.member_begin.push_back(static_cast<std::uint32_t>(result.member_ops.size()));
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
  template <class T> static std::span<const T> range(const std::vector<T>& flat, Range r) {
    return std::span<const T>(flat).subspan(r.begin, r.size());
  }
  std::span<const OpId> members(const Group& group) const { return range(members_, group.members); }
  std::span<const OpId> body(const Group& group) const { return range(body_, group.body); }

  // Body order, parameters and outputs of one group (appended to the flat arrays).
  void describe(std::int32_t gi) {
    Group& group = groups_[static_cast<std::size_t>(gi)];
    std::size_t compute = 0;
    OpId last = -1;
    for (OpId m : members(group))
      if (op(m).op_class != OpClass::Input) {
        ++compute;
        last = m;
      }
    if (compute == 0) {
      if (group.members.size() != 1) throw std::logic_error("fusion: a group of inputs only");
      group.input_only = true;
      return;
    }
    group.outputs.begin = static_cast<std::uint32_t>(outputs_.size());
    for (OpId m : members(group))
      for (TensorId t : op(m).outputs) {
        bool leaves = is_head_[static_cast<std::size_t>(t)];
        for (OpId c : g_.consumers[static_cast<std::size_t>(t)])
          leaves = leaves || group_of_[static_cast<std::size_t>(c)] != gi;
        if (leaves && op(m).op_class != OpClass::Input) outputs_.push_back(t);
      }
    if (outputs_.size() == group.outputs.begin) // dead code: keep what the last member writes
      outputs_.insert(outputs_.end(), op(last).outputs.begin(), op(last).outputs.end());
    group.outputs.end = static_cast<std::uint32_t>(outputs_.size());
    // TVM's FuseMutator and lowering: a depth-first walk from the output, arguments left to right; an
    // argument from outside becomes the next parameter, a call is named after its arguments (post-order).
    ++epoch_;
    const auto seen = [this](OpId id) {
      std::uint32_t& stamp = seen_[static_cast<std::size_t>(id)];
      const bool before = stamp == epoch_;
      stamp = epoch_;
      return before;
    };
    group.body.begin = static_cast<std::uint32_t>(body_.size());
    group.params.begin = static_cast<std::uint32_t>(params_.size());
    for (std::uint32_t k = group.outputs.begin; k < group.outputs.end; ++k) {
      const OpId root = g_.tensors[static_cast<std::size_t>(outputs_[k])].producer;
      if (seen(root)) continue;
      stack_.push_back({root, 0});
      while (!stack_.empty()) {
        Frame& f = stack_.back();
        const Op& o = op(f.op);
        if (f.next == o.inputs.size()) {
          body_.push_back(f.op);
          stack_.pop_back();
          continue;
        }
        const TensorId arg = o.inputs[f.next++];
        const OpId producer = g_.tensors[static_cast<std::size_t>(arg)].producer;
        if (group_of_[static_cast<std::size_t>(producer)] != gi) {
          if (std::find(params_.begin() + group.params.begin, params_.end(), arg) == params_.end())
            params_.push_back(arg);
        } else if (op(producer).op_class != OpClass::Input && !seen(producer)) {
          stack_.push_back({producer, 0});
        }
      }
    }
    group.body.end = static_cast<std::uint32_t>(body_.size());
    group.params.end = static_cast<std::uint32_t>(params_.size());
    if (group.body.size() != compute)
      throw std::logic_error("fusion: a group member does not lead to the group's output");
    OpId products[2] = {-1, -1};
    std::size_t n_products = 0;
    for (OpId m : body(group))
      if (op(m).op_class == OpClass::BatchMatmul && n_products++ < 2) products[n_products - 1] = m;
    group.attention = n_products == 2;
    if (group.attention) { // fused attention takes Q, K, the scale and mask operands, V (ir/graph.h)
      // Q, K and V are the parameters the products' operands come from through the layout and scale ops
      // the attention absorbed (ir/fusion/attention.h).
      const auto from_outside = [&](TensorId t) {
        for (OpId p = g_.tensors[static_cast<std::size_t>(t)].producer;
             p >= 0 && group_of_[static_cast<std::size_t>(p)] == gi && op(p).op_class != OpClass::Input;
             p = g_.tensors[static_cast<std::size_t>(t)].producer) {
          const std::vector<TensorId>& in = op(p).inputs;
          t = in.size() == 1 || g_.tensors[static_cast<std::size_t>(in[0])].elements > 1 ? in[0] : in[1];
        }
        return t;
      };
      const std::vector<TensorId> qk = {from_outside(op(products[0]).inputs[0]),
                                        from_outside(op(products[0]).inputs[1])};
      const TensorId v = from_outside(op(products[1]).inputs[1]);
      std::vector<TensorId> ordered(qk.begin(), qk.end());
      for (TensorId t : range(params_, group.params))
        if (std::find(qk.begin(), qk.end(), t) == qk.end() && t != v) ordered.push_back(t);
      ordered.push_back(v);
      params_.resize(group.params.begin);
      params_.insert(params_.end(), ordered.begin(), ordered.end());
      group.params.end = static_cast<std::uint32_t>(params_.size());
    }
    group.key = function_key(group);
  }

  // What tells one fused function from another: its members' func names (which tell apart the variants
  // of one op), and the types of its arguments and results.
  std::uint64_t function_key(const Group& group) const {
    Hash64 key;
    for (OpId m : body(group))
      key.add(op(m).func_name);
    for (const std::span<const TensorId> list :
         {range(params_, group.params), range(outputs_, group.outputs)}) {
      key.add(static_cast<std::uint64_t>(list.size()));
      for (TensorId t : list) {
        const Tensor& tensor = g_.tensors[static_cast<std::size_t>(t)];
        key.add(static_cast<std::uint64_t>(tensor.dtype));
        key.add(static_cast<std::uint64_t>(tensor.shape.size()));
        for (std::int64_t d : tensor.shape)
          key.add(static_cast<std::uint64_t>(d));
      }
    }
    return key.value;
  }

  // TVM's graph-executor codegen order: per-run inputs first, then a post-order walk from the outputs
  // (arguments left to right); groups the walk does not reach follow in their original order.
  void order_groups() {
    order_.reserve(groups_.size());
    std::vector<bool> done(groups_.size(), false);
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      const Group& group = groups_[gi];
      if (group.input_only && !op(members(group)[0]).is_param) {
        order_.push_back(static_cast<std::int32_t>(gi));
        done[gi] = true;
      }
    }
    struct GroupFrame {
      std::int32_t group;
      std::uint32_t next = 0;
    };
    std::vector<GroupFrame> stack;
    auto walk = [&](std::int32_t start) {
      if (done[static_cast<std::size_t>(start)]) return;
      done[static_cast<std::size_t>(start)] = true;
      stack.push_back({start, 0});
      while (!stack.empty()) {
        GroupFrame& f = stack.back();
        const Group& group = groups_[static_cast<std::size_t>(f.group)];
        if (group.input_only || f.next == group.params.size()) {
          order_.push_back(f.group);
          stack.pop_back();
          continue;
        }
        const std::int32_t arg = group_of_tensor(params_[group.params.begin + f.next++]);
        if (!done[static_cast<std::size_t>(arg)]) {
          done[static_cast<std::size_t>(arg)] = true;
          stack.push_back({arg, 0});
        }
      }
    };
    for (TensorId t : g_.heads)
      walk(group_of_tensor(t));
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) // groups are numbered by their first op
      walk(static_cast<std::int32_t>(gi));
  }

  void input_op(const Group& group, std::int64_t& params, Op& o) {
    o = std::move(g_.ops[static_cast<std::size_t>(members(group)[0])]);
    o.inputs.clear();
    if (o.is_param) {
      o.name = std::to_string(params++);
      o.name.insert(o.name.begin(), 'p');
    }
    o.node_index = -1;
  }

  struct Function {
    std::string name;
    std::int32_t body = 0;         // index into bodies_
    std::int64_t variant = 0;      // j in `<body>_<j>` (0: the bare body)
    std::int64_t nodes = 0;        // the last k given in `<name>_<k>`
    bool first_node_named = false; // a variant's first node has been named
  };

  // TVM's names: the func name once per distinct function, `_<n>` for further variants; node names the
  // func name made unique.
  void name(const Group& group, Op& o) {
    const std::span<const OpId> members_body = body(group);
    const bool views_only = std::all_of(members_body.begin(), members_body.end(),
                                        [&](OpId m) { return op(m).op_class == OpClass::Nop; });
    if (views_only) {
      o.func_name = "__nop";
      o.name = "reshape_nop";
      return;
    }
    // One function per distinct key (function_key).
    const std::int32_t known =
        function_index_.find_or_insert(group.key, static_cast<std::int32_t>(functions_.size()));
    if (known < 0) functions_.push_back(new_function(members_body));
    Function& f = functions_[known < 0 ? functions_.size() - 1 : static_cast<std::size_t>(known)];
    o.func_name = f.name;
    // The node: the func name while no node has it, else `<func>_<k>` with the smallest k >= 1 no node
    // has. Only a name `<body>_<k>` can be both a numbered node of the function `<body>` and the function
    // `<body>_<k>` (the k-th variant), so the names taken are kept per body as their suffixes k.
    std::vector<bool>& taken = bodies_[static_cast<std::size_t>(f.body)];
    const auto take = [&](std::int64_t k) {
      if (taken.size() <= static_cast<std::size_t>(k)) taken.resize(static_cast<std::size_t>(k) + 1, false);
      const bool was = taken[static_cast<std::size_t>(k)];
      taken[static_cast<std::size_t>(k)] = true;
      return !was;
    };
    if (f.variant == 0) {
      if (take(0)) {
        o.name = o.func_name;
        return;
      }
      std::int64_t k = ++f.nodes;
      while (!take(k))
        k = ++f.nodes;
      o.name = o.func_name;
      o.name += '_';
      o.name += std::to_string(k);
      return;
    }
    if (!f.first_node_named && take(f.variant)) {
      f.first_node_named = true;
      o.name = o.func_name;
      return;
    }
    f.first_node_named = true;
    o.name = o.func_name; // `<body>_<j>_<k>`: only this function's nodes are named so
    o.name += '_';
    o.name += std::to_string(++f.nodes);
  }

  // A function met for the first time: `tvmgen_default_fused_<body>`, `_<j>` for the j-th further one.
  Function new_function(std::span<const OpId> members_body) {
    Function f;
    f.name = kFuncPrefix;
    Hash64 body;
    for (std::size_t i = 0; i < members_body.size(); ++i) {
      if (i) f.name += '_';
      const std::string_view relay = relay_ops_of(op(members_body[i]).func_name);
      f.name += relay;
      body.add(relay);
    }
    const std::int32_t seen =
        body_index_.find_or_insert(body.value, static_cast<std::int32_t>(bodies_.size()));
    if (seen < 0) {
      bodies_.emplace_back();
      variant_counts_.push_back(0);
    }
    f.body = seen < 0 ? static_cast<std::int32_t>(bodies_.size() - 1) : seen;
    f.variant = variant_counts_[static_cast<std::size_t>(f.body)]++;
    if (f.variant) {
      f.name += '_';
      f.name += std::to_string(f.variant);
    }
    return f;
  }

  void fused_op(const Group& group, Op& o) {
    const std::span<const OpId> members_body = body(group);
    const bool single = members_body.size() == 1 && group.members.size() == 1 && !group.attention;
    const Op& first = op(members_body.front());
    if (single && first.op_class == OpClass::Opaque) { // an unknown op keeps its name
      o.name = first.name;
      o.func_name = first.func_name;
    } else {
      name(group, o);
    }
    if (single) {
      o.op_class = first.op_class;
      o.features.fused_tail = first.features.fused_tail;
      if (is_collective(first.op_class)) o.attrs = first.attrs; // its group's size
      return;
    }
    // What classify_func_name reads from the name, from the members themselves.
    classes_.clear();
    for (OpId m : members_body)
      classes_.push_back(op(m).op_class);
    Classification c = classify_ops(classes_);
    o.op_class = c.anchor;
    o.features.fused_tail = std::move(c.tail);
    FusedShape shape;
    shape.input_bytes_read.reserve(group.params.size());
    for (TensorId t : range(params_, group.params)) {
      std::uint64_t read = 0;
      for (OpId m : members_body)
        if (std::find(op(m).inputs.begin(), op(m).inputs.end(), t) != op(m).inputs.end())
          read = std::max(read, bytes_read_from(g_, op(m), t));
      shape.input_bytes_read.push_back(read);
    }
    const Op* anchor = nullptr;
    for (OpId m : members_body) {
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
      shape.gemm_dtype = anchor->features.gemm_dtype;
      shape.im2col_extra_bytes = anchor->features.im2col_extra_bytes;
    } else {
      shape.fused_ops = shape.elementwise_ops;
    }
    if (!vectorized_.empty() && !group.attention) // vllm: its kernels without an anchor are row kernels
      shape.row_kernel = vllm_row_kernel(g_, members_body, range(outputs_, group.outputs),
                                         vectorized_[static_cast<std::size_t>(members_body.front())] != 0 ||
                                             options_.vectorize_row_kernels,
                                         options_.row_cta_threads, options_.vector_access_bytes);
    o.fused = std::move(shape);
  }

  struct Frame {
    OpId op;
    std::size_t next;
  };

  Graph& g_;
  FusionOptions options_;
  std::vector<std::uint8_t> vectorized_; // vllm mode: per op (empty otherwise)
  std::vector<std::int32_t> group_of_;   // per op: index into groups_
  std::vector<Group> groups_;
  std::vector<OpId> members_, body_;
  std::vector<TensorId> params_, outputs_;
  std::vector<std::uint32_t> seen_; // per op: the epoch of the last walk that met it
  std::uint32_t epoch_ = 0;
  std::vector<bool> is_head_;
  std::vector<Frame> stack_;
  std::vector<OpClass> classes_;
  std::vector<std::int32_t> order_;
  std::vector<TensorId> new_tensor_;
  std::vector<Function> functions_;
  HashIndex function_index_;                 // the hash of what tells functions apart -> functions_
  std::vector<std::vector<bool>> bodies_;    // per body: the suffixes k whose node name `<body>_<k>` is taken
  std::vector<std::int64_t> variant_counts_; // per body: its functions so far
  HashIndex body_index_;                     // the hash of a body's Relay names -> bodies_
};

} // namespace

FusionResult build_fused_graph(Graph& g, const Grouping& grouping, const FusionOptions& options,
                               std::vector<std::uint8_t> vectorized) {
  return FusedGraphBuilder(g, grouping, options, std::move(vectorized)).build();
}

} // namespace lightsim::ir::fusion
