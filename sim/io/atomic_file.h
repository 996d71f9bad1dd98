// Atomic output files, the one mechanism behind every file the tools write (traces, measurement files,
// configs, reports, Chrome traces, lightsim-graph's graphs): a file appears under its final name complete or
// not at all, and an existing file of that name is replaced only by a complete one.
//
// AtomicOutput creates a new temporary file beside the target ("<name>.tmp-<pid>-<n>" in the same
// directory, so the rename cannot cross file systems; created exclusively, so two writers never share one).
// The caller writes it (through stream(), or by path: the HDF5 library opens temp_path() itself); commit()
// flushes it to disk and renames it over the target. Destroyed without a commit (an exception, an early
// return), it removes the temporary. write_file_atomically is the text convenience on top.
// Every problem is one InputError line naming the target: its directory missing or not a directory, no
// permission, the target itself a directory, a failed write (disk full, file-size limit) or rename.
//
// It is not a file format and does not decide where files go.
#pragma once

#include "ir/error.h"

#include <functional>
#include <memory>
#include <ostream>
#include <string>

namespace lightsim {

class AtomicOutput {
public:
  // `what` names the file in messages ("trace", "retrained config"). Creates the temporary now, so a
  // path that cannot be written fails before any work is done.
  AtomicOutput(std::string path, std::string what);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput(); // removes the temporary unless committed

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }

  // A buffered stream onto the temporary (opened on first use); commit() checks that it wrote everything.
  std::ostream& stream();

  // Flushes the stream (if used) and the file to disk and renames the temporary over the target. Throws
  // InputError (the temporary removed, the target untouched) when a write, the flush or the rename fails.
  void commit();

  // "<path>: cannot write the <what>: <reason>", for a failure of the caller's own writing.
  InputError error(const std::string& reason) const;

private:
  class Buffer;

  std::string path_, what_, temp_;
  int fd_ = -1;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
  bool committed_ = false;
};

// Fails (InputError, as AtomicOutput) unless a file can be created at `path`; leaves nothing behind. For
// tools that check an output path before long work.
void check_output_path(const std::string& path, const std::string& what);

// `write` fills the file through an ostream; `text` is the whole content.
void write_file_atomically(const std::string& path, const std::string& what,
                           const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::string& path, const std::string& what, const std::string& text);

} // namespace lightsim
