// LoadStage: the access half of one unit's decoupled access/execute pipeline, after TVM/VTA's load module.
// The unit's ops form its load program, in schedule order, and the stage walks it one op at a time,
// fetching the operands that are not resident in the unit's memory (weights held in another memory,
// activations that spilled out of it) into the unit's prefetch buffers (ir::PrefetchParams: `depth`
// buffers of `buffer_bytes`). A buffer is filled by consecutive loads while they fit: a load of B bytes goes
// into the room the previous load left in the buffer it filled last, when B fits there; otherwise it takes
// ceil(B / buffer_bytes) free buffers, at least one and at most all of them (a load larger than all the
// buffers together takes them all and is counted oversized: the data then lands beyond them), and the room
// left in the last of them is open to the next load. A buffer is free again when every op whose load it
// holds has ended. (So a 2-byte constant does not hold a whole buffer, while a load of exactly one buffer
// fills it: one such buffer admits one load at a time.) The stage issues a load when the previous one has
// arrived (one load in flight: a single DMA engine, loads in order) and there is room for it; an op with
// nothing to load passes at once. The execute stage starts an op only when its own load has arrived (VTA's
// read-after-write token) and releases the op's share of its buffers when the op ends (the write-after-read
// token). So loads run ahead of execution by as much as the buffers hold: that is the prefetch.
//
// Which ops load what, the timing of loads and how they travel is the caller's: the list scheduler
// (scheduler/list_scheduler.cc) and the SystemC replay (sim/replay) drive one LoadStage per unit with
// their own transfers, so that both follow exactly these rules. load_summary() turns what a schedule
// recorded into the per-unit times a report gives: hidden behind compute, and stalled.
//
// It is not a memory allocator (the buffers are reserved in the memory once) and keeps no time.
//
// Why the stages cannot deadlock (with the execute stages of all units): every unit's program is the
// restriction to its ops of one topological order T of the whole graph (op order, or the list scheduler's
// rank order), and buffers are only ever held by ops their program has passed (issue() passes the op it
// loads; issue_aside() refuses the others). Suppose that nothing is in flight any more (no load, transfer or
// op) while some op has not ended, and let Z be the first such op in T. Every op before Z in T has ended,
// so Z's data inputs are there. Were Z's load issued (or had it none), Z would be ready, and with nothing
// running there would be a lane for it. So Z's load is not issued: its stage's cursor is at or before Z.
// The driver pumps after every arrival and every release, so the idle cursor rests at an op with a load
// that does not fit (it passes ops that load nothing); were that op before Z in the program, it would come
// before Z in T and have ended, which it cannot without its load: the cursor is at Z. The ops holding buffers
// were passed, so they come before Z in the program, hence in T: they have ended and released them. All
// buffers are free and Z's load (at most all of them) fits: a contradiction. (Had an out-of-order load been
// allowed for an op not yet passed, it could hold a buffer while waiting for the output of an op whose load
// needs that buffer: a deadlock.)
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "scheduler/schedule.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace lightsim::sched {

class LoadStage {
public:
  // `program`: the unit's ops in the order their loads are issued (a topological order of the graph).
  LoadStage(const ir::PrefetchParams& buffers, std::vector<ir::OpId> program);

  // The op whose load would issue next; -1 while a load is in flight or when the program is done.
  ir::OpId next() const { return busy_ || cursor_ >= program_.size() ? -1 : program_[cursor_]; }
  // Fresh buffers a load of `bytes` takes when it does not fit the open room: ceil(bytes / buffer_bytes),
  // at least 1, at most depth.
  int buffers_for(double bytes) const;
  bool oversized(double bytes) const { return bytes > depth_ * buffer_bytes_; }
  // Whether next()'s load of `bytes` finds room: in the buffer filled last, or in enough free buffers.
  bool fits(double bytes) const;
  // Issues next()'s load of `bytes` (> 0, fits): takes its room; the engine is busy until arrived().
  void issue(double bytes);
  // next() has nothing to load: passes it.
  void skip() { ++cursor_; }
  bool idle() const { return !busy_; }
  // Whether the program has passed `op` (its load issued, or nothing to load): false for ops not in it.
  bool passed(ir::OpId op) const {
    const auto i = static_cast<std::size_t>(op);
    return i < position_.size() && position_[i] < cursor_;
  }
  // A load for `op` out of program order (the replay's fetch of a spilled activation), for an op the
  // program has passed (else std::logic_error): issued only when the engine is idle and there is room for
  // it now; true when issued, and the engine is busy until arrived(). Buffers are thus only ever held by
  // passed ops, whichever way they were loaded: that keeps the stage deadlock-free (see below).
  bool issue_aside(ir::OpId op, double bytes);
  // The load in flight has arrived: the engine takes the next one.
  void arrived() { busy_ = false; }
  // `op` ended: releases its share of every buffer its loads went into (none if it loaded nothing); a
  // buffer no load holds any longer is free.
  void release(ir::OpId op);
  int free_buffers() const;
  const std::vector<ir::OpId>& program() const { return program_; }
  std::size_t cursor() const { return cursor_; } // the index in program() of the next op to pass

  // Walks the program from the current position: passes ops whose bytes_of(op) is 0, and issues the first
  // load that fits by calling start(op, bytes) (which must begin moving it). Stops at a load that does not
  // fit, after issuing one, or at the end.
  template <class BytesOf, class Start> void pump(BytesOf&& bytes_of, Start&& start) {
    for (ir::OpId op = next(); op >= 0; op = next()) {
      const double bytes = bytes_of(op);
      if (bytes <= 0) {
        skip();
        continue;
      }
      if (!fits(bytes)) return;
      issue(bytes);
      start(op, bytes);
      return;
    }
  }

private:
  int depth_;
  double buffer_bytes_;
  std::vector<ir::OpId> program_;
  std::vector<std::size_t> position_; // per op id up to the program's largest: its index in it (or npos)
  std::size_t cursor_ = 0;
  bool busy_ = false;
  std::vector<int> holders_;   // per buffer: loads not yet released with data in it (0: free)
  int open_ = -1;              // the buffer filled last while it has room and holds a load, else -1
  double open_room_bytes_ = 0; // the room left in it
  std::vector<std::pair<ir::OpId, std::vector<int>>> held_; // (op, buffers) of loads not yet released
  bool take(ir::OpId op, double bytes); // places a load of `bytes` for `op`; false when there is no room
};

// The streamed weights each op's load fetches: for an op on a unit with a load stage (ir::has_load_stage),
// every distinct input tensor that is a weight (the output of a parameter input op) held in another memory
// than the op's (the memory of the unit the weight's input op is placed on). Activations and per-run
// inputs are sent when produced, as without latency hiding; an activation that spills is read where it
// spilled (scheduler/sram_residency.h; only the replay fetches it back ahead). unit_of_op: the unit of every
// op (for inputs: where they are held).
struct LoadPlan {
  std::vector<std::vector<ir::TensorId>> tensors; // per op, in input order
  std::vector<double> bytes;                      // per op: their bytes
  bool fetches(ir::OpId op, ir::TensorId t) const {
    return std::find(tensors[op].begin(), tensors[op].end(), t) != tensors[op].end();
  }
};
LoadPlan plan_loads(const ir::Graph& graph, const ir::Hardware& hw, const std::vector<int>& unit_of_op);

// Per unit: what its load stage did in `schedule`, from the ops' load records (ScheduledOp::load_*):
//   loads, load_bytes: loads issued and their bytes; oversized_loads: those larger than all its buffers;
//   load_busy_s:   time some load of the unit was in flight (the union of [load_start_s, load_end_s]);
//   load_hidden_s: of that, the time some lane of the unit was running an op (the load hidden behind
//                  compute);
//   load_stall_s:  summed over its ops, max(0, load_end_s - max(inputs_ready_s, lane free)): the time an op
//                  waited for its own load after its data inputs were there and its lane (the lane it ran
//                  on) was free.
// Fills those fields of schedule.units (which must have one entry per unit of hw).
void summarise_loads(Schedule& schedule, const ir::Hardware& hw);

} // namespace lightsim::sched
