#include "sim/hw/memory.h"

#include <algorithm>

namespace lightsim::sim {

double access_ns(const ir::Memory& memory, double bytes) {
  if (bytes <= 0) return 0;
  return memory.latency_ns + bytes / memory.bandwidth_GBps;
}

MainMemory::MainMemory(sc_core::sc_module_name name, const ir::Memory& params, int index)
    : sc_core::sc_module(name), target("target"), params_(params), index_(index) {
  target.bind(*this);
}

int MainMemory::allocate(double bytes) {
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  return index_;
}

void MainMemory::release(int /*memory*/, double bytes) {
  used_ -= bytes;
}

Sram::Sram(sc_core::sc_module_name name, const ir::Memory& params, int index)
    : MainMemory(name, params, index), spill("spill") {}

int Sram::allocate(double bytes) {
  if (fits(bytes)) return MainMemory::allocate(bytes);
  if (spill.size() > 0) {
    spilled_ += bytes;
    return spill->allocate(bytes);
  }
  overflow_ += bytes;
  return MainMemory::allocate(bytes);
}

void Sram::release(int memory, double bytes) {
  if (memory == index_)
    MainMemory::release(memory, bytes);
  else
    spill->release(memory, bytes);
}

} // namespace lightsim::sim
