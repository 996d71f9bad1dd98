#include "tests/cli/run_command.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

} // namespace lightsim::test
