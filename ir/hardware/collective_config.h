// CollectiveConfig: the config's `collectives` section, the machine's communication library (NCCL or
// its like): what its copies reach of a link's bandwidth, its two protocols' fixed costs, and how the
// pipelined algorithms chunk a buffer. Part of the Hardware, as the links are.
//
// It is not the cost of a collective: ir/cost/collectives.h computes that from this and the links.
#pragma once

#include "ir/hardware/fields.h"

namespace lightsim::ir {

// One protocol's fixed costs: a collective's launch (kernel start, the first synchronisation) and each
// step's (a chunk's hand-off between neighbours: flag write, poll, fence), and the share of each line
// that is payload.
struct ProtocolParams {
  double launch_ns = 0;
  double step_ns = 0;
  double payload_fraction = 1;
  friend bool operator==(const ProtocolParams&, const ProtocolParams&) = default;
};

// The config's `collectives` section: the communication library of the machine.
struct CollectiveConfig {
  // Share of a link port's bandwidth that the library's copy kernels reach (fitted: see configs/README.md).
  double bandwidth_efficiency = 1;
  ProtocolParams simple;
  ProtocolParams ll128{0, 0, 120.0 / 128.0};
  bool ll128_enabled = true;
  // Pipelined algorithms (tree, broadcast) move the buffer in chunks, at most `pipeline_slots` of them in
  // flight per connection (NCCL: a 4 MiB Simple buffer in NCCL_STEPS = 8 slots of 512 KiB). The closed
  // forms leave out the pipeline's fill; the replay (sim/hw/collective_engine.h) has it.
  double pipeline_chunk_bytes = 512 * 1024;
  int pipeline_slots = 8;
  friend bool operator==(const CollectiveConfig&, const CollectiveConfig&) = default;
};

const FieldTable<CollectiveConfig>& collective_fields();

} // namespace lightsim::ir
