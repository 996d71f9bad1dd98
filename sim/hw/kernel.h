// The SystemC kernel as lightsim uses it: fresh_simulation() gives the caller a new, empty simulation
// context at a 1 ps time resolution, with the copyright banner and SystemC's informational reports
// (e.g. the line sc_stop prints) kept off stdout. Call it before creating any module of a run.
//
// A used context cannot run again (SystemC elaborates once), and deleting one crashes, so each replaced
// context is deliberately kept alive, reachable from a static list (LeakSanitizer sees no leak; the
// cost is tens of kilobytes per run).
//
// It is not a simulation driver: it starts nothing (the replay calls sc_start) and owns no module.
#pragma once

namespace lightsim::sim {

void fresh_simulation();

} // namespace lightsim::sim
