#include "ir/fusion/fuse_ops.h"

#include "ir/fusion/op_pattern.h"

#include <algorithm>
#include <stdexcept>

namespace lightsim::ir::fusion {
namespace {

constexpr std::int32_t kNone = -1;

OpPattern combine(OpPattern a, OpPattern b) {
  return std::max(a, b);
}

// TVM's IndexedForwardGraph: nodes in topological order, each with its consumers (edges with the pattern
// of the consumer), as linked lists in one array.
class ForwardGraph {
public:
  struct Edge {
    std::int32_t node;
    OpPattern pattern;
    std::int32_t next;
  };

  explicit ForwardGraph(const Graph& g) : graph_(g) {
    const std::size_t n = g.ops.size();
    node_of_op.assign(n, kNone);
    node_pattern.reserve(n + n / 4);
    no_edges_.reserve(n + n / 4);
    op_of_node.reserve(n + n / 4);
    extern_ref.reserve(n + n / 4);
    first_out.reserve(n + n / 4);
    edges.reserve(2 * n);
    std::vector<std::int32_t> getitem_begin(n, kNone); // first TupleGetItem node of a multi-output op
    outputs_of_op_.assign(n, 0);
    std::vector<std::int32_t> args;
    for (std::size_t i = 0; i < n; ++i) {
      const Op& op = g.ops[i];
      outputs_of_op_[i] = static_cast<std::uint32_t>(op.outputs.size());
      // The producer node of each argument (a TupleGetItem for an output of a multi-output op).
      args.clear();
      for (TensorId t : op.inputs)
        args.push_back(source_of(t, getitem_begin));
      std::int32_t tuple = kNone;
      if (op.op_class == OpClass::Concatenate) tuple = add_node(OpPattern::Tuple, kNone, false);
      const OpPattern pattern = op.op_class == OpClass::Input ? input_pattern(op) : op_pattern(op.op_class);
      const bool parameter = op.op_class == OpClass::Input && !op.is_param; // a function parameter: extern
      const std::int32_t self = add_node(pattern, static_cast<OpId>(i), parameter);
      // An opaque input (a parameter or a non-scalar constant) never fuses and no walk reaches it (walks
      // go from a node to its consumers): its edges would change nothing, so it gets none.
      if (op.op_class == OpClass::Input && pattern == OpPattern::Opaque)
        no_edges_[static_cast<std::size_t>(self)] = 1;
      node_of_op[i] = self;
      if (tuple != kNone) {
        for (std::int32_t a : args)
          add_edge(a, tuple, OpPattern::Injective);
        add_edge(tuple, self, pattern);
        continue;
      }
      for (std::size_t k = 0; k < args.size(); ++k) {
        OpPattern edge = pattern;
        if (edge == OpPattern::Broadcast && op.outputs.size() == 1 &&
            g.tensors[static_cast<std::size_t>(op.inputs[k])].shape ==
                g.tensors[static_cast<std::size_t>(op.outputs[0])].shape)
          edge = OpPattern::ElemWise;
        add_edge(args[k], self, edge);
      }
    }
    // The function's body: the single output itself, or the tuple of the outputs.
    if (g.heads.size() == 1) {
      extern_ref[static_cast<std::size_t>(source_of(g.heads[0], getitem_begin))] = true;
    } else if (!g.heads.empty()) {
      std::vector<std::int32_t> sources;
      for (TensorId t : g.heads)
        sources.push_back(source_of(t, getitem_begin));
      const std::int32_t outputs = add_node(OpPattern::Tuple, kNone, true);
      for (std::int32_t s : sources)
        add_edge(s, outputs, OpPattern::Injective);
    }
  }

  std::size_t size() const { return node_pattern.size(); }

  std::vector<OpPattern> node_pattern;
  std::vector<OpId> op_of_node; // kNone for virtual nodes
  std::vector<bool> extern_ref;
  std::vector<std::int32_t> first_out; // head of each node's consumer list
  std::vector<Edge> edges;
  std::vector<std::int32_t> node_of_op;

private:
  // Simple scalar constants are elemwise (TVM's IndexedForwardGraph for ConstantNode: rank 0 and int32,
  // int64, float32, float64 or bool); other constants and the per-run inputs are opaque.
  OpPattern input_pattern(const Op& op) const {
    if (!op.is_param || op.outputs.size() != 1) return OpPattern::Opaque;
    const Tensor& t = graph_.tensors[static_cast<std::size_t>(op.outputs[0])];
    const bool simple = t.dtype == DType::Int32 || t.dtype == DType::Int64 || t.dtype == DType::Float32 ||
                        t.dtype == DType::Float64 || t.dtype == DType::Bool;
    return t.shape.empty() && simple ? OpPattern::ElemWise : OpPattern::Opaque;
  }

  std::int32_t add_node(OpPattern pattern, OpId op, bool is_extern) {
    no_edges_.push_back(0);
    node_pattern.push_back(pattern);
    op_of_node.push_back(op);
    extern_ref.push_back(is_extern);
    first_out.push_back(kNone);
    return static_cast<std::int32_t>(node_pattern.size() - 1);
  }

  void add_edge(std::int32_t from, std::int32_t to, OpPattern pattern) {
    if (no_edges_[static_cast<std::size_t>(from)]) return;
    edges.push_back({to, pattern, first_out[static_cast<std::size_t>(from)]});
    first_out[static_cast<std::size_t>(from)] = static_cast<std::int32_t>(edges.size() - 1);
  }

  std::int32_t source_of(TensorId t, std::vector<std::int32_t>& getitem_begin) {
    const Tensor& tensor = graph_.tensors[static_cast<std::size_t>(t)];
    const auto producer = static_cast<std::size_t>(tensor.producer);
    const std::uint32_t outputs = outputs_of_op_[producer];
    if (outputs <= 1) return node_of_op[producer];
    if (getitem_begin[producer] == kNone) { // one TupleGetItem per output, created when first used
      getitem_begin[producer] = static_cast<std::int32_t>(size());
      for (std::uint32_t k = 0; k < outputs; ++k) {
        const std::int32_t item = add_node(OpPattern::Injective, kNone, false);
        add_edge(node_of_op[producer], item, OpPattern::Injective);
      }
    }
    return getitem_begin[producer] + tensor.output_index;
  }

  const Graph& graph_;
  std::vector<std::uint32_t> outputs_of_op_; // per op: its outputs (more than one: TupleGetItem nodes)
  std::vector<std::uint8_t> no_edges_;       // per node: 1 for an opaque input (see the constructor)
};

// TVM's DominatorTree::PostDom: per node its immediate post-dominator, depth, and the combined pattern of
// the way there.
struct PostDominatorTree {
  std::vector<std::int32_t> parent, depth;
  std::vector<OpPattern> pattern;

  explicit PostDominatorTree(const ForwardGraph& fg) {
    const std::size_t n = fg.size();
    parent.assign(n, kNone);
    depth.assign(n, 1);
    pattern.assign(n, OpPattern::Opaque);
    for (std::size_t i = n; i-- > 0;) {
      if (fg.extern_ref[i]) continue; // depth 1, no parent, opaque
      OpPattern p = OpPattern::ElemWise;
      std::int32_t lca = kNone;
      bool first = true;
      for (std::int32_t e = fg.first_out[i]; e != kNone; e = fg.edges[static_cast<std::size_t>(e)].next) {
        const ForwardGraph::Edge& edge = fg.edges[static_cast<std::size_t>(e)];
        lca = first ? edge.node : common_ancestor(lca, edge.node, p);
        first = false;
        p = combine(p, edge.pattern);
      }
      parent[i] = lca;
      depth[i] = lca == kNone ? 1 : depth[static_cast<std::size_t>(lca)] + 1;
      pattern[i] = p;
    }
  }

  std::int32_t common_ancestor(std::int32_t a, std::int32_t b, OpPattern& p) const {
    while (a != b) {
      if (a == kNone || b == kNone) return kNone;
      const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
      if (depth[ua] < depth[ub]) {
        p = combine(p, pattern[ub]);
        b = parent[ub];
      } else if (depth[ub] < depth[ua]) {
        p = combine(p, pattern[ua]);
        a = parent[ua];
      } else {
        p = combine(combine(p, pattern[ua]), pattern[ub]);
        a = parent[ua];
        b = parent[ub];
      }
    }
    return a;
  }
};

// TVM's GraphPartitioner: union-find groups, one per node at first (arrays indexed by node).
class Partitioner {
public:
  Partitioner(const ForwardGraph& fg, int max_depth)
      : fg_(fg), max_depth_(static_cast<std::size_t>(max_depth)) {
    const std::size_t n = fg.size();
    parent_.assign(n, kNone);
    pattern_ = fg.node_pattern;
    anchor_.assign(n, 0);
    num_nodes_.assign(n, 1);
    stamp_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i)
      anchor_[i] = pattern_[i] == OpPattern::OutEWiseFusable ? 1 : 0;
  }

  // A group given beforehand: every node joins the root's group, which becomes an anchor.
  void pre_group(std::span<const std::int32_t> nodes, std::int32_t root) {
    const std::int32_t r = find(root);
    for (std::int32_t node : nodes) {
      const std::int32_t c = find(node);
      if (c == r) continue;
      num_nodes_[static_cast<std::size_t>(r)] += num_nodes_[static_cast<std::size_t>(c)];
      parent_[static_cast<std::size_t>(c)] = r;
    }
    pattern_[static_cast<std::size_t>(r)] = OpPattern::OutEWiseFusable;
    anchor_[static_cast<std::size_t>(r)] = 1;
    if (given_.empty()) given_.assign(anchor_.size(), 0);
    given_[static_cast<std::size_t>(r)] = 1;
  }

  void run(const PostDominatorTree& dom) {
    for (int phase = 0; phase < 3; ++phase)
      run_phase(dom, phase);
  }

  std::int32_t find(std::int32_t g) {
    std::int32_t root = g;
    while (parent_[static_cast<std::size_t>(root)] != kNone)
      root = parent_[static_cast<std::size_t>(root)];
    while (g != root) { // path compression
      const std::int32_t next = parent_[static_cast<std::size_t>(g)];
      parent_[static_cast<std::size_t>(g)] = root;
      g = next;
    }
    return root;
  }

private:
  // GraphPartitioner::RunFuse.
  void run_phase(const PostDominatorTree& dom, int phase) {
    for (std::size_t i = 0; i < fg_.size(); ++i) {
      const auto nid = static_cast<std::int32_t>(i);
      const OpPattern own = pattern_[i]; // the pattern of this node's own group object, as TVM reads it
      if (own == OpPattern::Opaque) continue;
      const std::int32_t dp = dom.parent[i];
      if (dp == kNone) continue;
      // TVM counts the nodes the group would have (CountFusedNodesWithNewChild) before the checks below;
      // they have no side effects, so it is counted here only once they pass (the same result, far fewer
      // walks to distant post-dominators).
      const auto too_deep = [&] { return fused_nodes_with_new_child(nid, dp) > max_depth_; };
      const auto udp = static_cast<std::size_t>(dp);
      if (phase == 2) {
        // Injective nodes fuse into an intermediate tuple that has joined an injective consumer.
        if (own > OpPattern::Injective) continue;
        const OpPattern dom_root = pattern_[static_cast<std::size_t>(find(dp))];
        if (dom_root == OpPattern::Tuple) continue;
        if (pattern_[udp] == OpPattern::Tuple && dom_root <= OpPattern::Injective && !too_deep() &&
            check_path(nid, dp, [](OpPattern k, bool) { return k <= OpPattern::Injective; }))
          commit_fuse(nid, dp);
        continue;
      }
      if (find(nid) == find(dp)) continue; // already fused to the post-dominator
      // A group given beforehand is a kernel of its own (fused attention): it takes an epilogue, as an
      // anchor does, but none of its producers.
      if (!given_.empty() && given_[static_cast<std::size_t>(find(dp))]) continue;
      if (pattern_[udp] == OpPattern::Tuple) continue; // not into a tuple (yet)
      if (own == OpPattern::OutEWiseFusable) {
        // The anchor takes an elementwise epilogue: every node on the way at most broadcast.
        if (phase != 0) continue;
        if (dom.pattern[i] == OpPattern::ElemWise && !too_deep() &&
            check_path(nid, dp, [](OpPattern k, bool) { return k <= OpPattern::Broadcast; }))
          commit_fuse(nid, dp);
      } else if (own <= OpPattern::Broadcast) {
        // Into an injective or reduction post-dominator; the sink may already hold an anchor.
        if ((dom.pattern[i] <= OpPattern::Injective || dom.pattern[i] == OpPattern::CommReduce) &&
            !too_deep() && check_path(nid, dp, [](OpPattern k, bool is_sink) {
              return is_sink ? (k <= OpPattern::Injective || k == OpPattern::CommReduce ||
                                k == OpPattern::OutEWiseFusable)
                             : k <= OpPattern::Injective;
            }))
          commit_fuse(nid, dp);
      } else if (own == OpPattern::Injective || own == OpPattern::Tuple) {
        // Injective fusion waits for phase 1, so that anchors finish first.
        if (phase != 1) continue;
        if (!too_deep() && check_path(nid, dp, [](OpPattern k, bool) { return k <= OpPattern::Injective; }))
          commit_fuse(nid, dp);
      }
      // CommReduce: nothing fuses a reduction into what follows it.
    }
  }

  void new_visit() {
    if (++epoch_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      epoch_ = 1;
    }
  }
  bool visit(std::int32_t node) {
    std::uint32_t& s = stamp_[static_cast<std::size_t>(node)];
    if (s == epoch_) return false;
    s = epoch_;
    return true;
  }

  // Pushes the consumers of `node` on the work stack.
  void push_consumers(std::int32_t node) {
    for (std::int32_t e = fg_.first_out[static_cast<std::size_t>(node)]; e != kNone;
         e = fg_.edges[static_cast<std::size_t>(e)].next)
      stack_.push_back(fg_.edges[static_cast<std::size_t>(e)].node);
  }

  // CheckPath: every node reachable from src's consumers up to and including sink satisfies
  // cond(pattern of its group, is it the sink).
  template <class Cond> bool check_path(std::int32_t src, std::int32_t sink, Cond cond) {
    new_visit();
    stack_.clear();
    push_consumers(src);
    while (!stack_.empty()) {
      const std::int32_t node = stack_.back();
      stack_.pop_back();
      if (!visit(node)) continue;
      if (!cond(pattern_[static_cast<std::size_t>(find(node))], node == sink)) return false;
      if (node != sink) push_consumers(node);
    }
    return true;
  }

  // CommitFuse: every node from src up to (not including) sink joins sink's group.
  void commit_fuse(std::int32_t src, std::int32_t sink) {
    const std::int32_t target = sink;
    new_visit();
    stack_.clear();
    stack_.push_back(src);
    while (!stack_.empty()) {
      const std::int32_t node = stack_.back();
      stack_.pop_back();
      if (node == sink || !visit(node)) continue;
      merge(node, target);
      push_consumers(node);
    }
  }

  // MergeFromTo.
  void merge(std::int32_t child, std::int32_t parent) {
    child = find(child);
    parent = find(parent);
    if (child == parent) return;
    const auto uc = static_cast<std::size_t>(child), up = static_cast<std::size_t>(parent);
    num_nodes_[up] += num_nodes_[uc];
    parent_[uc] = parent;
    if (!given_.empty() && given_[uc]) given_[up] = 1; // still takes no producers after its epilogue
    if (anchor_[uc]) {
      if (anchor_[up]) throw std::logic_error("FuseOps: a group would get two anchors");
      if (pattern_[uc] > OpPattern::Broadcast && pattern_[up] > OpPattern::Broadcast)
        throw std::logic_error("FuseOps: cannot merge two complex groups");
      anchor_[up] = 1;
      pattern_[up] = combine(pattern_[uc], pattern_[up]);
    }
  }

  // CountFusedNodesWithNewChild: the nodes of dom_parent's group plus every node's own count on the
  // paths from child to dom_parent.
  std::size_t fused_nodes_with_new_child(std::int32_t child, std::int32_t dom_parent) {
    std::size_t sum = num_nodes_[static_cast<std::size_t>(find(dom_parent))];
    new_visit();
    stack_.clear();
    stack_.push_back(child);
    while (!stack_.empty()) {
      const std::int32_t node = stack_.back();
      stack_.pop_back();
      if (node == dom_parent || !visit(node)) continue;
      sum += num_nodes_[static_cast<std::size_t>(node)];
      if (sum > max_depth_) return sum; // enough to refuse
      push_consumers(node);
    }
    return sum;
  }

  const ForwardGraph& fg_;
  std::size_t max_depth_;
  std::vector<std::int32_t> parent_;
  std::vector<OpPattern> pattern_;
  std::vector<std::uint8_t> anchor_; // 0 / 1 (not vector<bool>: bit access is slower here)
  std::vector<std::uint8_t> given_;  // per group root: 1 for a group given beforehand (empty: none given)
  std::vector<std::size_t> num_nodes_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t epoch_ = 0;
  std::vector<std::int32_t> stack_;
};

} // namespace

Grouping tvm_fuse_ops(const Graph& graph, int max_depth, std::span<const std::vector<OpId>> pre_groups) {
  const ForwardGraph fg(graph);
  const PostDominatorTree dom(fg);
  Partitioner partitioner(fg, max_depth);
  for (const std::vector<OpId>& group : pre_groups) {
    if (group.empty()) continue;
    std::vector<std::int32_t> nodes;
    for (OpId op : group)
      nodes.push_back(fg.node_of_op[static_cast<std::size_t>(op)]);
    partitioner.pre_group(nodes, nodes.back());
  }
  partitioner.run(dom);
  Grouping result;
  result.group_of.resize(graph.ops.size());
  for (std::size_t i = 0; i < graph.ops.size(); ++i)
    result.group_of[i] = partitioner.find(fg.node_of_op[i]);
  return result;
}

} // namespace lightsim::ir::fusion
