// Atomic file output: a file appears under its final name complete or not at all. The content is written
// to a temporary file beside the target (same directory, so the rename cannot cross file systems) and
// renamed into place; on any failure the temporary is removed and InputError names the target.
//
// It is not for HDF5 files (the HDF5 library writes those itself; see sim/trace/trace_writer.cc).
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace lightsim {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::string& path, const std::string& text);

} // namespace lightsim
