// TransferModel: routes between memories (Boost.Graph Dijkstra) and the cost of moving bytes along them.
#include "ir/hardware/transfer.h"

#include "ir/error.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace lightsim::ir {

namespace {

// Path length for Dijkstra: ns per byte first, then the number of hops. Equal lengths keep the first
// path found; out-edges are visited in config order, so the earlier-listed link wins a full tie.
struct PathLength {
  double ns_per_byte = 0;
  int hops = 0;
};

struct LessLength {
  bool operator()(const PathLength& a, const PathLength& b) const {
    if (a.ns_per_byte != b.ns_per_byte) return a.ns_per_byte < b.ns_per_byte;
    return a.hops < b.hops;
  }
};

struct AddLength {
  PathLength operator()(const PathLength& a, const PathLength& b) const {
    if (std::isinf(a.ns_per_byte) || std::isinf(b.ns_per_byte))
      return {std::numeric_limits<double>::infinity(), std::numeric_limits<int>::max()};
    return {a.ns_per_byte + b.ns_per_byte, a.hops + b.hops};
  }
};

struct LinkEdge {
  int link = -1;
  PathLength length;
};

using MemoryGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property, LinkEdge>;
using EdgeDesc = boost::graph_traits<MemoryGraph>::edge_descriptor;

// Remembers the link of each successful relaxation: with parallel links between two memories the
// vertex predecessor alone would not say which link the route takes.
struct LinkRecorder : boost::default_dijkstra_visitor {
  std::vector<int>* via;
  void edge_relaxed(EdgeDesc e, const MemoryGraph& g) const { (*via)[boost::target(e, g)] = g[e].link; }
};

} // namespace

TransferModel::TransferModel(const Hardware& hw) : hw_(&hw) {
  const std::size_t n = hw.memories.size();
  MemoryGraph graph(n);
  for (std::size_t i = 0; i < hw.links.size(); ++i) {
    const Link& l = hw.links[i];
    for (std::size_t a = 0; a < l.endpoints.size(); ++a) // through a switch: one hop between any two ports
      for (std::size_t b = a + 1; b < l.endpoints.size(); ++b)
        boost::add_edge(static_cast<std::size_t>(l.endpoints[a]), static_cast<std::size_t>(l.endpoints[b]),
                        LinkEdge{static_cast<int>(i), {1.0 / l.bandwidth_GBps, 1}}, graph);
  }

  routes_.assign(n * n, Route{});
  const PathLength infinite{std::numeric_limits<double>::infinity(), std::numeric_limits<int>::max()};
  std::vector<PathLength> distance(n);
  std::vector<std::size_t> predecessor(n);
  std::vector<int> via_link(n);
  for (std::size_t src = 0; src < n; ++src) {
    std::fill(via_link.begin(), via_link.end(), -1);
    LinkRecorder visitor{{}, &via_link};
    boost::dijkstra_shortest_paths(
        graph, src,
        boost::predecessor_map(
            boost::make_iterator_property_map(predecessor.begin(), get(boost::vertex_index, graph)))
            .distance_map(
                boost::make_iterator_property_map(distance.begin(), get(boost::vertex_index, graph)))
            .weight_map(get(&LinkEdge::length, graph))
            .distance_compare(LessLength{})
            .distance_combine(AddLength{})
            .distance_inf(infinite)
            .distance_zero(PathLength{})
            .visitor(visitor));
    for (std::size_t dst = 0; dst < n; ++dst) {
      if (dst != src && via_link[dst] < 0) continue; // unreachable: empty route
      Route& r = routes_[src * n + dst];
      for (std::size_t v = dst; v != src; v = predecessor[v]) {
        r.memories.push_back(static_cast<int>(v));
        r.links.push_back(via_link[v]);
      }
      r.memories.push_back(static_cast<int>(src));
      std::reverse(r.memories.begin(), r.memories.end());
      std::reverse(r.links.begin(), r.links.end());
      r.copies.assign(r.links.size(), 1);
    }
  }

  // Every pair of memories that units use must be connected.
  for (const Unit& a : hw.units)
    for (const Unit& b : hw.units)
      if (routes_[static_cast<std::size_t>(a.memory) * n + static_cast<std::size_t>(b.memory)]
              .memories.empty())
        throw InputError(hw.source + ": links", "no route from memory '" + hw.memories[a.memory].name +
                                                    "' (unit '" + a.name + "') to memory '" +
                                                    hw.memories[b.memory].name + "' (unit '" + b.name + "')");
}

const Route& TransferModel::route(int src_memory, int dst_memory) const {
  return routes_.at(static_cast<std::size_t>(src_memory) * hw_->memories.size() +
                    static_cast<std::size_t>(dst_memory));
}

std::uint64_t TransferModel::packets(const Link& link, std::uint64_t bytes) {
  if (link.max_payload_bytes <= 0) return 0;
  return (bytes + static_cast<std::uint64_t>(link.max_payload_bytes) - 1) /
         static_cast<std::uint64_t>(link.max_payload_bytes);
}

double TransferModel::wire_bytes(const Link& link, std::uint64_t bytes) {
  return static_cast<double>(bytes) + static_cast<double>(packets(link, bytes)) * link.header_bytes;
}

double TransferModel::link_energy_j(const Link& link, std::uint64_t bytes) {
  return (wire_bytes(link, bytes) * link.energy_pj_per_byte +
          static_cast<double>(packets(link, bytes)) * link.energy_pj_per_packet) *
         1e-12;
}

void TransferModel::set_replicas(const std::vector<std::vector<int>>& replica_memories) {
  const std::size_t n = hw_->memories.size();
  for (const std::vector<int>& map : replica_memories)
    if (map.size() != n) throw std::invalid_argument("TransferModel::set_replicas: a map of every memory");
  for (std::size_t src = 0; src < n; ++src)
    for (std::size_t dst = 0; dst < n; ++dst) {
      Route& r = routes_[src * n + dst];
      std::fill(r.copies.begin(), r.copies.end(), 1);
      for (const std::vector<int>& map : replica_memories) {
        const Route& peer = route(map[src], map[dst]);
        for (std::size_t h = 0; h < r.links.size(); ++h)
          for (std::size_t p = 0; p < peer.links.size(); ++p)
            if (peer.links[p] == r.links[h] && peer.memories[p] == r.memories[h]) {
              ++r.copies[h];
              break;
            }
      }
    }
}

Cost TransferModel::link_cost(const Link& link, std::uint64_t bytes, int copies) {
  return {(link.latency_ns + copies * wire_bytes(link, bytes) / link.bandwidth_GBps) * 1e-9,
          link_energy_j(link, bytes)};
}

Cost TransferModel::cost(int src_memory, int dst_memory, std::uint64_t bytes) const {
  if (src_memory == dst_memory) return {};
  const Route& r = route(src_memory, dst_memory);
  if (r.memories.empty())
    return {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  Cost total;
  for (std::size_t h = 0; h < r.links.size(); ++h)
    total += link_cost(hw_->links[static_cast<std::size_t>(r.links[h])], bytes, r.copies[h]);
  return total;
}

} // namespace lightsim::ir
