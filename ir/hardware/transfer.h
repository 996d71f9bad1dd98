// TransferModel: how a tensor gets from one memory to another. Memories are the vertices and links the
// edges of an undirected graph (a switched link: an edge between every two of its endpoints); the route
// between two memories is the fastest path for a large tensor (Boost.Graph Dijkstra on ns per byte, ties
// broken by fewer hops, then by link order in the config). A transfer is staged through each intermediate
// memory (store and forward), so its time is the sum over the route's links of latency + wire bytes /
// bandwidth, where wire bytes add a header per packet of at most max_payload_bytes. Its energy is wire bytes
// x energy per byte + packets x energy per packet, summed over links.
//
// A graph that is one shard of several run at once (SPMD: ir/cost/device_plan.h) declares its peers
// (set_replicas): a hop that a peer's copy of the transfer crosses too, over the same link from the same
// memory (the host's port of a PCIe switch that streams every card its weights), carries both at once, so
// its wire time counts each copy (Route::copies) while its energy stays this shard's.
//
// It is not a contention model: concurrent transfers sharing a link are the list scheduler's and the
// SystemC replay's business.
#pragma once

#include "ir/cost.h"
#include "ir/hardware/hardware.h"

#include <cstdint>
#include <vector>

namespace lightsim::ir {

struct Route {
  std::vector<int> links;    // in order, from the source memory
  std::vector<int> memories; // links.size() + 1 memories, source first
  // Per hop: the copies of this transfer that cross it at once from the same memory, this one included
  // (1 unless TransferModel::set_replicas found peers that do).
  std::vector<int> copies;
};

class TransferModel {
public:
  // Precomputes a route between every pair of memories. Throws InputError (naming the config) when two
  // memories that units use cannot reach each other.
  explicit TransferModel(const Hardware& hw);

  const Hardware& hardware() const { return *hw_; }
  // Empty (no memories) when no links join the two memories.
  const Route& route(int src_memory, int dst_memory) const;
  // Zero cost when src == dst (shared memory); infinite time and energy when no route exists.
  Cost cost(int src_memory, int dst_memory, std::uint64_t bytes) const;
  // The peers of a shard run at once: replica_memories[k][m] is the memory that peer k uses where this
  // graph uses memory m (one map of every memory per peer). Sets every route's Route::copies to 1 + the
  // peers whose route between the mapped memories crosses the same link from the same memory. Empty: no
  // peers. Collectives are not transfers: their chunks (ir/cost/collectives.h) already move every member's.
  void set_replicas(const std::vector<std::vector<int>>& replica_memories);

  // Packets for `bytes` of payload: ceil(bytes / max_payload); 0 on a link without packets.
  static std::uint64_t packets(const Link& link, std::uint64_t bytes);
  // Bytes on the wire for `bytes` of payload: bytes + packets * header.
  static double wire_bytes(const Link& link, std::uint64_t bytes);
  // Energy of one hop: wire bytes x energy_pj_per_byte + packets x energy_pj_per_packet (the SystemC Link
  // charges the same).
  static double link_energy_j(const Link& link, std::uint64_t bytes);
  // One hop: latency + copies x wire bytes / bandwidth (the copies share the sending port), and this
  // copy's energy.
  static Cost link_cost(const Link& link, std::uint64_t bytes, int copies = 1);

private:
  const Hardware* hw_;
  std::vector<Route> routes_; // memories x memories, row-major
};

} // namespace lightsim::ir
