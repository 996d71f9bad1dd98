// The `lightsim` executable as a user meets it: exit codes, one-line errors, the summary and --json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/cli/run_command.h"
#include "tests/test_support.h"

namespace lightsim {
namespace {

std::string lightsim() { return test::binary_path("sim/lightsim"); }
std::string config(const std::string& name) { return test::source_path("configs/" + name); }
std::string example(const std::string& name) { return test::source_path("tests/data/" + name); }

void expect_bad_input(const test::CommandResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, HelpExitsZero) {
  const auto r = test::run_command(lightsim() + " --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--objective"), std::string::npos);
}

TEST(Cli, MissingRequiredOptionIsBadInput) {
  expect_bad_input(test::run_command(lightsim() + " --graph " + example("mlp2.json")), "--hw");
}

TEST(Cli, UnknownObjectiveIsBadInput) {
  expect_bad_input(test::run_command(lightsim() + " --hw " + config("cpu.json") + " --graph " +
                                     example("mlp2.json") + " --objective speed"),
                   "speed");
}

TEST(Cli, MissingGraphFileIsBadInput) {
  expect_bad_input(test::run_command(lightsim() + " --hw " + config("cpu.json") + " --graph /nonexistent/g.json"),
                   "/nonexistent/g.json");
}

TEST(Cli, MissingConfigFileIsBadInput) {
  expect_bad_input(test::run_command(lightsim() + " --hw /nonexistent/hw.json --graph " + example("mlp2.json")),
                   "/nonexistent/hw.json");
}

TEST(Cli, TruncatedGraphIsBadInput) {
  const std::string path = test::temp_dir() + "/truncated.json";
  std::ifstream in(example("mlp2.json"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(path) << text.substr(0, text.size() / 2);
  expect_bad_input(test::run_command(lightsim() + " --hw " + config("cpu.json") + " --graph " + path), path);
}

TEST(Cli, UnknownOpIsBadInputUnlessMappedToCpu) {
  const std::string path = test::temp_dir() + "/unknown.json";
  std::ifstream in(example("mlp2.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "tvmgen_default_fused_nn_relu";
  ASSERT_NE(text.find(from), std::string::npos);
  for (std::size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), "tvmgen_default_fused_frobnicate");
  std::ofstream(path) << text;
  const std::string base = lightsim() + " --hw " + config("photonic.json") + " --graph " + path;
  expect_bad_input(test::run_command(base), "frobnicate");
  const auto r = test::run_command(base + " --unknown-op=cpu --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

TEST(Cli, JsonHasTheDocumentedFields) {
  const auto r = test::run_command(lightsim() + " --hw " + config("photonic.json") + " --graph " +
                                   example("transformer_block.json") + " --json --objective energy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"makespan_s", "energy_j", "ops", "ops_by_unit", "objective", "objective_value", "solve_ms"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["objective"], "energy");
  std::size_t placed = 0;
  for (const auto& [unit, count] : j["ops_by_unit"].items()) placed += count.get<std::size_t>();
  EXPECT_EQ(placed, j["ops"].get<std::size_t>());
  EXPECT_GT(j["makespan_s"].get<double>(), 0);
}

TEST(Cli, SummaryNamesUnitsAndCostliestOps) {
  const auto r = test::run_command(lightsim() + " --hw " + config("photonic.json") + " --graph " +
                                   example("transformer_block.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"makespan", "energy", "costliest ops", "cpu0", "link"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

} // namespace
} // namespace lightsim
