// Machine: the SystemC modules of one ir::Hardware, created and wired from the config alone: one unit
// module per unit (its kind's, sim/hw/unit_modules.h) bound to its memory, one MainMemory or Sram per memory
// (an SRAM's spill port bound to its spill_to memory), one Link per link. Units and links report to the
// exports given to the constructor (the replay's dispatcher).
//
// It is not the replay: it owns no graph and starts nothing.
#pragma once

#include "sim/hw/interfaces.h"
#include "sim/hw/link.h"
#include "sim/hw/memory.h"
#include "sim/hw/unit.h"

#include <memory>
#include <systemc>
#include <vector>

namespace lightsim::sim {

class Machine {
public:
  Machine(const ir::Hardware& hw, OpDoneIf& op_done, HopDoneIf& hop_done);

  UnitModule& unit(int i) { return *units_[i]; }
  MainMemory& memory(int i) { return *memories_[i]; }
  Link& link(int i) { return *links_[i]; }
  std::size_t num_units() const { return units_.size(); }
  std::size_t num_links() const { return links_.size(); }

private:
  std::vector<std::unique_ptr<MainMemory>> memories_;
  std::vector<std::unique_ptr<UnitModule>> units_;
  std::vector<std::unique_ptr<Link>> links_;
};

} // namespace lightsim::sim
