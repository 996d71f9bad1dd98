// Tensor-parallel sharding: the pass that turns an imported transformer (a TVM export or an ONNX model, not
// only lightsim-graph's) into ONE of T Megatron-LM tensor-parallel shards, with the all-reduces the shards
// need, so that the rest of lightsim runs it as it runs `lightsim-graph --tensor-parallel T --all-reduces`
// (every device of the all-reduces' group runs its own shard at once: ir/cost/device_plan.h).
//
// Which projections split (dense ops with a weight [n, k], or ONNX's [k, n]):
//   - column-parallel: a dense whose input is whole and whose output reaches another dense (q, k, v, a
//     fused qkv, gate, up): its weight's n rows are divided by T, its output's last axis too;
//   - row-parallel: a dense whose input's last axis is divided (attention's output, down): its weight's k
//     columns are divided, its output is a partial sum, and an all-reduce over the T devices follows it;
//   - vocabulary-parallel: a dense whose output reaches no other dense (the LM head) is column-parallel
//     over the vocabulary, padded up to a multiple of T as Megatron and vLLM pad it; its logits stay
//     divided (the gather to the sampler is not written). A gather (take) from a weight with as many rows
//     as the vocabulary (the token embedding) reads a divided table, and an all-reduce follows it; an LM head
//     whose weight is that table transposed (tied embeddings) follows the division there.
// The division then flows along the graph: a reshape moves it to the output axis that starts at the same
// flat offset (a hidden size of heads x head dim becomes the heads axis), a transpose follows its
// permutation (TVM keeps no axes; the one that maps the shapes and moves the fewest axes, never the
// identity), batch_matmul keeps it on the batch (heads) axis, every other op keeps it on its axis, aligned
// from the right as broadcasting aligns (split and concatenate along it divide their pieces too). An input
// or weight that meets a divided tensor with the full extent on that axis is divided with it (a bias, the
// KV cache of decode); one of extent 1 is broadcast and stays whole.
//
// It is not a general SPMD partitioner (no sequence or data parallelism, no resharding): a graph that does
// not follow the pattern is an InputError naming the op, never a wrong shard.
#pragma once

#include "ir/graph.h"

#include <cstdint>

namespace lightsim::ir {

// One of `degree` shards of `graph` (finalized, topologically ordered, unfused or fused by TVM without a
// row-parallel dense's tail), with one all-reduce (attrs num_workers = degree) after each row-parallel
// dense and after the vocabulary-parallel embedding; degree 1 returns the graph as it is. InputError naming
// the graph (and the op, tensor and axis where there is one) when degree is below 1, the graph has
// collectives already (it is a shard), it has no projection to divide, or degree does not divide a divided
// extent (attention heads, key/value heads, FFN columns); `flag` names the option in those messages.
Graph shard_tensor_parallel(const Graph& graph, std::int64_t degree, const std::string& flag = "--tp");

} // namespace lightsim::ir
