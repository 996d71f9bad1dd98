// FairShare: a processor-sharing server. Flows (a transfer's wire bytes, an op's bytes through a memory
// port) share one rate equally among those in service; the shares are recomputed whenever a flow arrives
// or departs. It is the fluid limit of packet-level round robin. Each flow may also be capped (a CPU core
// streams at most its own rate, however idle the shared port): a flow is served at min(cap, rate / n).
// Time is integer picoseconds.
//
// It is not a SystemC module: the SystemC modules that own one (sim/ Link, Cpu) call advance() from their
// processes and notify their own event for next_completion_ps(); the list scheduler uses the same server
// to predict CPU cores sharing their memory port.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace lightsim::sched {

class FairShare {
public:
  // rate_bytes_per_ps > 0, flow_cap_bytes_per_ps > 0 (infinite: no cap).
  explicit FairShare(double rate_bytes_per_ps,
                     double flow_cap_bytes_per_ps = std::numeric_limits<double>::infinity());

  // Starts a flow of `amount` bytes at `now_ps` (advance(now_ps, ...) must have been called first).
  void add(std::uint64_t token, double amount, std::uint64_t now_ps);
  // Serves the flows up to now_ps; appends the tokens of flows that finished, in arrival order.
  void advance(std::uint64_t now_ps, std::vector<std::uint64_t>& finished);
  // When the next flow finishes if nothing else arrives (rounded up to a picosecond).
  std::optional<std::uint64_t> next_completion_ps() const;

  std::size_t active() const { return flows_.size(); }
  double busy_ps() const { return busy_ps_; } // time with at least one flow in service

private:
  struct Flow {
    std::uint64_t token;
    double remaining;
  };
  double flow_rate() const; // what each flow in service gets now
  double rate_, cap_;
  std::uint64_t last_ps_ = 0;
  double busy_ps_ = 0;
  std::vector<Flow> flows_; // arrival order
};

} // namespace lightsim::sched
