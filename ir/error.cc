#include "ir/error.h"

namespace lightsim {
namespace {

// Control characters (a file name or key from the input may hold any) as C escapes, so that the message
// stays one line on a terminal: "\n", "\r", "\t", else "\xHH".
std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte >= 0x20 && byte != 0x7f) {
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

} // namespace

InputError::InputError(const std::string& where, const std::string& what)
    : std::runtime_error(one_line(where.empty() ? what : where + ": " + what)) {}

InputError::InputError(const std::string& message) : std::runtime_error(one_line(message)) {}

} // namespace lightsim
