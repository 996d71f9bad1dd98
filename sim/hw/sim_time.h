// Simulation time helpers: lightsim runs SystemC at a 1 ps resolution, so an sc_time's value() is
// picoseconds. Durations from the timing functions (double nanoseconds) are rounded to the nearest ps.
//
// It is not where the resolution is set: sim/hw/kernel.h's fresh_simulation() sets the 1 ps these assume.
#pragma once

#include <cmath>
#include <cstdint>
#include <systemc>

namespace lightsim::sim {

inline std::uint64_t now_ps() { // sc_time_stamp() without its second call (the context's time is inline)
  return sc_core::sc_get_curr_simcontext()->time_stamp().value();
}
inline std::uint64_t ns_to_ps(double ns) {
  return ns <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(ns * 1e3));
}
inline double ps_to_s(std::uint64_t ps) {
  return static_cast<double>(ps) * 1e-12;
}

} // namespace lightsim::sim
