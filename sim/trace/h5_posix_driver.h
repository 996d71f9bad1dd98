// A POSIX HDF5 file driver (VFD) that never reports an I/O error to HDF5: it records the first failing
// call (errno and operation) in an IoStatus and pretends success. Internal to the trace writer.
//
// Why: HDF5 1.10 cannot recover from a failed write. Once a write fails, every later flush and close
// fails too, the file's ID stays registered, and the library's own shutdown then crashes (segfault in
// H5F__close_cb at exit). With this driver HDF5 always closes cleanly; the writer checks IoStatus after
// each chunk and after closing, and on failure deletes the file and reports the recorded errno.
// Files it writes are ordinary HDF5 files (no driver info in the superblock), read with any driver.
//
// It is not an error handler: it reports nothing itself (the trace writer turns the recorded IoStatus into
// an error), and lightsim does not read files through it.
#pragma once

#include <H5Cpp.h>
#include <stdexcept>
#include <string>

namespace lightsim::sim::h5 {

struct IoStatus {
  int error = 0;         // errno of the first failure, 0 if none
  std::string operation; // "write", "read", "truncate", "close"
  bool failed() const { return error != 0; }
};

// Thrown by the writer when it sees a recorded failure, to stop writing early.
struct IoFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file-access property list that opens files with the driver and records into `status`, which must
// outlive every file opened with it.
H5::FileAccPropList posix_driver_fapl(IoStatus* status);

} // namespace lightsim::sim::h5
