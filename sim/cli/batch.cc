#include "sim/cli/batch.h"

#include "ir/error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace lightsim {
namespace {

struct BatchLine {
  std::string args, out, err, tag;
};

std::vector<BatchLine> read_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot read the batch list");
  std::vector<BatchLine> lines;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (text.empty()) continue;
    std::vector<std::string> fields;
    for (std::size_t begin = 0;;) {
      const std::size_t tab = text.find('\t', begin);
      fields.push_back(text.substr(begin, tab == std::string::npos ? std::string::npos : tab - begin));
      if (tab == std::string::npos) break;
      begin = tab + 1;
    }
    const bool empty_field =
        fields.size() >= 3 && (fields[0].empty() || fields[1].empty() || fields[2].empty());
    if (fields.size() < 3 || fields.size() > 4 || empty_field)
      throw InputError(path + ": line " + std::to_string(number),
                       "expected ARGS<TAB>OUT<TAB>ERR[<TAB>TAG], got " + std::to_string(fields.size()) +
                           " field(s)" + (empty_field ? " with an empty path" : ""));
    lines.push_back({fields[0], fields[1], fields[2], fields.size() == 4 ? fields[3] : ""});
  }
  return lines;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The child: standard error to ERR, standard output to `tmp`, the arguments from ARGS, then the tool.
// Never returns.
[[noreturn]] void run_child(const BatchLine& line, const std::string& tmp, std::string_view tool,
                            const BatchRun& run) {
  const int err_fd = ::open(line.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (err_fd < 0) {
    std::fprintf(stderr, "%.*s: batch: %s: cannot write: %s\n", static_cast<int>(tool.size()), tool.data(),
                 line.err.c_str(), std::strerror(errno));
    ::_exit(kExitBadInput);
  }
  ::dup2(err_fd, STDERR_FILENO);
  ::close(err_fd);
  const int out_fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out_fd < 0) {
    std::fprintf(stderr, "%.*s: error: %s: cannot write: %s\n", static_cast<int>(tool.size()), tool.data(),
                 tmp.c_str(), std::strerror(errno));
    ::_exit(kExitBadInput);
  }
  ::dup2(out_fd, STDOUT_FILENO);
  ::close(out_fd);

  std::vector<std::string> args{std::string(tool)};
  std::ifstream in(line.args);
  if (!in) {
    std::fprintf(stderr, "%.*s: error: %s: cannot read the run's arguments\n", static_cast<int>(tool.size()),
                 tool.data(), line.args.c_str());
    ::_exit(kExitBadInput);
  }
  for (std::string arg; std::getline(in, arg);)
    args.push_back(arg);
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  int status = 1;
  try { // nothing may unwind into the parent's loop, which this process shares
    status = run(static_cast<int>(args.size()), argv.data());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%.*s: internal error: %s\n", static_cast<int>(tool.size()), tool.data(), e.what());
  } catch (...) {
    std::fprintf(stderr, "%.*s: internal error\n", static_cast<int>(tool.size()), tool.data());
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(status);
}

} // namespace

int run_batch(const std::string& list_path, std::string_view tool, const BatchRun& run, std::ostream& out,
              std::ostream& err) {
  const std::vector<BatchLine> lines = read_list(list_path);
  bool failed = false;
  for (const BatchLine& line : lines) {
    if (exists(line.out)) continue;
    if (!line.tag.empty()) out << line.tag << "\n";
    // Nothing buffered may be duplicated into the child.
    out.flush();
    err.flush();
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
    const std::string tmp = line.out + ".tmp." + std::to_string(pid == 0 ? ::getpid() : pid);
    if (pid == 0) run_child(line, tmp, tool, run);

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      if (std::rename(tmp.c_str(), line.out.c_str()) == 0) continue;
      err << tool << ": batch: " << line.out << ": cannot rename " << tmp << ": " << std::strerror(errno)
          << "\n";
    } else {
      std::remove(tmp.c_str());
      err << tool << ": batch: " << line.out << ": "
          << (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                : "killed by signal " + std::to_string(WTERMSIG(status)))
          << ": " << first_line(line.err) << "\n";
    }
    failed = true;
  }
  return failed ? 1 : 0;
}

} // namespace lightsim
