// Cost: time and energy of one thing (an op on a unit, a transfer over a path). Plain numbers in SI units.
//
// It is not a cost model: the arithmetic model (ir/cost/) computes these numbers, and this struct only
// carries and adds them.
#pragma once

namespace lightsim::ir {

struct Cost {
  double time_s = 0;
  double energy_j = 0;
  Cost& operator+=(const Cost& o) {
    time_s += o.time_s;
    energy_j += o.energy_j;
    return *this;
  }
  friend Cost operator+(Cost a, const Cost& b) { return a += b; }
  friend bool operator==(const Cost&, const Cost&) = default;
};

} // namespace lightsim::ir
