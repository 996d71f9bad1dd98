#include "ir/hardware/collective_config.h"

namespace lightsim::ir {
namespace {

const FieldTable<ProtocolParams>& protocol_fields() {
  using F = Field<ProtocolParams>;
  static const FieldTable<ProtocolParams> table(
      "protocol",
      {F::non_negative(&ProtocolParams::launch_ns, "launch_ns", "ns",
                       "fixed cost of one collective: kernel start and the first synchronisation"),
       F::non_negative(&ProtocolParams::step_ns, "step_ns", "ns",
                       "fixed cost of one step: a chunk's hand-off to the next device (flag, poll, fence), "
                       "on top of the link's own latency"),
       F::fraction(&ProtocolParams::payload_fraction, "payload_fraction",
                   "share of the bytes on the wire that are data (LL128: 120 of 128)")
           .optional()});
  return table;
}

} // namespace

const FieldTable<CollectiveConfig>& collective_fields() {
  using F = Field<CollectiveConfig>;
  static const FieldTable<CollectiveConfig> table(
      "collectives",
      {F::fraction(&CollectiveConfig::bandwidth_efficiency, "bandwidth_efficiency",
                   "share of a link port's bandwidth the library's copies reach")
           .optional(),
       F::object(&CollectiveConfig::simple, "simple", protocol_fields(),
                 "the Simple protocol: large chunks, a fence per step")
           .optional("no fixed costs"),
       F::object(&CollectiveConfig::ll128, "ll128", protocol_fields(),
                 "the LL128 protocol: a flag in each 128-byte line, shorter steps")
           .optional("no fixed costs, 120 of 128 bytes data"),
       F::flag(&CollectiveConfig::ll128_enabled, "ll128_enabled", "whether Auto may choose LL128").optional(),
       F::rate(&CollectiveConfig::pipeline_chunk_bytes, "pipeline_chunk_bytes", "B",
               "chunk of a pipelined algorithm (tree, broadcast) in the replay")
           .optional(),
       F::count(&CollectiveConfig::pipeline_slots, "pipeline_slots", "chunks",
                "chunks a connection has in flight at most (NCCL_STEPS)")
           .optional()});
  return table;
}

} // namespace lightsim::ir
