// Runs a command line through /bin/sh and captures its exit status, stdout and stderr (for tests of the
// command-line tools).
#pragma once

#include <string>

namespace lightsim::test {

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

CommandResult run_command(const std::string& command_line);

// Number of lines in `text` (a last line without '\n' counts).
std::size_t line_count(const std::string& text);

} // namespace lightsim::test
