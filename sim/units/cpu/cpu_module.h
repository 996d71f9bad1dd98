// Cpu: the CPU kind's SystemC module: `cores` cores running ops, from ir::Unit (clock_ghz, cores) and
// CpuParams; the work counts and the time of an op alone are cpu_work.h's (cpu_work, cpu_alone_ns), shared
// with the arithmetic model's features and with calibration.
// - A GEMM packs its operands, then computes (the times add, as in a single-thread Eigen GEMM); other ops
//   stream their operands while they compute (the larger time counts).
// - Operands stream at the rate of the innermost cache level that holds the op's working set (its operand
//   bytes), else from memory: per core at most the level's bandwidth_GBps (core_memory_GBps for memory).
// - A GEMM the runtime splits over k cores (intra_op_*) holds k lanes (the dispatcher gives them), computes
//   its rows in blocks (intra_op_row_block: the busiest core, the last, sets the compute time) and streams
//   its bytes as k flows, plus intra_op_sync_ns.
// - Flows from a shared level (a cache with shared_GBps, memory through memory_port_GBps) share that rate
//   with every other op's flows from it in flight (FairShare, each flow capped at the per-core rate).
// The op ends after that, plus dispatch_ns and the fetch of any spilled operands.
// Energy (op_energy): `compute` = dynamic_power_w x the op's duration x the cores it holds (a core is busy,
// stalled or not, from dispatch to end) + operand bytes x the memory's energy per byte under its access
// component.
//
// It is not a cache simulator (no reuse between ops, no replacement) nor an out-of-order core model.
#pragma once

#include "scheduler/fair_share.h"
#include "sim/hw/slot_pool.h"
#include "sim/hw/unit.h"
#include "sim/units/cpu/cpu_work.h"

#include <optional>
#include <vector>

namespace lightsim::units {

class Cpu : public sim::UnitModule {
public:
  SC_HAS_PROCESS(Cpu);
  Cpu(sc_core::sc_module_name name, const ir::Unit& params);

  // Pure timing (one op alone on the CPU).
  CpuWork work_of(const sim::OpWork& work) const;   // the op's home bytes are its working set
  double compute_ns(const sim::OpWork& work) const; // on each of its cores
  double op_ns(const sim::OpWork& work) const;      // cpu_alone_ns + spill
  // Energy of an op that held `cores` cores for `duration_ns` (the timing's result).
  ir::EnergyBreakdown op_energy(const sim::OpWork& work, double duration_ns, int cores) const;

  void start(const sim::OpWork& work) override;

private:
  struct InFlight {
    sim::OpWork work;
    CpuWork cpu;
    double compute_ns = 0;
    std::uint64_t start_ps = 0;
    int flows_left = 0; // flows of this op still in a shared port
  };
  void serve_ports(); // SC_METHOD: a flow may have finished
  void settle(std::uint64_t now);
  void memory_done(std::size_t slot, std::uint64_t now); // the op's operands have streamed
  void arm(std::uint64_t now);

  std::vector<std::optional<sched::FairShare>> ports_; // per level (caches, then memory): shared ones
  sim::SlotPool<InFlight> slots_;
  std::vector<std::uint64_t> finished_;
  sc_core::sc_event port_event_{"port_event"};
};

} // namespace lightsim::units
