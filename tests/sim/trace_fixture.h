// A small hand-made machine, graph and pair of schedules (predicted, simulated) for the check and trace
// tests; every number is chosen so that expected results can be worked out by hand (see the .cc).
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "scheduler/schedule.h"

namespace lightsim::test {

struct TraceFixture {
  ir::Hardware hw;
  ir::Graph graph;
  sched::Schedule predicted, simulated;
};

// Units: 0 "cpu0" (2 cores, memory "dram"), 1 "gpu0" (1 stream, memory "hbm"); link 0 "pcie0".
// Ops: 0 x, 1 w (Input); 2, 3, 7 dense on gpu0; 4 add, 5 relu, 6 nop on cpu0.
TraceFixture make_trace_fixture();

// n ops alternating between the two units, realistic TVM-like names, for large-trace tests and benches.
TraceFixture make_large_fixture(std::size_t n, bool simulated);

} // namespace lightsim::test
