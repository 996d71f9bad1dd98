#include "sim/io/atomic_file.h"

#include "ir/error.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace lightsim {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.filename().empty()) throw InputError(path, "names a directory, not a file");
  fs::path temp = target;
  temp += ".tmp." + std::to_string(::getpid());
  const auto discard = [&temp] {
    std::error_code ignored;
    fs::remove(temp, ignored);
  };
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, "cannot write (directory missing or no permission)");
    try {
      write(out);
    } catch (...) {
      out.close();
      discard();
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      discard();
      throw InputError(path, "write failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    discard();
    throw InputError(path, "cannot rename the temporary file into place: " + ec.message());
  }
}

void write_file_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&text](std::ostream& out) { out << text; });
}

} // namespace lightsim
