// Schedule: when and where every op and transfer runs, as predicted by the list scheduler from the
// arithmetic model (and, with the same layout, as observed in the SystemC replay). Times in seconds
// from the start of the inference step.
//
// It is not the scheduler: plain data that the list scheduler (scheduler/list_scheduler.h) or the replay
// fills and the check and trace writer read; the placement it follows is the FlatGraph's.
#pragma once

#include "ir/energy.h"
#include "ir/graph.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lightsim::sched {

struct ScheduledOp {
  ir::OpId op = -1;
  int unit = -1;
  int lane = -1; // core / stream / array of the unit; -1 for inputs (resident, no lane)
  double start_s = 0, end_s = 0;
  double energy_j = 0;
  // Operand bytes the op found in (or wrote to) a spill memory because an SRAM was full: observed by the
  // SystemC replay, predicted by the list scheduler (scheduler/sram_residency.h).
  double spilled_bytes = 0;
  // Latency hiding (scheduler/load_stage.h). Last, so positional initialisers of the fields above stay
  // valid.
  double inputs_ready_s = 0;               // when its last data input (its load apart) was in its memory
  double load_bytes = 0;                   // bytes its unit's load stage fetched for it (0: no load)
  double load_start_s = 0, load_end_s = 0; // when that load was issued and when it had arrived
  int load_order = -1;                     // its place in its unit's load program (-1: no load stage)
  // Predicted spills (list scheduler): the spill memory and the op's traffic charged there (-1, 0: none).
  int spill_memory = -1;
  double spill_traffic_bytes = 0;
};

// A tensor moved from its producer's memory to a consumer's memory (once per destination memory, however
// many consumers read it there; dst_op is the consumer that first needed it).
struct ScheduledTransfer {
  ir::TensorId tensor = -1;
  ir::OpId src_op = -1; // producer
  ir::OpId dst_op = -1; // the consumer whose need started the transfer
  int src_memory = -1, dst_memory = -1;
  std::vector<int> links; // the route
  std::uint64_t bytes = 0;
  double start_s = 0, end_s = 0;
  double energy_j = 0;
  // When the tensor entered and left each link of the route (store and forward; a hop may wait for its
  // link). Empty when not recorded. Last, so positional initialisers of the fields above stay valid.
  std::vector<double> hop_start_s{}, hop_end_s{};
  // Fetched by dst_op's load stage into its prefetch buffers (scheduler/load_stage.h): the copy is dst_op's
  // alone and lives until dst_op ends. Otherwise sent when produced, shared by every consumer there.
  bool load = false;
};

struct UnitUsage {
  double busy_s = 0;           // lane-seconds busy, summed over lanes
  double dynamic_energy_j = 0; // ops placed here
  double static_energy_j = 0;  // static power x makespan
  // Its load stage (latency hiding), filled by summarise_loads (scheduler/load_stage.h).
  std::size_t loads = 0, oversized_loads = 0;
  double load_bytes = 0;
  double load_busy_s = 0, load_hidden_s = 0, load_stall_s = 0;
};

// One point-to-point send of a collective op's algorithm (recorded by the SystemC replay, which moves a
// collective chunk by chunk; the solver's schedule costs a collective in closed form and has none).
struct CollectiveSend {
  ir::OpId op = -1;
  int src_memory = -1, dst_memory = -1;
  double bytes = 0;
  double start_s = 0, end_s = 0;
};

struct Schedule {
  std::vector<ScheduledOp> ops; // indexed by OpId
  std::vector<ScheduledTransfer> transfers;
  std::vector<UnitUsage> units;          // indexed like Hardware::units
  std::vector<std::uint64_t> link_bytes; // payload bytes per link, indexed like Hardware::links
  std::vector<double> link_busy_s;       // per link
  double makespan_s = 0;
  double energy_j = 0; // ops + transfers + static power of units and memories over the makespan
  // Per op (indexed by OpId), its energy by component (ir/energy.h), summing to ops[i].energy_j. Empty when
  // not recorded: the list scheduler leaves it empty (the Pipeline fills it from the arithmetic model), the
  // SystemC replay fills it from the modules.
  std::vector<ir::EnergyBreakdown> op_energy;
  std::vector<CollectiveSend> collective_sends; // the replay's, in op order
};

} // namespace lightsim::sched
