// SramResidency: which tensors a full SRAM pushes into its spill memory over a predicted run, and what
// reading or writing them there costs, so that the list scheduler charges the spills the SystemC replay
// makes. It keeps the replay's rule (sim/hw/memory.h, sim/replay/dispatcher.cc): an SRAM is a byte count;
// a tensor copy that does not fit whole when it is allocated goes to the SRAM's spill_to memory and stays
// there; the prefetch buffers are reserved first, inputs are placed at the start (in op order), an op's
// outputs when it starts (a view's take no bytes), a copy for each other memory where a consumer runs when
// its producer ends; a copy is released when its last reader ends (the home copy also waits for its
// transfers and loads; graph outputs are never released). An op that reads or writes a spilled copy pays
// those bytes at the spill memory: its latency and bandwidth in time, its energy per byte.
//
// It is not an allocator of addresses, and it does not model the replay's spill fetches (a spilled input
// fetched ahead by the consumer's load stage, then read at the SRAM's rate): the op pays the spill memory.
#pragma once

#include "ir/energy.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "scheduler/load_stage.h"

#include <vector>

namespace lightsim::sched {

// What one op reads and writes in a spill memory.
struct OpSpill {
  double spilled_bytes = 0; // operand bytes in a spill memory (inputs read there, outputs placed there)
  double operand_bytes = 0; // all its operand bytes, as the replay counts them
  int spill_memory = -1;    // the memory they are in (the last one, as the replay charges)
};

// An op's extra time and energy for its spilled operands, on `unit`, whose model time is model_time_s.
// traffic_bytes: the spilled share of the op's traffic (an attention op's is FlashAttention's, scaled as
// the modules scale it). The time is the spill memory's access (latency + bytes / bandwidth), less what its
// home memory would have taken for them when that memory bounds the op (the modules time a memory-bound
// op by its home bytes).
struct SpillCharge {
  double traffic_bytes = 0;
  double time_s = 0;
  double energy_j = 0;
};
SpillCharge spill_charge(const ir::Hardware& hw, int unit, const ir::Op& op, double model_time_s,
                         const OpSpill& spill);
// Moves an op's spilled traffic (schedule's spill_memory and spill_traffic_bytes) from its unit's memory's
// energy component to the spill memory's in `energy`, as the modules charge it (the home part is taken
// down at most to zero).
void add_spill_energy(const ir::Hardware& hw, int unit, int spill_memory, double traffic_bytes,
                      ir::EnergyBreakdown& energy);

class SramResidency {
public:
  // True when some SRAM of hw can spill (kind sram with a spill_to): otherwise nothing here changes a
  // schedule, and a scheduler need not build one.
  static bool needed(const ir::Hardware& hw);

  // memory_of_op: the memory of each op's unit. loads: the ops' load-stage fetches (plan_loads).
  SramResidency(const ir::Graph& graph, const ir::Hardware& hw, std::vector<int> memory_of_op,
                const LoadPlan& loads);

  // The run's start: every unit's prefetch buffers, then every Input op's outputs in op order.
  void start_run();
  // `op` starts: its outputs are allocated; what it reads and writes in a spill memory.
  OpSpill start(ir::OpId op);
  // `op` ended: the copies it read lose a reader, its outputs without readers are released, and a copy of
  // each output is allocated in every other memory where a consumer runs (the transfers start).
  void end(ir::OpId op);
  // A transfer of `t` (to another memory, or into a load stage's buffers) has arrived: the home copy has one
  // reader fewer.
  void transfer_ended(ir::TensorId t);

  double spilled_bytes() const { return spilled_bytes_; } // bytes placed in a spill memory so far

private:
  struct Copy {
    int memory = -1, placed = -1, refs = 0;
  };
  int allocate(int memory, double bytes);
  void release(const Copy& c, double bytes);
  Copy& copy_read(ir::OpId op, ir::TensorId t); // the copy op reads t from (not for loaded weights)
  void produce(ir::OpId op);
  double bytes_of(ir::TensorId t) const; // a view's home copy takes none

  const ir::Graph& graph_;
  const ir::Hardware& hw_;
  std::vector<int> memory_of_op_;
  const LoadPlan& loads_;
  std::vector<std::vector<ir::TensorId>> inputs_; // per op: its distinct inputs, sorted
  std::vector<std::vector<ir::OpId>> consumers_;  // per tensor: distinct consumers, in op order
  std::vector<Copy> home_;                        // per tensor
  std::vector<std::vector<Copy>> copies_;         // per tensor: one per other memory a consumer is in
  std::vector<double> used_;                      // per memory
  double spilled_bytes_ = 0;
};

} // namespace lightsim::sched
