// calibrate command: what `lightsim-calibrate` and `lightsim --retrain out.json --measured a.h5 ...` do.
// Reads lightsim-profile measurement files (repeated profiles of one graph merge into per-op minima),
// fits the CPU unit's arithmetic model and its SystemC module parameters to them (for --unit gpu files, the
// GPU unit's arithmetic model only) (sim/profile/calibrate.h), prints a line per fitted entry and one for the
// module, and writes the new config atomically (never over the base config).
//
// It is not the fit; it wires the fit to files.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace lightsim {

struct CalibrateCommand {
  std::string base_path;               // hardware config to start from
  std::string output;                  // calibrated config to write
  std::string unit_name;               // unit to calibrate; empty: the first of the measured kind
  std::string name;                    // of the new config; empty: measured-<base name>
  std::string target = "in-graph-min"; // in-graph | in-graph-min | isolated
  std::vector<std::string> measurements;
};

// Throws InputError on bad input (missing or foreign measurement files, no CPU unit, output == base).
void run_calibrate(const CalibrateCommand& command, std::ostream& out);

} // namespace lightsim
