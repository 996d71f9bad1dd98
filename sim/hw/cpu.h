// Cpu: `cores` lanes sharing one memory port, from ir::Unit (clock_ghz, cores) and ir::CpuParams.
// An op computes for (MACs + element ops) / (clock x vector_width x (fma ? 1 : 0.5) x compute_efficiency)
// on one core while its operand bytes stream through the port; ops in flight share the port's bandwidth
// (FairShare). The op ends when both are done, plus dispatch_ns and the fetch of any spilled operands.
// Energy (op_energy): `compute` = dynamic_power_w x the op's duration (a core is busy, stalled or not, from
// dispatch to end) + operand bytes x the memory's energy per byte under its access component.
//
// It is not a cache or out-of-order model.
#pragma once

#include "scheduler/fair_share.h"
#include "sim/hw/slot_pool.h"
#include "sim/hw/unit.h"

#include <vector>

namespace lightsim::sim {

class Cpu : public UnitModule {
public:
  SC_HAS_PROCESS(Cpu);
  Cpu(sc_core::sc_module_name name, const ir::Unit& params);

  // Pure timing (one op alone on the CPU).
  double ops_per_ns() const; // per core
  double compute_ns(const ir::Op& op) const;
  double port_ns(double bytes) const;
  double op_ns(const OpWork& work) const; // max(compute, port) + dispatch + spill
  // Energy of an op that took `duration_ns` (the timing's result).
  ir::EnergyBreakdown op_energy(const OpWork& work, double duration_ns) const;

  void start(const OpWork& work) override;

private:
  struct InFlight {
    OpWork work;
    std::uint64_t start_ps, compute_end_ps;
  };
  void serve_port(); // SC_METHOD: a port flow may have finished
  void settle(std::uint64_t now);
  void finish(std::size_t slot, std::uint64_t port_done_ps);

  sched::FairShare port_;
  SlotPool<InFlight> slots_;
  std::vector<std::uint64_t> finished_;
  sc_core::sc_event port_event_;
};

} // namespace lightsim::sim
