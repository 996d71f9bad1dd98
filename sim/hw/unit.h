// UnitModule: what the CPU, GPU and photonic MAC array modules share: the sockets (a target for the
// dispatcher, a port back to it, a port to the unit's memory) and a completion queue that reports each
// op at its end time. Derived modules decide when an op ends (their timing model) and call finish_at().
//
// It is not a scheduler: the dispatcher picks the lane; a unit runs whatever it is given.
#pragma once

#include "sim/hw/interfaces.h"
#include "sim/hw/slot_pool.h"

#include <cstdint>
#include <systemc>
#include <vector>

namespace lightsim::sim {

// Element operations of an op besides its MACs (ir::OpFeatures::elementwise_ops): the whole op for a
// non-GEMM op, plus those of its fused tail. Nop (a view) does no work.
double elementwise_ops(const ir::Op& op);
// What the unit's memory moves for `work`: the replay counts every operand once (inputs read, outputs
// written); fused attention instead moves FlashAttention's traffic for the unit's on-chip memory
// (ir/cost/unit_work.h), split between the home and the spill memory in the same proportion.
OpWork memory_traffic(const OpWork& work, const ir::Unit& unit);
// True when the op has a GEMM view (dense, batch_matmul, conv2d with shapes).
bool has_gemm(const ir::Op& op);
// Time to fetch the spilled operand bytes from the slower memory (0 when nothing spilled).
double spill_ns(const OpWork& work);
// Energy of moving the operand bytes in and out of their memories, under each memory's access component
// (sram, hbm, dram: ir::memory_component), the spilled bytes under their spill memory's.
ir::EnergyBreakdown operand_energy(const OpWork& work, const ir::Memory& home);

class UnitModule : public sc_core::sc_module, public UnitIf {
public:
  sc_core::sc_export<UnitIf> target;
  sc_core::sc_port<OpDoneIf> done;
  sc_core::sc_port<MemoryIf> memory;

  SC_HAS_PROCESS(UnitModule);
  UnitModule(sc_core::sc_module_name name, const ir::Unit& params);
  const ir::Unit& params() const { return params_; }

protected:
  // Reports `work` done at absolute time end_ps (>= now) with its energy.
  void finish_at(std::uint64_t end_ps, const OpWork& work, const ir::EnergyBreakdown& energy);

  ir::Unit params_;

private:
  // An op in flight: small, so that the heap moves little; its energy waits in a slot until it completes.
  struct Pending {
    std::uint64_t end_ps, seq;
    ir::OpId op;
    int lane;
    std::size_t energy; // slot in energies_
    bool operator>(const Pending& o) const { return end_ps != o.end_ps ? end_ps > o.end_ps : seq > o.seq; }
  };
  void complete();            // SC_METHOD
  std::vector<Pending> heap_; // min-heap on (end_ps, seq)
  SlotPool<ir::EnergyBreakdown> energies_;
  std::uint64_t seq_ = 0;
  sc_core::sc_event complete_event_{"complete_event"};
};

} // namespace lightsim::sim
