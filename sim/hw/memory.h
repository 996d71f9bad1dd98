// Memory modules: MainMemory (HBM or DRAM: bandwidth + latency, capacity tracked but not enforced) and
// Sram (capacity enforced: a tensor that does not fit is placed in the memory bound to its `spill` port,
// the config's spill_to, and every access to it then pays that memory's bandwidth and latency).
// Parameters come only from ir::Memory. Banks are not modelled beyond the total bandwidth.
//
// They are not contention models: concurrent accesses are timed independently (the CPU's shared memory
// port and the links are where sharing is simulated).
#pragma once

#include "sim/hw/interfaces.h"

#include <systemc>

namespace lightsim::sim {

// latency_ns + bytes / bandwidth (0 for 0 bytes).
double access_ns(const ir::Memory& memory, double bytes);

class MainMemory : public sc_core::sc_module, public MemoryIf {
public:
  sc_core::sc_export<MemoryIf> target;

  MainMemory(sc_core::sc_module_name name, const ir::Memory& params, int index);

  const ir::Memory& params() const override { return params_; }
  int index() const override { return index_; }
  int allocate(double bytes) override;
  void release(int memory, double bytes) override;

  double access_ns(double bytes) const { return sim::access_ns(params_, bytes); }
  double used_bytes() const { return used_; }
  double peak_bytes() const { return peak_; }

protected:
  ir::Memory params_;
  int index_;
  double used_ = 0, peak_ = 0;
};

class Sram : public MainMemory {
public:
  // Bound to the spill_to memory's target when the config names one.
  sc_core::sc_port<MemoryIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> spill;

  Sram(sc_core::sc_module_name name, const ir::Memory& params, int index);

  int allocate(double bytes) override;
  void release(int memory, double bytes) override;

  bool fits(double bytes) const { return used_ + bytes <= params_.capacity_bytes; }
  double spilled_bytes() const { return spilled_; }   // total placed in spill_to
  double overflow_bytes() const { return overflow_; } // over capacity with nowhere to spill

private:
  double spilled_ = 0, overflow_ = 0;
};

} // namespace lightsim::sim
