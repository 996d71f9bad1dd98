#include "sim/cli/progress.h"

#include <cstdio>
#include <ostream>

namespace lightsim {

Progress::Progress(bool enabled, std::ostream& out, std::chrono::milliseconds delay,
                   std::chrono::milliseconds period)
    : out_(out), delay_(delay), period_(period) {
  if (enabled) thread_ = std::thread([this] { run(); });
}

Progress::~Progress() {
  {
    const std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (drawn_) out_ << "\r\033[K" << std::flush; // erase the line
}

void Progress::stage(std::string name) {
  const std::lock_guard lock(mutex_);
  stage_ = std::move(name);
}

void Progress::run() {
  std::unique_lock lock(mutex_);
  if (wake_.wait_for(lock, delay_, [this] { return done_; })) return;
  do {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", elapsed);
    out_ << "\r\033[Klightsim: " << (stage_.empty() ? "working" : stage_) << "... " << seconds << std::flush;
    drawn_ = true;
  } while (!wake_.wait_for(lock, period_, [this] { return done_; }));
}

} // namespace lightsim
