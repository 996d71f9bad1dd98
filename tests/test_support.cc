#include "tests/test_support.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace lightsim::test {
namespace fs = std::filesystem;

namespace {
std::vector<fs::path>& paths_to_remove() {
  static std::vector<fs::path> paths;
  return paths;
}
} // namespace

std::string source_path(const std::string& relative) {
  return std::string(LIGHTSIM_SOURCE_DIR) + "/" + relative;
}

std::string binary_path(const std::string& relative) {
  return std::string(LIGHTSIM_BINARY_DIR) + "/" + relative;
}

std::string shared_models_dir() {
  if (const char* dir = std::getenv("LIGHTSIM_SHARED_DIR"); dir && *dir) return std::string(dir) + "/models";
  return (fs::path(LIGHTSIM_SOURCE_DIR).parent_path() / "shared" / "models").string();
}

bool shared_models_available() {
  return fs::is_directory(shared_models_dir());
}

bool shared_models_required() {
  const char* v = std::getenv("LIGHTSIM_REQUIRE_SHARED");
  return v && std::string(v) == "1";
}

std::string model_path(const std::string& file) {
  return shared_models_dir() + "/" + file;
}

std::string temp_dir() {
  const testing::TestInfo* info = testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "lightsim";
  std::replace(name.begin(), name.end(), '/', '_'); // a parameterised test's name ("Models/Suite.Test/0")
  fs::path dir = fs::temp_directory_path() / ("lightsim-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  remove_at_test_end(dir.string());
  return dir.string();
}

void remove_at_test_end(const std::string& path) {
  paths_to_remove().emplace_back(path);
}

void remove_test_paths() {
  for (const fs::path& path : paths_to_remove()) {
    std::error_code ignored; // a test may have removed it itself
    fs::remove_all(path, ignored);
  }
  paths_to_remove().clear();
}

} // namespace lightsim::test
