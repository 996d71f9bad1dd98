#include "sim/hw/collective_engine.h"

#include "ir/error.h"
#include "sim/hw/link.h"
#include "sim/hw/sim_time.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace lightsim::sim {

CollectiveEngine::CollectiveEngine(sc_core::sc_module_name name, const ir::TransferModel& transfers,
                                   const ir::CollectiveConfig& config, const ir::CollectiveRequest& request,
                                   const std::string& where)
    : sc_core::sc_module(name), transfers_(transfers), config_(config) {
  ir::collective_cost(transfers, config, request, where); // the group's checks (two or more, connected, ...)
  if (request.algorithm != ir::CollectiveAlgorithm::Ring &&
      request.algorithm != ir::CollectiveAlgorithm::Ring2D)
    throw InputError(where, "the replay runs the ring and the 2D ring, not '" +
                                std::string(ir::kCollectiveAlgorithms.name(request.algorithm)) + "'");
  if (request.kind == ir::CollectiveKind::Broadcast)
    throw InputError(where,
                     "the replay does not run broadcast (its pipelined chunks are NCCL's run-time choice)");
  if (request.protocol == ir::CollectiveProtocol::Auto)
    throw InputError(where, "the replay needs a protocol (simple or ll128), not auto");
  protocol_ = request.protocol == ir::CollectiveProtocol::LL128 ? config.ll128 : config.simple;

  const ir::Hardware& hw = transfers.hardware();
  for (std::size_t l = 0; l < hw.links.size(); ++l) {
    links_.push_back(std::make_unique<Link>(("link_" + std::to_string(l)).c_str(), hw.links[l]));
    links_.back()->done.bind(*this);
  }
  for (int u : request.units)
    memories_.push_back(hw.units[static_cast<std::size_t>(u)].memory);

  const int n = static_cast<int>(request.units.size());
  std::vector<int> last_send(static_cast<std::size_t>(n), -1), last_receive(static_cast<std::size_t>(n), -1);
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d)
    all[static_cast<std::size_t>(d)] = d;
  if (request.algorithm == ir::CollectiveAlgorithm::Ring) {
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
  const std::uint64_t first_ps = ns_to_ps(protocol_.launch_ns + protocol_.step_ns);
  for (std::uint32_t s = 0; s < sends_.size(); ++s)
    if (sends_[s].waiting == 0) pending_.emplace(first_ps, s);
  SC_METHOD(issue);
  sensitive << issue_event_;
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
        sent[i] =
            static_cast<int>(add_send(memories_[d], memories_[next], chunk, {last_send[d], last_receive[d]}));
      }
      for (std::size_t i = 0; i < m; ++i) { // the step's chunks arrive: the next step waits for them
        last_send[static_cast<std::size_t>(ring[i])] = sent[i];
        last_receive[static_cast<std::size_t>(ring[(i + 1) % m])] = sent[i];
      }
    }
  }
}

std::uint32_t CollectiveEngine::add_send(int src, int dst, double bytes, std::initializer_list<int> after) {
  const auto s = static_cast<std::uint32_t>(sends_.size());
  sends_.push_back({src, dst, bytes, {}, 0, 0});
  for (int a : after)
    if (a >= 0) {
      sends_[static_cast<std::size_t>(a)].dependents.push_back(s);
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
  const ir::Route& route = transfers_.route(send.src, send.dst);
  if (send.hop == route.links.size()) { // arrived (or the two devices share a memory)
    ++done_;
    last_ps_ = std::max(last_ps_, now_ps());
    for (std::uint32_t d : send.dependents)
      if (--sends_[d].waiting == 0) ready(d, now_ps() + ns_to_ps(protocol_.step_ns));
    return;
  }
  const auto l = static_cast<std::size_t>(route.links[send.hop]);
  const ir::Link& link = transfers_.hardware().links[l];
  const double line_bytes = std::ceil(send.bytes / protocol_.payload_fraction);
  energy_j_ += ir::TransferModel::link_energy_j(link, static_cast<std::uint64_t>(line_bytes));
  const auto held = static_cast<std::uint64_t>(std::llround(line_bytes / config_.bandwidth_efficiency));
  links_[l]->send(s, held, ir::link_port(link, route.memories[send.hop]));
}

void CollectiveEngine::ready(std::uint32_t s, std::uint64_t at_ps) {
  pending_.emplace(at_ps, s);
  issue_event_.notify(sc_core::sc_time::from_value(at_ps - now_ps()));
}

void CollectiveEngine::hop_done(std::uint64_t token, double /*link's energy: charged per chunk above*/) {
  Send& send = sends_[static_cast<std::size_t>(token)];
  ++send.hop;
  send_hop(static_cast<std::uint32_t>(token));
}

CollectiveReplay CollectiveEngine::run() {
  sc_core::sc_start();
  if (done_ != sends_.size())
    throw std::logic_error("collective replay ended with " + std::to_string(sends_.size() - done_) +
                           " sends not delivered");
  return {ps_to_s(last_ps_), energy_j_, done_};
}

} // namespace lightsim::sim
