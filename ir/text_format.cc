#include "ir/text_format.h"

#include <cstdarg>
#include <cstdio>
#include <stdexcept>

namespace lightsim::ir {

std::string format(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  std::va_list again;
  va_copy(again, args);
  char small[256];
  const int length = std::vsnprintf(small, sizeof small, fmt, args);
  va_end(args);
  if (length < 0) {
    va_end(again);
    throw std::invalid_argument(std::string("format: cannot format \"") + fmt + "\"");
  }
  std::string out;
  if (static_cast<std::size_t>(length) < sizeof small) {
    out.assign(small, static_cast<std::size_t>(length));
  } else { // too long for the small buffer: the second pass writes into a string of the measured length
    out.resize(static_cast<std::size_t>(length));
    std::vsnprintf(out.data(), out.size() + 1, fmt, again);
  }
  va_end(again);
  return out;
}

} // namespace lightsim::ir
