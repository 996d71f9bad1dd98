// InputError: the one exception type for bad user input (graph files, hardware configs, command-line
// values). Its message is a single line that names the file, the place in it (a JSON path or a node
// index) and what is wrong, so the CLI can print it verbatim and exit with status 2; control characters
// that came with the input (a key holding a carriage return) are written as C escapes ("\r", "\x01").
//
// It is not for programming errors: those are assertions.
#pragma once

#include <stdexcept>
#include <string>

namespace lightsim {

class InputError : public std::runtime_error {
public:
  // `where` is the file (and optionally ": <json path or node>"), `what` the problem.
  InputError(const std::string& where, const std::string& what);
  explicit InputError(const std::string& message);
};

// Exit status for bad input, shared by every lightsim executable.
inline constexpr int kExitBadInput = 2;

} // namespace lightsim
