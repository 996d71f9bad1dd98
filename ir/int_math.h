// Integer arithmetic that tile, wave and block counts share: how many blocks of b cover a.
//
// It is not a numerics library: the counts are non-negative and fit in 64 bits.
#pragma once

#include <cstdint>

namespace lightsim {

// ceil(a / b) for a >= 0; 0 when b is not positive (nothing to divide into).
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return b > 0 ? (a + b - 1) / b : 0;
}

} // namespace lightsim
