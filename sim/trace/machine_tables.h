// The trace's machine tables (traces/README.md): /units, per unit its kind, lanes, memory, busy time,
// utilisation and energy in both schedules, its pipeline stage and the device it mirrors in a parallel plan,
// and its load stage's work; /links, per link its endpoints, bandwidth, and bytes and busy time in both
// schedules. An internal part of the trace writer: include it only from its .cc files.
//
// It is not where those figures are computed: it writes what the schedules record.
#pragma once

#include "sim/trace/h5_table.h"
#include "sim/trace/trace_writer.h"

namespace lightsim::sim {

void write_units(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io);
void write_links(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io);

} // namespace lightsim::sim
