// The one atomic-output mechanism (sim/io/atomic_file.h), tested once for every file the tools write: a
// commit puts the complete file under its name and leaves no temporary; a failure in the middle of
// writing (an exception, the file-size limit) leaves neither a file under the final name nor a temporary;
// an existing file is replaced only on success; an unwritable place is one InputError line naming the file.
#include "ir/error.h"
#include "sim/io/atomic_file.h"
#include "tests/test_support.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lightsim {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Expects `f` to throw an InputError of one line that starts with `path` and contains `reason`.
template <class F> void expect_error(F&& f, const std::string& path, const std::string& reason) {
  try {
    f();
    ADD_FAILURE() << "no error for " << path;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(AtomicOutput, CommitPutsTheWholeFileInPlaceAndNoTemporary) {
  const std::string dir = test::temp_dir(), path = dir + "/out.json";
  write_file_atomically(path, "config", "{\"a\": 1}\n");
  EXPECT_EQ(slurp(path), "{\"a\": 1}\n");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.json"});
}

TEST(AtomicOutput, StreamsMoreThanItsBuffer) {
  const std::string dir = test::temp_dir(), path = dir + "/big.txt";
  const std::string line(1000, 'x');
  write_file_atomically(path, "report", [&](std::ostream& out) {
    for (int i = 0; i < 1000; ++i)
      out << line << '\n';
  });
  EXPECT_EQ(fs::file_size(path), 1001u * 1000u);
}

// The temporary is a new file beside the target, so the rename stays on one file system; two writers of
// the same target at once never share one, and each commit installs a complete file.
TEST(AtomicOutput, TemporariesAreUniqueAndBesideTheTarget) {
  const std::string dir = test::temp_dir(), path = dir + "/run.h5";
  AtomicOutput a(path, "trace"), b(path, "trace");
  EXPECT_NE(a.temp_path(), b.temp_path());
  EXPECT_EQ(fs::path(a.temp_path()).parent_path(), fs::path(path).parent_path());
  EXPECT_EQ(fs::path(b.temp_path()).parent_path(), fs::path(path).parent_path());
  EXPECT_EQ(a.path(), path);
  EXPECT_EQ(entries(dir).size(), 2u); // both temporaries, nothing under the final name yet
  EXPECT_FALSE(fs::exists(path));
  a.stream() << "first";
  b.stream() << "second";
  a.commit();
  EXPECT_EQ(slurp(path), "first");
  b.commit();
  EXPECT_EQ(slurp(path), "second");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"run.h5"});
}

// A writer that fills the temporary by path (as the HDF5 library does) and is destroyed without a commit
// leaves nothing behind.
TEST(AtomicOutput, DestroyedWithoutCommitLeavesNothing) {
  const std::string dir = test::temp_dir(), path = dir + "/m.h5";
  {
    AtomicOutput out(path, "measurement file");
    std::ofstream(out.temp_path()) << "half";
  }
  EXPECT_TRUE(entries(dir).empty());
}

TEST(AtomicOutput, ExceptionMidWriteLeavesTheOldFileAndNoTemporary) {
  const std::string dir = test::temp_dir(), path = dir + "/new.json";
  std::ofstream(path) << "old";
  EXPECT_THROW(write_file_atomically(path, "retrained config",
                                     [](std::ostream& out) {
                                       out << "partial";
                                       throw std::runtime_error("the writer failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(slurp(path), "old");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"new.json"});
  write_file_atomically(path, "retrained config", "new");
  EXPECT_EQ(slurp(path), "new");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"new.json"});
}

// The file-size limit stops the writes (root included): one line naming the file and why, the old file
// untouched, no temporary.
TEST(AtomicOutput, FailedWriteLeavesTheOldFileAndNoTemporary) {
  const std::string dir = test::temp_dir(), path = dir + "/out.json";
  std::ofstream(path) << "old";
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  expect_error([&] { write_file_atomically(path, "Chrome trace", std::string(1 << 20, 'x')); }, path,
               "cannot write the Chrome trace: write failed: File too large");
  ::setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_EQ(slurp(path), "old");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.json"});
}

TEST(AtomicOutput, MissingDirectory) {
  const std::string dir = test::temp_dir(), path = dir + "/no/such/dir/run.h5";
  expect_error([&] { write_file_atomically(path, "trace", "x"); }, path,
               "cannot write the trace: directory '" + dir + "/no/such/dir' does not exist");
  EXPECT_TRUE(entries(dir).empty());
}

// Holds as root too: nothing can be created below a regular file, whoever asks.
TEST(AtomicOutput, DirectoryIsARegularFile) {
  const std::string dir = test::temp_dir(), path = dir + "/file/run.h5";
  std::ofstream(dir + "/file") << "x";
  expect_error([&] { write_file_atomically(path, "trace", "x"); }, path, "is not a directory");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"file"});
}

TEST(AtomicOutput, TargetIsADirectory) {
  const std::string dir = test::temp_dir();
  fs::create_directory(dir + "/sub");
  expect_error([&] { write_file_atomically(dir + "/sub", "graph", "x"); }, dir + "/sub", "is a directory");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"sub"});
  expect_error([&] { write_file_atomically("", "graph", "x"); }, "(no file name)", "the path is empty");
}

// chmod does not stop root, so as root the test writes into /sys, where file creation is refused to
// everyone (sysfs); otherwise into a directory made read-only.
TEST(AtomicOutput, NoPermission) {
  const std::string dir = test::temp_dir();
  const std::string place = ::geteuid() == 0 ? std::string("/sys/kernel") : dir + "/ro";
  if (::geteuid() != 0) {
    fs::create_directory(place);
    fs::permissions(place, fs::perms::owner_read | fs::perms::owner_exec);
  }
  ASSERT_TRUE(fs::is_directory(place));
  const std::string path = place + "/lightsim-atomic-test.json";
  expect_error([&] { write_file_atomically(path, "report", "x"); }, path,
               "no permission to write in '" + place + "'");
  EXPECT_FALSE(fs::exists(path));
  if (::geteuid() != 0) {
    EXPECT_TRUE(entries(place).empty());
    fs::permissions(place, fs::perms::owner_all);
  }
}

// A tool checks its output path before long work; the check leaves nothing behind.
TEST(AtomicOutput, CheckOutputPathCreatesNothing) {
  const std::string dir = test::temp_dir();
  check_output_path(dir + "/later.h5", "measurement file");
  EXPECT_TRUE(entries(dir).empty());
  expect_error([&] { check_output_path(dir + "/none/later.h5", "measurement file"); }, dir + "/none/later.h5",
               "does not exist");
}

// The file gets the permissions any new file gets (0666 less the umask), not a private temporary's 0600.
TEST(AtomicOutput, PermissionsFollowTheUmask) {
  const std::string dir = test::temp_dir(), path = dir + "/shared.json";
  const mode_t old = ::umask(022);
  write_file_atomically(path, "config", "{}");
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

} // namespace
} // namespace lightsim
