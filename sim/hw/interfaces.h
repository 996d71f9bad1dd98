// The SystemC interfaces that join lightsim's modules: a dispatcher starts ops on units (UnitIf) and hops
// of transfers on links (LinkIf); units and links report back through OpDoneIf / HopDoneIf; units and
// SRAMs reach their memory through MemoryIf. Each is an sc_interface so that the wiring is made of
// sc_port / sc_export bindings that SystemC checks at elaboration.
//
// It is not a transaction protocol: calls are plain interface-method calls, timed by the callee.
#pragma once

#include "ir/energy.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"

#include <cstdint>
#include <systemc>

namespace lightsim::sim {

// What a unit needs to time one op: its shape features, the fused tail, and where its operand bytes sit.
struct OpWork {
  ir::OpId op = -1;
  int lane = -1;
  const ir::Op* desc = nullptr;
  double home_bytes = 0;             // operand bytes (inputs + outputs) in the unit's own memory
  double spill_bytes = 0;            // operand bytes that spilled to a slower memory
  const ir::Memory* spill = nullptr; // that memory (when spill_bytes > 0)
};

class OpDoneIf : public virtual sc_core::sc_interface {
public:
  // The op's energy by component (its sum is the op's energy).
  virtual void op_done(ir::OpId op, int lane, const ir::EnergyBreakdown& energy) = 0;
};

class UnitIf : public virtual sc_core::sc_interface {
public:
  virtual void start(const OpWork& work) = 0; // at the current simulation time
};

class HopDoneIf : public virtual sc_core::sc_interface {
public:
  virtual void hop_done(std::uint64_t token, double energy_j) = 0;
};

class LinkIf : public virtual sc_core::sc_interface {
public:
  // Sends `bytes` of payload out of port `port` (the sender, endpoints[port]) at the current time. It holds
  // the port as `occupancy` x bytes would (a shard's peers' copies beside it, ir::Route::copies; a
  // collective library's copies that reach a share of the rate, 1 / bandwidth_efficiency); its energy and
  // the link's byte count are those of `bytes`.
  virtual void send(std::uint64_t token, std::uint64_t bytes, int port, double occupancy) = 0;
};

class MemoryIf : public virtual sc_core::sc_interface {
public:
  virtual const ir::Memory& params() const = 0;
  virtual int index() const = 0; // in Hardware::memories
  // Places a tensor; returns the index of the memory that holds it (this one, or where it spilled to).
  virtual int allocate(double bytes) = 0;
  virtual void release(int memory, double bytes) = 0;
};

} // namespace lightsim::sim
