// Collectives: what an all-reduce, reduce-scatter, all-gather or broadcast across a group of units costs,
// in closed form (alpha-beta), for the algorithms NCCL runs: the ring, the double binary tree and the 2D
// (hierarchical) ring, each with the two protocols NCCL chooses between on NVLink and PCIe: Simple, and
// LL128, which gives 8 bytes of each 128-byte line to a flag and so takes a shorter step. The library's
// constants are the config's `collectives` section (ir/hardware/collective_config.h); the links are the
// machine's (ir/hardware/transfer.h). Sizes follow nccl-tests: `bytes` is the whole buffer (an all-gather's
// output, a reduce-scatter's input).
//
// It is not a replay: nothing moves chunk by chunk here. Ring edges that share a link port in one step
// share its bandwidth (k flows of c bytes take k c / B, the hand computation); the reduction's arithmetic
// on the devices is not charged (it hides behind the copies on every GPU of interest).
#pragma once

#include "ir/energy.h"
#include "ir/graph.h"
#include "ir/hardware/collective_config.h"
#include "ir/hardware/transfer.h"
#include "ir/names.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace lightsim::ir {

enum class CollectiveKind : std::uint8_t { AllReduce, ReduceScatter, AllGather, Broadcast };
enum class CollectiveAlgorithm : std::uint8_t { Auto, Ring, Tree, Ring2D };
enum class CollectiveProtocol : std::uint8_t { Auto, Simple, LL128 };

inline constexpr NameTable kCollectiveKinds{
    std::array{std::pair{CollectiveKind::AllReduce, std::string_view("all_reduce")},
               std::pair{CollectiveKind::ReduceScatter, std::string_view("reduce_scatter")},
               std::pair{CollectiveKind::AllGather, std::string_view("all_gather")},
               std::pair{CollectiveKind::Broadcast, std::string_view("broadcast")}}};
inline constexpr NameTable kCollectiveAlgorithms{
    std::array{std::pair{CollectiveAlgorithm::Auto, std::string_view("auto")},
               std::pair{CollectiveAlgorithm::Ring, std::string_view("ring")},
               std::pair{CollectiveAlgorithm::Tree, std::string_view("tree")},
               std::pair{CollectiveAlgorithm::Ring2D, std::string_view("ring2d")}}};
inline constexpr NameTable kCollectiveProtocols{
    std::array{std::pair{CollectiveProtocol::Auto, std::string_view("auto")},
               std::pair{CollectiveProtocol::Simple, std::string_view("simple")},
               std::pair{CollectiveProtocol::LL128, std::string_view("ll128")}}};

// ---- Closed forms (alpha-beta): n devices, link bandwidth B (GB/s == bytes/ns), per-step latency a (ns),
// launch L (ns); results in ns.
// Ring: all-reduce L + 2(n-1)(a + S/(nB)); reduce-scatter and all-gather L + (n-1)(a + S/(nB));
// broadcast (pipelined along the ring) L + (n-1) a + S/B.
double ring_ns(CollectiveKind kind, int n, double bytes, double bandwidth_GBps, double step_ns,
               double launch_ns);
// Double binary tree all-reduce (NCCL's): two trees (heap order, parent of i is (i - 1) / 2, and the same
// with the order mirrored), each reducing half the buffer up and broadcasting it down, pipelined: a chunk
// crosses 2 ceil(log2 n) levels and the busiest device sends tree_port_load(n) x S over its port:
// L + 2 ceil(log2 n) a + load S / B.
double tree_all_reduce_ns(int n, double bytes, double bandwidth_GBps, double step_ns, double launch_ns);
// The most any device sends in the double binary tree, in units of the buffer: 1 for n = 2, 1.5 for n = 3
// and 4, 2 from n = 5 (a device with a parent and two children in one tree, and a leaf in the other).
double tree_port_load(int n);
// 2D ring all-reduce over `rows` x `cols` devices: reduce-scatter along each row (S), all-reduce along each
// column (S / cols), all-gather along each row (S), one launch.
double ring2d_all_reduce_ns(int rows, int cols, double bytes, double row_GBps, double row_step_ns,
                            double col_GBps, double col_step_ns, double launch_ns);
// nccl-tests' bus bandwidth of a collective that took `ns` for `bytes` on n devices (GB/s): algorithm
// bandwidth S / t times 2(n-1)/n (all-reduce), (n-1)/n (reduce-scatter, all-gather) or 1 (broadcast).
double bus_bandwidth_GBps(CollectiveKind kind, int n, double bytes, double ns);

// ---- On a machine.
struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::vector<int> units; // ring order; the 2D ring takes them row by row
  double bytes = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto;
  CollectiveProtocol protocol = CollectiveProtocol::Auto;
  int rows = 0; // 2D ring: rows of the grid (0: not a grid)
};

struct CollectiveCost {
  double time_s = 0;
  double energy_j = 0; // link energy of every byte moved
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  // Per link of the machine (indexed like Hardware::links), summed over every member's sends: the line
  // bytes (payload / the protocol's payload fraction) and the busy time (per hop its latency + wire bytes /
  // (efficiency x bandwidth)), as a transfer's hops count in a schedule's link totals.
  std::vector<double> link_bytes, link_busy_s;
};

// The cost of `request` on the machine: each step's time is the protocol's step_ns plus its slowest
// transfer over the routes between neighbours (latency + bytes / (efficiency x port bandwidth / flows on
// that port), hop by hop); Auto picks the cheapest algorithm and protocol the group can run, as NCCL's
// tuner does. InputError (naming `where`) for fewer than two units, a unit that repeats, a tree for
// another collective than all-reduce, a 2D ring whose rows do not divide the group, or a group whose
// units cannot reach each other.
CollectiveCost collective_cost(const TransferModel& transfers, const CollectiveConfig& config,
                               const CollectiveRequest& request, const std::string& where);

// ---- Collective ops of a graph (OpClass all_reduce, reduce_scatter, all_gather). A graph is one
// device's shard (SPMD, as `lightsim-graph --tensor-parallel` writes it): the op on `unit` stands for
// the same op on every device of unit's group, all running the shard at once.

CollectiveKind collective_kind(OpClass c); // c must be a collective class
// The group an op of a collective class runs in when `unit` runs it: the op's num_workers units of
// unit's kind, in config order, in the aligned block that holds `unit` (consecutive ranks, as
// Megatron-LM forms its tensor-parallel groups). Empty when unit's kind has no full block there.
std::vector<int> collective_group(const Hardware& hw, int unit, const Op& op);
// The op as a request on unit's group: Auto algorithm and protocol; bytes as nccl-tests count them
// (all-reduce and reduce-scatter: the input; all-gather: the output). Requires a non-empty group.
CollectiveRequest collective_request(const Hardware& hw, int unit, const Op& op);
// collective_cost of that request, on the machine's links and its `collectives` section; `where` names
// the op in errors.
CollectiveCost collective_op_cost(const TransferModel& transfers, int unit, const Op& op,
                                  const std::string& where);
// Its energy by component: all of it `link`.
EnergyBreakdown collective_op_energy(const TransferModel& transfers, int unit, const Op& op,
                                     const std::string& where);

} // namespace lightsim::ir
