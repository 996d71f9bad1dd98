#include "tests/cli/run_command.h"

#include "tests/test_support.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace lightsim::test {

CommandResult run_command(const std::string& command_line) {
  char pattern[] = "/tmp/lightsim-cmd-XXXXXX";
  const char* made = ::mkdtemp(pattern);
  if (!made) return {};
  const std::string dir = made;
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  const int status = std::system((command_line + " >" + out + " 2>" + err + " </dev/null").c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove_all(dir);
  return r;
}

std::size_t line_count(const std::string& text) {
  std::size_t n = 0;
  for (char c : text)
    n += c == '\n';
  return n + (!text.empty() && text.back() != '\n');
}

void expect_bad_input(const CommandResult& r, const std::vector<std::string>& needles) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  for (const std::string& needle : needles)
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

std::string lightsim() {
  return binary_path("sim/lightsim");
}

std::string shipped_config(const std::string& name) {
  return source_path("configs/" + name);
}

std::string data_graph(const std::string& name) {
  return source_path("tests/data/" + name);
}

std::string photonic_mlp2() {
  return lightsim() + " --hw " + shipped_config("photonic.json") + " --graph " + data_graph("mlp2.json");
}

} // namespace lightsim::test
