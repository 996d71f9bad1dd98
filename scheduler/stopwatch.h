// Stopwatch: wall-clock laps in milliseconds, for the stage times lightsim reports. Not a benchmark
// (tests/bench/ measures performance).
#pragma once

#include <chrono>

namespace lightsim::sched {

class Stopwatch {
public:
  // Milliseconds since construction or the previous lap.
  double lap_ms() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

} // namespace lightsim::sched
