#include "sim/hw/collective_engine.h"

#include "ir/error.h"
#include "sim/hw/link.h"
#include "sim/hw/sim_time.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace lightsim::sim {
namespace {

// The most chunks a pipelined replay moves per connection (memory and time stay linear in them).
constexpr double kMaxChunks = 1e6;

} // namespace

CollectiveEngine::CollectiveEngine(sc_core::sc_module_name name, const ir::TransferModel& transfers,
                                   const ir::CollectiveConfig& config,
                                   const std::vector<ir::CollectiveRequest>& requests,
                                   const std::string& where)
    : sc_core::sc_module(name), transfers_(transfers), config_(config) {
  for (const ir::CollectiveRequest& request : requests)
    check(request, where);
  const ir::Hardware& hw = transfers.hardware();
  for (std::size_t l = 0; l < hw.links.size(); ++l) {
    links_.push_back(std::make_unique<Link>(("link_" + std::to_string(l)).c_str(), hw.links[l]));
    links_.back()->done.bind(*this);
    own_link_if_.push_back(links_.back().get());
  }
  for (const ir::CollectiveRequest& request : requests) {
    const std::size_t first = sends_.size();
    add_request(request);
    const std::uint64_t first_ps = ns_to_ps(protocols_.back().launch_ns + protocols_.back().step_ns);
    for (std::size_t s = first; s < sends_.size(); ++s)
      if (sends_[s].waiting == 0) pending_.emplace(first_ps, static_cast<std::uint32_t>(s));
  }
  SC_METHOD(issue);
  sensitive << issue_event_;
}

CollectiveEngine::CollectiveEngine(sc_core::sc_module_name name, const ir::TransferModel& transfers,
                                   const ir::CollectiveConfig& config, const ir::CollectiveRequest& request,
                                   const std::string& where, const std::vector<LinkIf*>& links,
                                   std::uint64_t token_base)
    : sc_core::sc_module(name), transfers_(transfers), config_(config), link_if_(&links),
      token_base_(token_base) {
  check(request, where);
  add_request(request);
  SC_METHOD(issue);
  sensitive << issue_event_;
  dont_initialize();
}

// The group's checks (two or more units, connected, an algorithm it can run) and the replay's own.
void CollectiveEngine::check(const ir::CollectiveRequest& request, const std::string& where) const {
  ir::collective_cost(transfers_, config_, request, where);
  const bool pipelined =
      request.kind == ir::CollectiveKind::Broadcast || request.algorithm == ir::CollectiveAlgorithm::Tree;
  if (pipelined && request.bytes / config_.pipeline_chunk_bytes > kMaxChunks)
    throw InputError(where, "the replay would move " +
                                std::to_string(std::llround(request.bytes / config_.pipeline_chunk_bytes)) +
                                " chunks per connection (at most " +
                                std::to_string(std::llround(kMaxChunks)) +
                                "): raise collectives.pipeline_chunk_bytes or replay a smaller size");
  if (request.algorithm == ir::CollectiveAlgorithm::Auto)
    throw InputError(where, "the replay needs an algorithm (ring, tree or ring2d), not auto");
  if (request.protocol == ir::CollectiveProtocol::Auto)
    throw InputError(where, "the replay needs a protocol (simple or ll128), not auto");
}

// The request's sends, numbered after the ones already there.
void CollectiveEngine::add_request(const ir::CollectiveRequest& request) {
  const std::size_t first = sends_.size();
  protocols_.push_back(request.protocol == ir::CollectiveProtocol::LL128 ? config_.ll128 : config_.simple);
  results_.emplace_back();
  add_collective(request);
  remaining_.push_back(sends_.size() - first);
  for (std::size_t s = first; s < sends_.size(); ++s)
    sends_[s].collective = protocols_.size() - 1;
}

void CollectiveEngine::start(std::function<void(const CollectiveReplay&)> done) {
  if (on_done_ || results_.size() != 1) throw std::logic_error("CollectiveEngine::start: started already");
  if (link_if_->size() != transfers_.hardware().links.size())
    throw std::logic_error("CollectiveEngine::start: one LinkIf per link of the machine");
  on_done_ = std::move(done);
  start_ps_ = now_ps();
  const std::uint64_t first_ps = start_ps_ + ns_to_ps(protocols_[0].launch_ns + protocols_[0].step_ns);
  for (std::size_t s = 0; s < sends_.size(); ++s)
    if (sends_[s].waiting == 0) pending_.emplace(first_ps, static_cast<std::uint32_t>(s));
  if (!pending_.empty()) issue_event_.notify(sc_core::sc_time::from_value(pending_.top().first - start_ps_));
}

void CollectiveEngine::add_collective(const ir::CollectiveRequest& request) {
  const ir::Hardware& hw = transfers_.hardware();
  memories_.clear();
  for (int u : request.units)
    memories_.push_back(hw.units[static_cast<std::size_t>(u)].memory);
  const int n = static_cast<int>(request.units.size());
  std::vector<int> last_send(static_cast<std::size_t>(n), -1), last_receive(static_cast<std::size_t>(n), -1);
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d)
    all[static_cast<std::size_t>(d)] = d;
  if (request.kind == ir::CollectiveKind::Broadcast) {
    add_chain_broadcast(n, request.bytes);
  } else if (request.algorithm == ir::CollectiveAlgorithm::Tree) {
    add_tree_all_reduce(n, request.bytes);
  } else if (request.algorithm == ir::CollectiveAlgorithm::Ring) {
    const int steps = request.kind == ir::CollectiveKind::AllReduce ? 2 * (n - 1) : n - 1;
    add_ring_phase({all}, request.bytes, steps, last_send, last_receive);
  } else {
    const int rows = request.rows, cols = n / rows;
    std::vector<std::vector<int>> row_rings(static_cast<std::size_t>(rows)),
        col_rings(static_cast<std::size_t>(cols));
    for (int d = 0; d < n; ++d) {
      row_rings[static_cast<std::size_t>(d / cols)].push_back(d);
      col_rings[static_cast<std::size_t>(d % cols)].push_back(d);
    }
    add_ring_phase(row_rings, request.bytes, cols - 1, last_send, last_receive);
    add_ring_phase(col_rings, request.bytes / cols, 2 * (rows - 1), last_send, last_receive);
    add_ring_phase(row_rings, request.bytes, cols - 1, last_send, last_receive);
  }
}

CollectiveEngine::~CollectiveEngine() = default;

// Each ring of `rings` (device indices) reduces or gathers `bytes` in `steps` steps of bytes / ring size.
void CollectiveEngine::add_ring_phase(const std::vector<std::vector<int>>& rings, double bytes, int steps,
                                      std::vector<int>& last_send, std::vector<int>& last_receive) {
  for (const std::vector<int>& ring : rings) {
    const std::size_t m = ring.size();
    const double chunk = bytes / static_cast<double>(m);
    std::vector<int> sent(m);
    for (int k = 0; k < steps; ++k) {
      for (std::size_t i = 0; i < m; ++i) {
        const auto d = static_cast<std::size_t>(ring[i]), next = static_cast<std::size_t>(ring[(i + 1) % m]);
        sent[i] = static_cast<int>(
            add_send(memories_[d], memories_[next], chunk, {last_receive[d]}, {last_send[d]}));
      }
      for (std::size_t i = 0; i < m; ++i) { // the step's chunks arrive: the next step waits for them
        last_send[static_cast<std::size_t>(ring[i])] = sent[i];
        last_receive[static_cast<std::size_t>(ring[(i + 1) % m])] = sent[i];
      }
    }
  }
}

// The pipelined algorithms' chunks: `bytes` in chunks of pipeline_chunk_bytes (one empty chunk for 0 bytes).
std::vector<double> CollectiveEngine::chunks(double bytes) const {
  std::vector<double> sizes;
  const double chunk = config_.pipeline_chunk_bytes;
  for (double at = 0; at < bytes; at += chunk)
    sizes.push_back(std::min(chunk, bytes - at));
  if (sizes.empty()) sizes.push_back(0);
  return sizes;
}

// NCCL's double binary tree: device at position pos of tree t (t = 1: the order mirrored) sends each chunk
// of its half of the buffer to its parent (pos - 1) / 2 once its children's chunk has arrived (reduce), and
// the root's reduced chunks flow back down (broadcast); each connection holds at most pipeline_slots chunks.
void CollectiveEngine::add_tree_all_reduce(int n, double bytes) {
  const std::vector<double> sizes = chunks(bytes / 2);
  const auto slots = static_cast<std::size_t>(config_.pipeline_slots);
  const auto un = static_cast<std::size_t>(n);
  for (int t = 0; t < 2; ++t) {
    auto mem = [&](std::size_t pos) { return memories_[t == 0 ? pos : un - 1 - pos]; };
    std::vector<std::vector<int>> up(un), down(un); // per position: its chunks to its parent, from its parent
    auto slot = [&](const std::vector<int>& stream, std::size_t k) {
      return k >= slots ? stream[k - slots] : -1;
    };
    auto from = [&](std::size_t child, std::size_t k) { return child < un ? up[child][k] : -1; };
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      for (std::size_t pos = un - 1; pos >= 1; --pos)
        up[pos].push_back(
            static_cast<int>(add_send(mem(pos), mem((pos - 1) / 2), sizes[k],
                                      {from(2 * pos + 1, k), from(2 * pos + 2, k)}, {slot(up[pos], k)})));
      for (std::size_t pos = 1; pos < un; ++pos) {
        const std::size_t parent = (pos - 1) / 2;
        const int data_a = parent == 0 ? from(1, k) : down[parent][k], data_b = parent == 0 ? from(2, k) : -1;
        down[pos].push_back(static_cast<int>(
            add_send(mem(parent), mem(pos), sizes[k], {data_a, data_b}, {slot(down[pos], k)})));
      }
    }
  }
}

// Broadcast from the first device down the chain of the others, chunk by chunk.
void CollectiveEngine::add_chain_broadcast(int n, double bytes) {
  const std::vector<double> sizes = chunks(bytes);
  const auto slots = static_cast<std::size_t>(config_.pipeline_slots);
  std::vector<std::vector<int>> hop(static_cast<std::size_t>(n - 1)); // per hop i -> i + 1: its chunks
  for (std::size_t k = 0; k < sizes.size(); ++k)
    for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(n); ++i)
      hop[i].push_back(
          static_cast<int>(add_send(memories_[i], memories_[i + 1], sizes[k], {i > 0 ? hop[i - 1][k] : -1},
                                    {k >= slots ? hop[i][k - slots] : -1})));
}

// A send that waits for the sends in `data` (whose chunk it reduces or forwards: then the protocol's step)
// and in `slot` (the earlier chunks of its connection, whose buffer slot it reuses: no step of its own).
std::uint32_t CollectiveEngine::add_send(int src, int dst, double bytes, std::initializer_list<int> data,
                                         std::initializer_list<int> slot) {
  const auto s = static_cast<std::uint32_t>(sends_.size());
  sends_.push_back({src, dst, bytes, {}, 0, 0, 0, 0});
  for (const auto& [after, step] : {std::pair{data, true}, std::pair{slot, false}})
    for (int a : after)
      if (a >= 0) {
        sends_[static_cast<std::size_t>(a)].dependents.push_back({s, step});
        ++sends_.back().waiting;
      }
  return s;
}

void CollectiveEngine::issue() {
  const std::uint64_t now = now_ps();
  while (!pending_.empty() && pending_.top().first <= now) {
    const std::uint32_t s = pending_.top().second;
    pending_.pop();
    send_hop(s);
  }
  if (!pending_.empty()) issue_event_.notify(sc_core::sc_time::from_value(pending_.top().first - now));
}

void CollectiveEngine::send_hop(std::uint32_t s) {
  Send& send = sends_[s];
  const ir::ProtocolParams& protocol = protocols_[send.collective];
  CollectiveReplay& result = results_[send.collective];
  const ir::Route& route = transfers_.route(send.src, send.dst);
  if (send.hop == 0) send.start_ps = now_ps();
  if (send.hop == route.links.size()) { // arrived (or the two devices share a memory)
    send.end_ps = now_ps();
    ++done_;
    ++result.sends;
    result.time_s = std::max(result.time_s, ps_to_s(now_ps() - start_ps_));
    if (--remaining_[send.collective] == 0 && on_done_) on_done_(result);
    for (const auto& [d, step] : send.dependents) {
      Send& next = sends_[d];
      next.ready_ps = std::max(next.ready_ps, now_ps() + (step ? ns_to_ps(protocol.step_ns) : 0));
      if (--next.waiting == 0) ready(d, next.ready_ps);
    }
    return;
  }
  const auto l = static_cast<std::size_t>(route.links[send.hop]);
  const ir::Link& link = transfers_.hardware().links[l];
  const double line_bytes = std::ceil(send.bytes / protocol.payload_fraction);
  result.energy_j += ir::TransferModel::link_energy_j(link, static_cast<std::uint64_t>(line_bytes));
  // Every member's chunks are sent apart; each holds its port as line_bytes / efficiency would.
  (*link_if_)[l]->send(token_base_ + s, static_cast<std::uint64_t>(line_bytes),
                       ir::link_port(link, route.memories[send.hop]), 1.0 / config_.bandwidth_efficiency);
}

void CollectiveEngine::ready(std::uint32_t s, std::uint64_t at_ps) {
  pending_.emplace(at_ps, s);
  issue_event_.notify(sc_core::sc_time::from_value(at_ps - now_ps()));
}

void CollectiveEngine::hop_done(std::uint64_t token, double /*link's energy: charged per chunk above*/) {
  const auto s = static_cast<std::uint32_t>(token - token_base_);
  ++sends_[s].hop;
  send_hop(s);
}

std::vector<CollectiveSendRecord> CollectiveEngine::send_records() const {
  std::vector<CollectiveSendRecord> records;
  records.reserve(sends_.size());
  for (const Send& send : sends_)
    records.push_back({send.src, send.dst, send.bytes, ps_to_s(send.start_ps), ps_to_s(send.end_ps)});
  return records;
}

std::vector<CollectiveReplay> CollectiveEngine::run() {
  sc_core::sc_start();
  if (done_ != sends_.size())
    throw std::logic_error("collective replay ended with " + std::to_string(sends_.size() - done_) +
                           " sends not delivered");
  return results_;
}

} // namespace lightsim::sim
