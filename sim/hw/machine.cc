#include "sim/hw/machine.h"

#include "sim/hw/unit_modules.h"

#include <cctype>
#include <stdexcept>
#include <string>

namespace lightsim::sim {

namespace {
// SystemC object names may not contain '.' or spaces; keep them recognisable.
std::string module_name(const char* prefix, std::size_t index, const std::string& name) {
  std::string out = std::string(prefix) + std::to_string(index) + "_";
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}
} // namespace

Machine::Machine(const ir::Hardware& hw, OpDoneIf& op_done, HopDoneIf& hop_done) {
  for (std::size_t i = 0; i < hw.memories.size(); ++i) {
    const ir::Memory& m = hw.memories[i];
    const std::string name = module_name("mem", i, m.name);
    if (m.kind == ir::MemoryKind::Sram)
      memories_.push_back(std::make_unique<Sram>(name.c_str(), m, static_cast<int>(i)));
    else
      memories_.push_back(std::make_unique<MainMemory>(name.c_str(), m, static_cast<int>(i)));
  }
  for (std::size_t i = 0; i < hw.memories.size(); ++i) {
    if (hw.memories[i].kind != ir::MemoryKind::Sram || hw.memories[i].spill_to < 0) continue;
    static_cast<Sram&>(*memories_[i]).spill.bind(memories_.at(hw.memories[i].spill_to)->target);
  }
  for (std::size_t i = 0; i < hw.units.size(); ++i) {
    const ir::Unit& u = hw.units[i];
    const std::string name = module_name("unit", i, u.name);
    units_.push_back(make_unit_module(name.c_str(), u));
    if (u.memory < 0 || static_cast<std::size_t>(u.memory) >= memories_.size())
      throw std::invalid_argument("unit " + u.name + " has no memory");
    units_.back()->memory.bind(memories_[u.memory]->target);
    units_.back()->done.bind(op_done);
  }
  for (std::size_t i = 0; i < hw.links.size(); ++i) {
    links_.push_back(std::make_unique<Link>(module_name("link", i, hw.links[i].name).c_str(), hw.links[i]));
    links_.back()->done.bind(hop_done);
  }
}

} // namespace lightsim::sim
