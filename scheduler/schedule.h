// Schedule: when and where every op and transfer runs, as predicted by the list scheduler from the
// arithmetic model (and, with the same layout, as observed in the SystemC replay). Times in seconds
// from the start of the inference step.
#pragma once

#include "ir/energy.h"
#include "ir/graph.h"

#include <cstdint>
#include <vector>

namespace lightsim::sched {

struct ScheduledOp {
  ir::OpId op = -1;
  int unit = -1;
  int lane = -1; // core / stream / array of the unit; -1 for inputs (resident, no lane)
  double start_s = 0, end_s = 0;
  double energy_j = 0;
  // Observed only (the SystemC replay): operand bytes the op found in a spill memory because its unit's
  // SRAM was full. 0 in predictions.
  double spilled_bytes = 0;
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
};

struct UnitUsage {
  double busy_s = 0;           // lane-seconds busy, summed over lanes
  double dynamic_energy_j = 0; // ops placed here
  double static_energy_j = 0;  // static power x makespan
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
};

} // namespace lightsim::sched
