// Model trace: writes a retrain report (sim/retrain/retrain_loop.h) into the /model group of an HDF5 trace,
// so the fit and its errors before and after can be read (and plotted, scripts/plot_fit.py) from the trace
// alone. Every value is copied from the report; nothing is recomputed here. Layout: traces/README.md.
//
// It is not the trace writer: it fills the group that sim::write_trace hands it (TraceInputs::model),
// inside that writer's atomic write.
#pragma once

#include "sim/retrain/retrain_loop.h"

#include <span>

namespace H5 {
class Group;
}

namespace lightsim::sim {
namespace h5 {
struct IoStatus;
}

// `inputs` are the graphs the report was made from, in the same order (for op classes and labels).
// Throws std::invalid_argument when they do not match the report (a caller bug).
void write_model_group(const H5::Group& model, const fit::RetrainReport& report,
                       std::span<const fit::RetrainInput> inputs, const h5::IoStatus* io);

} // namespace lightsim::sim
