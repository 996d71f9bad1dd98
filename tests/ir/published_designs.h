// What the published designs' tests (published_*_test.cc) share: a config of configs/published/, its PHU, and
// the linear layers of DeiT-T / S / B and BERT-B that each design's cycle count is checked on. It is not a
// fixture of any design's figures: each test states its own.
#pragma once

#include "ir/hardware/hardware.h"
#include "tests/test_support.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace lightsim::test {

// configs/published/<name>-<bits>bit.json.
inline ir::Hardware published_config(const std::string& name, int bits) {
  return ir::load_hardware(
      source_path("configs/published/" + name + "-" + std::to_string(bits) + "bit.json"));
}

inline const ir::Unit& published_phu(const ir::Hardware& hw) {
  return hw.units[static_cast<std::size_t>(hw.find_unit("phu0"))];
}

// An m x k by k x n GEMM, and a trace line naming it.
struct LinearLayer {
  std::int64_t m = 0, k = 0, n = 0;
  std::string name() const {
    return "m " + std::to_string(m) + ", k " + std::to_string(k) + ", n " + std::to_string(n);
  }
};

// Calls f(layer) for the projections of a transformer layer of hidden d (qkv d -> 3d, proj d -> d, FFN1
// d -> 4d, FFN2 4d -> d) for d = 192, 384, 768 (DeiT-T / S / B; BERT-B: 768) at each of `tokens`.
template <class F> void for_each_linear_layer(std::initializer_list<std::int64_t> tokens, F&& f) {
  for (const std::int64_t d : {192, 384, 768})
    for (const std::int64_t m : tokens)
      for (const auto& [k, n] :
           {std::pair{d, 3 * d}, std::pair{d, d}, std::pair{d, 4 * d}, std::pair{4 * d, d}})
        f(LinearLayer{m, k, n});
}

} // namespace lightsim::test
