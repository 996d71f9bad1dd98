#include "ir/cost/collectives.h"

#include "ir/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <utility>

namespace lightsim::ir {

// ---- Closed forms ----------------------------------------------------------------------------------

namespace {

int tree_depth(int n) {
  int depth = 0;
  while ((1 << depth) < n)
    ++depth;
  return depth;
}

} // namespace

double ring_ns(CollectiveKind kind, int n, double bytes, double bandwidth_GBps, double step_ns,
               double launch_ns) {
  const double chunk_ns = bytes / n / bandwidth_GBps;
  switch (kind) {
  case CollectiveKind::AllReduce:
    return launch_ns + 2.0 * (n - 1) * (step_ns + chunk_ns);
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
    return launch_ns + (n - 1) * (step_ns + chunk_ns);
  case CollectiveKind::Broadcast:
    break;
  }
  return launch_ns + (n - 1) * step_ns + bytes / bandwidth_GBps;
}

double tree_port_load(int n) {
  std::vector<double> egress(static_cast<std::size_t>(n), 0.0);
  for (int t = 0; t < 2; ++t)
    for (int i = 1; i < n; ++i) { // half the buffer up from the child, half down from the parent
      const int child = t == 0 ? i : n - 1 - i, parent = t == 0 ? (i - 1) / 2 : n - 1 - (i - 1) / 2;
      egress[static_cast<std::size_t>(child)] += 0.5;
      egress[static_cast<std::size_t>(parent)] += 0.5;
    }
  return *std::max_element(egress.begin(), egress.end());
}

double tree_all_reduce_ns(int n, double bytes, double bandwidth_GBps, double step_ns, double launch_ns) {
  return launch_ns + 2.0 * tree_depth(n) * step_ns + tree_port_load(n) * bytes / bandwidth_GBps;
}

double ring2d_all_reduce_ns(int rows, int cols, double bytes, double row_GBps, double row_step_ns,
                            double col_GBps, double col_step_ns, double launch_ns) {
  return launch_ns + 2.0 * (ring_ns(CollectiveKind::ReduceScatter, cols, bytes, row_GBps, row_step_ns, 0)) +
         ring_ns(CollectiveKind::AllReduce, rows, bytes / cols, col_GBps, col_step_ns, 0);
}

double bus_bandwidth_GBps(CollectiveKind kind, int n, double bytes, double ns) {
  const double algbw = bytes / ns;
  switch (kind) {
  case CollectiveKind::AllReduce:
    return algbw * 2.0 * (n - 1) / n;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
    return algbw * (n - 1) / n;
  case CollectiveKind::Broadcast:
    break;
  }
  return algbw;
}

// ---- On a machine ----------------------------------------------------------------------------------

namespace {

struct Edge {
  int src = -1, dst = -1; // memories
};

// What sends put on each link: line bytes and busy ns (latency + wire bytes at the efficiency's rate). Empty
// until something is added; sized to the machine's links by the first send.
struct LinkTraffic {
  std::vector<double> bytes, busy_ns; // per link

  void add(const Hardware& hw, int l, std::uint64_t line_bytes, double efficiency) {
    resize(hw.links.size());
    const Link& link = hw.links[static_cast<std::size_t>(l)];
    bytes[static_cast<std::size_t>(l)] += static_cast<double>(line_bytes);
    busy_ns[static_cast<std::size_t>(l)] +=
        link.latency_ns + TransferModel::wire_bytes(link, line_bytes) / (efficiency * link.bandwidth_GBps);
  }
  void add(const LinkTraffic& o, double times) {
    resize(o.bytes.size());
    for (std::size_t l = 0; l < o.bytes.size(); ++l) {
      bytes[l] += times * o.bytes[l];
      busy_ns[l] += times * o.busy_ns[l];
    }
  }

private:
  void resize(std::size_t links) {
    if (bytes.size() < links) bytes.resize(links, 0.0), busy_ns.resize(links, 0.0);
  }
};

struct StepCost {
  double ns = 0;         // the slowest edge: latencies and bytes
  double latency_ns = 0; // the slowest edge's latencies alone
  double energy_j = 0;
  LinkTraffic traffic;
};

// One step: every edge sends `bytes` at once. Flows out of one link port share its bandwidth.
StepCost step_cost(const TransferModel& transfers, const std::vector<Edge>& edges, double bytes,
                   double efficiency, double payload_fraction) {
  const Hardware& hw = transfers.hardware();
  const auto line_bytes = static_cast<std::uint64_t>(std::ceil(bytes / payload_fraction));
  std::map<std::pair<int, int>, int> flows; // (link, sending port) -> flows
  for (const Edge& e : edges) {
    if (e.src == e.dst) continue;
    const Route& r = transfers.route(e.src, e.dst);
    for (std::size_t h = 0; h < r.links.size(); ++h)
      ++flows[{r.links[h], link_port(hw.links[static_cast<std::size_t>(r.links[h])], r.memories[h])}];
  }
  StepCost step;
  for (const Edge& e : edges) {
    if (e.src == e.dst) continue;
    const Route& r = transfers.route(e.src, e.dst);
    double ns = 0, latency_ns = 0;
    for (std::size_t h = 0; h < r.links.size(); ++h) { // store and forward, as ir::TransferModel
      const Link& link = hw.links[static_cast<std::size_t>(r.links[h])];
      const int sharing = flows[{r.links[h], link_port(link, r.memories[h])}];
      latency_ns += link.latency_ns;
      ns += link.latency_ns +
            sharing * TransferModel::wire_bytes(link, line_bytes) / (efficiency * link.bandwidth_GBps);
      step.energy_j += TransferModel::link_energy_j(link, line_bytes);
      step.traffic.add(hw, r.links[h], line_bytes, efficiency);
    }
    step.ns = std::max(step.ns, ns);
    step.latency_ns = std::max(step.latency_ns, latency_ns);
  }
  return step;
}

struct PhaseCost {
  double ns = 0;
  double energy_j = 0;
  LinkTraffic traffic;
};

// Rings that run at once (each a list of memories), each reducing or gathering `bytes` in `steps` steps of
// bytes / ring size.
PhaseCost ring_phase(const TransferModel& transfers, const std::vector<std::vector<int>>& rings, double bytes,
                     int steps, double efficiency, const ProtocolParams& protocol) {
  std::vector<Edge> edges;
  std::size_t size = 0;
  for (const std::vector<int>& ring : rings) {
    size = ring.size();
    for (std::size_t i = 0; i < ring.size(); ++i)
      edges.push_back({ring[i], ring[(i + 1) % ring.size()]});
  }
  if (size < 2 || steps == 0) return {};
  const StepCost step =
      step_cost(transfers, edges, bytes / static_cast<double>(size), efficiency, protocol.payload_fraction);
  PhaseCost phase{steps * (protocol.step_ns + step.ns), steps * step.energy_j, {}};
  phase.traffic.add(step.traffic, steps);
  return phase;
}

PhaseCost ring_cost(const TransferModel& transfers, CollectiveKind kind, const std::vector<int>& ring,
                    double bytes, double efficiency, const ProtocolParams& protocol) {
  const int n = static_cast<int>(ring.size());
  if (kind != CollectiveKind::Broadcast) {
    const int steps = kind == CollectiveKind::AllReduce ? 2 * (n - 1) : n - 1;
    return ring_phase(transfers, {ring}, bytes, steps, efficiency, protocol);
  }
  // Broadcast: the buffer streams down the chain from the first unit; every hop adds its latency once.
  std::vector<Edge> chain;
  for (int i = 0; i + 1 < n; ++i)
    chain.push_back({ring[static_cast<std::size_t>(i)], ring[static_cast<std::size_t>(i + 1)]});
  const StepCost step = step_cost(transfers, chain, bytes, efficiency, protocol.payload_fraction);
  return {(n - 1) * (protocol.step_ns + step.latency_ns) + (step.ns - step.latency_ns), step.energy_j,
          step.traffic};
}

// NCCL's double binary tree: unit i's parent is (i - 1) / 2 in the first tree and, with the order
// mirrored, in the second; each tree reduces half the buffer up and sends it back down, pipelined, so the
// time is the latency of 2 depth levels and the busiest link port's bytes at its rate.
PhaseCost tree_cost(const TransferModel& transfers, const std::vector<int>& order, double bytes,
                    double efficiency, const ProtocolParams& protocol) {
  const Hardware& hw = transfers.hardware();
  const auto n = order.size();
  const auto line_bytes = static_cast<std::uint64_t>(std::ceil(bytes / 2 / protocol.payload_fraction));
  std::map<std::pair<int, int>, double> load_ns; // (link, sending port) -> its bytes' time
  PhaseCost cost;
  double latency_ns = 0;
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t i = 1; i < n; ++i) {
      const int child = order[t == 0 ? i : n - 1 - i],
                parent = order[t == 0 ? (i - 1) / 2 : n - 1 - (i - 1) / 2];
      for (const Edge& e : {Edge{child, parent}, Edge{parent, child}}) { // up (reduce), down (broadcast)
        if (e.src == e.dst) continue;
        const Route& r = transfers.route(e.src, e.dst);
        double route_latency_ns = 0;
        for (std::size_t h = 0; h < r.links.size(); ++h) {
          const Link& link = hw.links[static_cast<std::size_t>(r.links[h])];
          load_ns[{r.links[h], link_port(link, r.memories[h])}] +=
              TransferModel::wire_bytes(link, line_bytes) / (efficiency * link.bandwidth_GBps);
          route_latency_ns += link.latency_ns;
          cost.energy_j += TransferModel::link_energy_j(link, line_bytes);
          cost.traffic.add(hw, r.links[h], line_bytes, efficiency);
        }
        latency_ns = std::max(latency_ns, route_latency_ns);
      }
    }
  double busiest_ns = 0;
  for (const auto& [channel, ns] : load_ns)
    busiest_ns = std::max(busiest_ns, ns);
  cost.ns = 2.0 * tree_depth(static_cast<int>(n)) * (protocol.step_ns + latency_ns) + busiest_ns;
  return cost;
}

PhaseCost ring2d_cost(const TransferModel& transfers, const std::vector<int>& order, int rows, double bytes,
                      double efficiency, const ProtocolParams& protocol) {
  const std::size_t cols = order.size() / static_cast<std::size_t>(rows);
  std::vector<std::vector<int>> row_rings(static_cast<std::size_t>(rows)), col_rings(cols);
  for (std::size_t i = 0; i < order.size(); ++i) {
    row_rings[i / cols].push_back(order[i]);
    col_rings[i % cols].push_back(order[i]);
  }
  const auto c = static_cast<int>(cols);
  const PhaseCost scatter = ring_phase(transfers, row_rings, bytes, c - 1, efficiency, protocol);
  const PhaseCost across = ring_phase(transfers, col_rings, bytes / c, 2 * (rows - 1), efficiency, protocol);
  PhaseCost cost{2 * scatter.ns + across.ns, 2 * scatter.energy_j + across.energy_j, {}};
  cost.traffic.add(scatter.traffic, 2);
  cost.traffic.add(across.traffic, 1);
  return cost;
}

std::string unit_list_error(const Hardware& hw, int a, int b) {
  return "units '" + std::string(hw.unit_name(a)) + "' and '" + std::string(hw.unit_name(b)) +
         "' are not connected by any link";
}

} // namespace

CollectiveCost collective_cost(const TransferModel& transfers, const CollectiveConfig& config,
                               const CollectiveRequest& request, const std::string& where) {
  const Hardware& hw = transfers.hardware();
  const int n = static_cast<int>(request.units.size());
  if (n < 2) throw InputError(where, "a collective needs at least two units, got " + std::to_string(n));
  std::set<int> seen;
  std::vector<int> memories;
  for (int u : request.units) {
    if (u < 0 || static_cast<std::size_t>(u) >= hw.units.size())
      throw InputError(where, "no unit with index " + std::to_string(u));
    if (!seen.insert(u).second)
      throw InputError(where, "unit '" + hw.units[static_cast<std::size_t>(u)].name + "' appears twice");
    memories.push_back(hw.units[static_cast<std::size_t>(u)].memory);
  }
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (memories[a] != memories[b] && transfers.route(memories[a], memories[b]).links.empty())
        throw InputError(where, unit_list_error(hw, request.units[a], request.units[b]));
  if (!(request.bytes >= 0) || !std::isfinite(request.bytes))
    throw InputError(where, "the size must be a finite number of bytes >= 0");

  const bool all_reduce = request.kind == CollectiveKind::AllReduce;
  const bool grid = request.rows > 1 && request.rows < n && n % request.rows == 0;
  if (request.algorithm == CollectiveAlgorithm::Tree && !all_reduce)
    throw InputError(where, "the tree runs all-reduce only (as in NCCL)");
  if (request.algorithm == CollectiveAlgorithm::Ring2D) {
    if (!all_reduce) throw InputError(where, "the 2D ring runs all-reduce only");
    if (!grid)
      throw InputError(where, "the 2D ring needs rows > 1 that divide the " + std::to_string(n) +
                                  " units into rows of two or more, got rows " +
                                  std::to_string(request.rows));
  }
  if (request.protocol == CollectiveProtocol::LL128 && !config.ll128_enabled)
    throw InputError(where, "LL128 is disabled in the config's collectives section (ll128_enabled)");

  std::vector<CollectiveAlgorithm> algorithms;
  if (request.algorithm != CollectiveAlgorithm::Auto)
    algorithms = {request.algorithm};
  else {
    algorithms = {CollectiveAlgorithm::Ring};
    if (all_reduce && n > 2) algorithms.push_back(CollectiveAlgorithm::Tree);
    if (all_reduce && grid) algorithms.push_back(CollectiveAlgorithm::Ring2D);
  }
  std::vector<CollectiveProtocol> protocols;
  if (request.protocol != CollectiveProtocol::Auto)
    protocols = {request.protocol};
  else {
    protocols = {CollectiveProtocol::Simple};
    if (config.ll128_enabled) protocols.push_back(CollectiveProtocol::LL128);
  }

  CollectiveCost best;
  best.time_s = std::numeric_limits<double>::infinity();
  const double eff = config.bandwidth_efficiency;
  for (CollectiveAlgorithm algorithm : algorithms)
    for (CollectiveProtocol protocol : protocols) {
      const ProtocolParams& p = protocol == CollectiveProtocol::LL128 ? config.ll128 : config.simple;
      PhaseCost c;
      switch (algorithm) {
      case CollectiveAlgorithm::Tree:
        c = tree_cost(transfers, memories, request.bytes, eff, p);
        break;
      case CollectiveAlgorithm::Ring2D:
        c = ring2d_cost(transfers, memories, request.rows, request.bytes, eff, p);
        break;
      default:
        c = ring_cost(transfers, request.kind, memories, request.bytes, eff, p);
        break;
      }
      const double time_s = (p.launch_ns + c.ns) * 1e-9;
      if (time_s < best.time_s) {
        best = {time_s, c.energy_j, algorithm, protocol, std::move(c.traffic.bytes), {}};
        best.link_busy_s = std::move(c.traffic.busy_ns);
        for (double& busy : best.link_busy_s)
          busy *= 1e-9;
      }
    }
  if (best.link_bytes.empty()) best.link_bytes.assign(hw.links.size(), 0);
  if (best.link_busy_s.empty()) best.link_busy_s.assign(hw.links.size(), 0);
  return best;
}

// ---- Collective ops of a graph ---------------------------------------------------------------------

CollectiveKind collective_kind(OpClass c) {
  switch (c) {
  case OpClass::AllReduce:
    return CollectiveKind::AllReduce;
  case OpClass::ReduceScatter:
    return CollectiveKind::ReduceScatter;
  case OpClass::AllGather:
    return CollectiveKind::AllGather;
  default:
    throw std::logic_error("collective_kind: " + std::string(op_class_name(c)) + " is not a collective");
  }
}

std::vector<int> collective_group(const Hardware& hw, int unit, const Op& op) {
  const std::int64_t workers = op.features.collective_workers;
  const std::string_view kind = hw.units[static_cast<std::size_t>(unit)].kind_name();
  std::vector<int> same_kind;
  for (std::size_t u = 0; u < hw.units.size(); ++u)
    if (hw.units[u].kind_name() == kind) same_kind.push_back(static_cast<int>(u));
  const auto rank = std::find(same_kind.begin(), same_kind.end(), unit) - same_kind.begin();
  const std::int64_t first = rank / std::max<std::int64_t>(workers, 1) * workers;
  if (workers < 2 || first + workers > static_cast<std::int64_t>(same_kind.size())) return {};
  return {same_kind.begin() + first, same_kind.begin() + first + workers};
}

CollectiveRequest collective_request(const Hardware& hw, int unit, const Op& op) {
  CollectiveRequest request;
  request.kind = collective_kind(op.op_class);
  request.units = collective_group(hw, unit, op);
  request.bytes = op.features.collective_bytes;
  if (request.units.empty())
    throw std::logic_error("collective_request: unit '" + hw.units[static_cast<std::size_t>(unit)].name +
                           "' has no group for op '" + op.name + "'");
  return request;
}

CollectiveCost collective_op_cost(const TransferModel& transfers, int unit, const Op& op,
                                  const std::string& where) {
  const Hardware& hw = transfers.hardware();
  return collective_cost(transfers, hw.collectives, collective_request(hw, unit, op), where);
}

EnergyBreakdown collective_op_energy(const TransferModel& transfers, int unit, const Op& op,
                                     const std::string& where) {
  EnergyBreakdown e;
  e[EnergyComponent::Link] = collective_op_cost(transfers, unit, op, where).energy_j;
  return e;
}

} // namespace lightsim::ir
