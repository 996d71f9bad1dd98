// Runs a command line through /bin/sh and captures its exit status, stdout and stderr, and checks what the
// command-line tools promise about it (for their tests). Paths of the tools and of the project's inputs.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::test {

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

CommandResult run_command(const std::string& command_line);

// Number of lines in `text` (a last line without '\n' counts).
std::size_t line_count(const std::string& text);

// The tools' bad-input promise (gtest expectations): exit 2, one line on stderr holding each of `needles`,
// nothing on stdout.
void expect_bad_input(const CommandResult& r, const std::vector<std::string>& needles);
// One needle (a template, so that a braced list of two strings still means the list).
template <class Needle>
requires std::convertible_to<const Needle&, std::string_view>
void expect_bad_input(const CommandResult& r, const Needle& needle) {
  expect_bad_input(r, std::vector<std::string>{std::string(std::string_view(needle))});
}

// The built `lightsim`; a shipped config (configs/<name>); a graph of tests/data; and `lightsim` on
// configs/photonic.json and tests/data/mlp2.json (the smallest run with every kind of unit).
std::string lightsim();
std::string shipped_config(const std::string& name);
std::string data_graph(const std::string& name);
std::string photonic_mlp2();

} // namespace lightsim::test
