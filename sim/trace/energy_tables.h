// The trace's energy tables (traces/README.md): /op_energy, every op's energy by component, predicted and
// simulated; /energy_totals, per unit, memory and link, its energy by component
// (sim/check/energy_breakdown.h). An internal part of the trace writer: include it only from its .cc files.
//
// It is not where energy is computed: it writes what the schedules record.
#pragma once

#include "sim/trace/h5_table.h"
#include "sim/trace/trace_writer.h"

namespace lightsim::sim {

void write_energy_tables(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io);

} // namespace lightsim::sim
