// Batch runs (sim/cli/batch.h): each line of a list in a forked child, its output renamed into place only
// when it succeeds, finished lines skipped; and `lightsim --batch` as a user meets it.
#include "ir/error.h"
#include "sim/cli/batch.h"
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <sstream>
#include <string>

namespace lightsim {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// A tool whose run prints its arguments on stdout, "note" on stderr, and exits with the number its first
// argument holds; "abort" aborts.
int echo_tool(int argc, char** argv) {
  for (int i = 0; i < argc; ++i)
    std::cout << argv[i] << (i + 1 < argc ? " " : "\n");
  std::cerr << "note: " << (argc > 1 ? argv[1] : "") << "\n";
  if (argc > 1 && std::string(argv[1]) == "abort") std::abort();
  return argc > 1 ? std::atoi(argv[1]) : 0;
}

struct BatchDir : ::testing::Test {
  fs::path dir = test::temp_dir();
  std::string line(const std::string& name, const std::string& tag = "") const {
    return (dir / (name + ".args")).string() + "\t" + (dir / (name + ".out")).string() + "\t" +
           (dir / (name + ".err")).string() + (tag.empty() ? "" : "\t" + tag) + "\n";
  }
};

TEST_F(BatchDir, EachLineRunsWithItsArgumentsAndTheOutputIsRenamedWhenItSucceeds) {
  write(dir / "a.args", "0\nfirst argument\n");
  write(dir / "b.args", "3\n");
  write(dir / "list", line("a", "point a") + "\n" + line("b", "point b"));
  std::ostringstream out, err;
  EXPECT_EQ(run_batch((dir / "list").string(), "echo", echo_tool, out, err), 1);
  EXPECT_EQ(out.str(), "point a\npoint b\n");
  EXPECT_EQ(slurp(dir / "a.out"), "echo 0 first argument\n");
  EXPECT_EQ(slurp(dir / "a.err"), "note: 0\n");
  // The failed run leaves its errors but no output, not even a temporary one.
  EXPECT_FALSE(fs::exists(dir / "b.out"));
  EXPECT_EQ(slurp(dir / "b.err"), "note: 3\n");
  EXPECT_EQ(err.str(), "echo: batch: " + (dir / "b.out").string() + ": exit 3: note: 3\n");
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();

  // Again: the finished line is skipped (no tag), the failed one runs again.
  std::ostringstream out2, err2;
  EXPECT_EQ(run_batch((dir / "list").string(), "echo", echo_tool, out2, err2), 1);
  EXPECT_EQ(out2.str(), "point b\n");
}

TEST_F(BatchDir, ACrashTakesOnlyItsOwnRunDown) {
  write(dir / "a.args", "abort\n");
  write(dir / "b.args", "0\n");
  write(dir / "list", line("a") + line("b"));
  std::ostringstream out, err;
  EXPECT_EQ(run_batch((dir / "list").string(), "echo", echo_tool, out, err), 1);
  EXPECT_NE(err.str().find("a.out: killed by signal 6"), std::string::npos) << err.str();
  EXPECT_FALSE(fs::exists(dir / "a.out"));
  EXPECT_EQ(slurp(dir / "b.out"), "echo 0\n");
}

TEST_F(BatchDir, AMissingArgumentsFileFailsThatRun) {
  write(dir / "list", line("missing"));
  std::ostringstream out, err;
  EXPECT_EQ(run_batch((dir / "list").string(), "echo", echo_tool, out, err), 1);
  EXPECT_NE(err.str().find("missing.out: exit 2: echo: error: " + (dir / "missing.args").string() +
                           ": cannot read the run's arguments"),
            std::string::npos)
      << err.str();
}

TEST_F(BatchDir, AMalformedListIsBadInputBeforeAnythingRuns) {
  write(dir / "a.args", "0\n");
  write(dir / "list", line("a") + "only\ttwo fields\n");
  std::ostringstream out, err;
  try {
    run_batch((dir / "list").string(), "echo", echo_tool, out, err);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "list").string() + ": line 2: expected ARGS<TAB>OUT<TAB>ERR[<TAB>TAG], got 2 field(s)");
  }
  EXPECT_FALSE(fs::exists(dir / "a.out"));
  EXPECT_THROW(run_batch((dir / "nothing").string(), "echo", echo_tool, out, err), InputError);
}

// lightsim --batch: the same result as the run on its own; no other option; not nested.
TEST_F(BatchDir, LightsimBatchGivesWhatTheRunGivesAlone) {
  write(dir / "a.args", "--hw\n" + test::shipped_config("photonic.json") + "\n--graph\n" +
                            test::data_graph("mlp2.json") + "\n--top\n3\n");
  write(dir / "list", line("a", "run a"));
  const test::CommandResult r = test::run_command(test::lightsim() + " --batch " + (dir / "list").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "run a\n");
  const test::CommandResult alone = test::run_command(test::photonic_mlp2() + " --top 3");
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  // The summary's timings of the solver's stages differ run to run; the rest is the same.
  auto without_timings = [](const std::string& text) {
    std::istringstream in(text);
    std::string kept, l;
    while (std::getline(in, l))
      if (l.find(" ms") == std::string::npos) kept += l + "\n";
    return kept;
  };
  EXPECT_EQ(without_timings(slurp(dir / "a.out")), without_timings(alone.out));

  test::expect_bad_input(
      test::run_command(test::lightsim() + " --batch " + (dir / "list").string() + " --json"),
      "lightsim: --batch: takes no other option (got --json)");
  test::expect_bad_input(test::run_command(test::lightsim() + " --batch " + (dir / "none").string()),
                         "lightsim: error: " + (dir / "none").string() + ": cannot read the batch list");
  write(dir / "n.args", "--batch\n" + (dir / "list").string() + "\n");
  write(dir / "nested", line("n"));
  const test::CommandResult nested =
      test::run_command(test::lightsim() + " --batch " + (dir / "nested").string());
  EXPECT_EQ(nested.exit_code, 1);
  EXPECT_NE(nested.err.find("--batch: not in a run of a batch list"), std::string::npos) << nested.err;
}

} // namespace
} // namespace lightsim
