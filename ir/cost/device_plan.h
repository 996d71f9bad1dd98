// DevicePlan: which units a graph may use when it is one part of a parallel plan. A graph with collectives
// is one device's shard, run by every device of the collectives' group at once (SPMD, as
// `lightsim-graph --tensor-parallel` writes it: ir/cost/collectives.h); a graph split into pipeline stages
// (ir/partition/pipeline_stages.h) runs stage s on its own device. Both together: Megatron-LM's rank order,
// tensor-parallel ranks innermost, so stage s runs on the first unit of the s-th aligned group of T units
// of one kind, and that group's other units run the other shards of the stage.
//
// The units of that kind that are no stage's device take no op of the graph and hold none of its tensors
// (a shard's peers are busy with their own shards; only the collectives' chunks reach them). An op of stage
// s runs on stage s's device, or, in a graph without collectives, on any unit of another kind (the host),
// where the solver sees the stages compete. A shard's ops run on its devices only: a unit of another kind
// (the host, one GPU beside photonic cards) would serve every peer's copy of the op at once, which a graph
// of one shard cannot charge. Weights and inputs may still be resident in another kind's memory (the host's,
// streamed to a card without capacity), and a transfer that the peers' copies repeat over the same link
// from the same memory takes that link for all of them (replica_memories, ir::Route::copies). A graph with
// neither has no plan: every unit is open to every op.
//
// It is not the partitioning: lightsim-graph or ir::shard_tensor_parallel writes a shard,
// ir::assign_pipeline_stages sets the stages.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"

#include <string>
#include <vector>

namespace lightsim::ir {

struct DevicePlan {
  // Per pipeline stage (one for a shard without stages): its device first, then the other units of its
  // collectives' groups, in config order. Empty: no plan.
  std::vector<std::vector<int>> stages;
  std::string kind;   // the kind of the stages' devices
  bool shard = false; // collectives over more than one unit: compute on the stages' devices only
  // Per unit: runs nothing of this graph (a unit of `kind` that is no stage's device).
  std::vector<bool> closed;

  bool empty() const { return stages.empty(); }
  // True when op may not run on (or, for an input or weight, be resident at) unit.
  bool excludes(const Hardware& hw, int unit, const Op& op) const;
  // The stage unit runs (as its device or as a peer); -1 when none.
  int stage_of(int unit) const;
  // For a peer, the stage device whose shard it runs at once (its row repeats the device's); else -1.
  int mirrored_device(int unit) const;
};

// The plan of graph on hw. The devices' kind: that of the first unit (config order) with a group for every
// collective; for stages without collectives, the first kind with a unit per stage. InputError (naming the
// graph and the config) when the kind has fewer units than stages x the collectives' group size.
DevicePlan device_plan(const Graph& graph, const Hardware& hw);

// What the shard's peers use in place of its memories (TransferModel::set_replicas): per peer rank k =
// 1 .. T-1, every memory mapped to itself except each stage device's, mapped to the memory of the k-th unit
// of that stage's group. Empty for a plan that is no shard.
std::vector<std::vector<int>> replica_memories(const DevicePlan& plan, const Hardware& hw);

} // namespace lightsim::ir
