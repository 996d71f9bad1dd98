// SlotPool: storage for what a module has in flight (ops on a CPU, transfers on a link), each addressed by a
// stable index that is reused once released, so the replay's steady state allocates nothing per op.
//
// It is not a queue: order is the owner's business (scheduler/fair_share.h keeps it for shared bandwidth).
#pragma once

#include <cstddef>
#include <vector>

namespace lightsim::sim {

template <class T> class SlotPool {
public:
  std::size_t acquire(T value) {
    if (free_.empty()) {
      items_.push_back(std::move(value));
      return items_.size() - 1;
    }
    const std::size_t slot = free_.back();
    free_.pop_back();
    items_[slot] = std::move(value);
    return slot;
  }
  // The slot's value stays readable until the next acquire.
  void release(std::size_t slot) { free_.push_back(slot); }

  T& operator[](std::size_t slot) { return items_[slot]; }
  const T& operator[](std::size_t slot) const { return items_[slot]; }

private:
  std::vector<T> items_;
  std::vector<std::size_t> free_;
};

} // namespace lightsim::sim
