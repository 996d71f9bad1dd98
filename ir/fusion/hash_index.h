// Hash64 and HashIndex: the fusion pass's 64-bit hash of a fused function's identity and an open-addressing
// table from such hashes to small integers. Two functions whose keys collide (probability about n^2 / 2^65
// for n distinct functions: below 1e-10 for Llama-2-70B's few thousand groups) would share a name; nothing
// else depends on the hash. It is not a general-purpose container.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace lightsim::ir::fusion {

// A 64-bit hash of what identifies a fused function or a body: a multiply-xorshift per word (after
// splitmix64), strings through std::hash (a word per string, not a multiply per byte: the pass names
// thousands of functions).
struct Hash64 {
  std::uint64_t value = 0x9e3779b97f4a7c15ULL;
  void add(std::uint64_t v) {
    std::uint64_t z = (value ^ v) * 0xbf58476d1ce4e5b9ULL;
    value = z ^ (z >> 31);
  }
  void add(std::string_view text) { add(static_cast<std::uint64_t>(std::hash<std::string_view>{}(text))); }
};

// An open-addressing table from 64-bit hashes to small integers (linear probing, power-of-two size, never
// more than half full): the pass looks a name up per group, and node-based hash maps cost more than the
// rest of the pass.
class HashIndex {
public:
  explicit HashIndex(std::size_t expected = 16) {
    std::size_t size = 16;
    while (size < 2 * expected)
      size *= 2;
    slots_.assign(size, {0, -1});
  }
  // The value stored under `key`, or -1; with `insert`, stores `value` when the key is new.
  std::int32_t find_or_insert(std::uint64_t key, std::int32_t value, bool insert = true) {
    key |= 1; // 0 marks an empty slot
    if (insert && 2 * (count_ + 1) > slots_.size()) grow();
    for (std::size_t i = key & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].first == key) return slots_[i].second;
      if (slots_[i].first == 0) {
        if (!insert) return -1;
        slots_[i] = {key, value};
        ++count_;
        return -1;
      }
    }
  }

private:
  void grow() {
    std::vector<std::pair<std::uint64_t, std::int32_t>> old(slots_.size() * 2, {0, -1});
    old.swap(slots_);
    count_ = 0;
    for (const auto& [key, value] : old)
      if (key) find_or_insert(key, value);
  }
  std::vector<std::pair<std::uint64_t, std::int32_t>> slots_;
  std::size_t count_ = 0;
};

} // namespace lightsim::ir::fusion
