// What every lightsim executable's main() shares: parsing the command line into a CLI11 app, and turning
// the exceptions of a run into one line on stderr and an exit status (2: bad input, 1: internal error).
//
// It is not a command: each main() still declares its own options and does its own work.
#pragma once

#include "ir/error.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <optional>
#include <string_view>

namespace lightsim {

// Parses argv into `app`, then runs `validate` (which may throw a CLI::ParseError for options that do not
// go together). Returns nothing when the tool should go on; otherwise the status to exit with: 0 after
// --help or --version (CLI11 prints them), kExitBadInput after a bad command line (one line on stderr,
// "TOOL: what (see --help)").
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, std::string_view tool,
                                             const std::function<void()>& validate = {}) {
  try {
    app.parse(argc, argv);
    if (validate) validate();
  } catch (const CLI::Success& e) { // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << tool << ": " << e.what() << " (see --help)\n";
    return kExitBadInput;
  }
  return std::nullopt;
}

// Runs `body` and returns its status. An InputError is "TOOL: error: what" on stderr and kExitBadInput;
// any other exception "TOOL: internal error: what" and 1.
inline int run_reporting_errors(std::string_view tool, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << tool << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace lightsim
