#include "scheduler/fair_share.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace lightsim::sched {

namespace {
// A flow with less than this left is done (absorbs the rounding of completion times to 1 ps).
constexpr double kDoneBytes = 1e-6;
} // namespace

FairShare::FairShare(double rate_bytes_per_ps, double flow_cap_bytes_per_ps)
    : rate_(rate_bytes_per_ps), cap_(flow_cap_bytes_per_ps) {
  assert(rate_ > 0 && cap_ > 0);
}

double FairShare::flow_rate() const {
  return std::min(cap_, rate_ / static_cast<double>(flows_.size()));
}

void FairShare::add(std::uint64_t token, double amount, std::uint64_t now_ps) {
  assert(now_ps == last_ps_ || flows_.empty());
  if (flows_.empty()) last_ps_ = now_ps;
  flows_.push_back({token, amount});
}

void FairShare::advance(std::uint64_t now_ps, std::vector<std::uint64_t>& finished) {
  if (flows_.empty()) {
    last_ps_ = now_ps;
    return;
  }
  const double dt = static_cast<double>(now_ps - last_ps_);
  const double served = flow_rate() * dt;
  busy_ps_ += dt;
  last_ps_ = now_ps;
  std::size_t kept = 0;
  for (Flow& f : flows_) {
    f.remaining -= served;
    if (f.remaining <= kDoneBytes)
      finished.push_back(f.token);
    else
      flows_[kept++] = f;
  }
  flows_.resize(kept);
}

std::optional<std::uint64_t> FairShare::next_completion_ps() const {
  if (flows_.empty()) return std::nullopt;
  double least = flows_.front().remaining;
  for (const Flow& f : flows_)
    least = std::min(least, f.remaining);
  const double dt = std::max(0.0, least - kDoneBytes) / flow_rate();
  return last_ps_ + static_cast<std::uint64_t>(std::ceil(dt));
}

} // namespace lightsim::sched
