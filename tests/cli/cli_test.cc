// The `lightsim` executable as a user meets it: exit codes, one-line errors, the summary and --json.
#include "sim/cli/simulate_command.h"
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <H5Cpp.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim {
namespace {

TEST(Cli, HelpExitsZero) {
  const auto r = test::run_command(test::lightsim() + " --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--objective"), std::string::npos);
}

TEST(Cli, MissingRequiredOptionIsBadInput) {
  test::expect_bad_input(test::run_command(test::lightsim() + " --graph " + test::data_graph("mlp2.json")),
                         "--hw");
}

// Enumeration options take their names only (not the enumerators' numbers, which CLI11's transformers also
// accept), and a bad value is one line naming the tool, the option and the names.
TEST(Cli, EnumerationOptionsTakeTheirNamesOnly) {
  const std::string base = test::lightsim() + " --hw " + test::shipped_config("cpu.json") + " --graph " +
                           test::data_graph("mlp2.json");
  for (const std::string value : {"speed", "2", "TIME"})
    test::expect_bad_input(
        test::run_command(base + " --objective " + value),
        {"lightsim: --objective: '" + value + "' is not one of time, energy, makespan or edp"});
  test::expect_bad_input(test::run_command(base + " --unknown-op 1"),
                         "lightsim: --unknown-op: '1' is not one of error or cpu");
  test::expect_bad_input(test::run_command(base + " --fuse 0"),
                         "lightsim: --fuse: '0' is not one of none, tvm");
  const test::CommandResult r = test::run_command(base + " --objective makespan --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"makespan\""), std::string::npos) << r.out;
}

TEST(Cli, MissingGraphFileIsBadInput) {
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("cpu.json") +
                                           " --graph /nonexistent/g.json"),
                         "/nonexistent/g.json");
}

TEST(Cli, MissingConfigFileIsBadInput) {
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw /nonexistent/hw.json --graph " +
                                           test::data_graph("mlp2.json")),
                         "/nonexistent/hw.json");
}

// A convolution whose attributes contradict its shapes, a pooling window larger than its padded input, a
// dense_pack weight whose packing does not divide N: one line naming the node and the mismatch, exit 2.
TEST(Cli, ContradictoryOpShapesAreBadInput) {
  const std::string dir = test::temp_dir();
  using nlohmann::json;
  // x (and a weight p0 when `w` is given) -> one op `name`.
  const auto graph = [&](const std::string& name, const std::string& func, const json& x, const json& w,
                         const json& out, json attrs) {
    attrs["func_name"] = func;
    attrs["num_outputs"] = "1";
    attrs["num_inputs"] = w.is_null() ? "1" : "2";
    json nodes = json::array({{{"op", "null"}, {"name", "x"}, {"inputs", json::array()}}});
    json inputs = json::array({json::array({0, 0, 0})}), shapes = json::array({x});
    if (!w.is_null()) {
      nodes.push_back({{"op", "null"}, {"name", "p0"}, {"inputs", json::array()}});
      inputs.push_back(json::array({1, 0, 0}));
      shapes.push_back(w);
    }
    shapes.push_back(out);
    const auto n = static_cast<int>(nodes.size());
    nodes.push_back({{"op", "tvm_op"}, {"name", name}, {"inputs", inputs}, {"attrs", attrs}});
    json row_ptr = json::array(), args = json::array(), dtypes = json::array();
    for (int i = 0; i <= n + 1; ++i)
      row_ptr.push_back(i);
    for (int i = 0; i < n; ++i)
      args.push_back(i);
    for (int i = 0; i <= n; ++i)
      dtypes.push_back("float32");
    const std::string path = dir + "/" + name + ".json";
    std::ofstream(path) << json{{"nodes", nodes},
                                {"arg_nodes", args},
                                {"heads", json::array({json::array({n, 0, 0})})},
                                {"node_row_ptr", row_ptr},
                                {"attrs",
                                 {{"shape", {"list_shape", shapes}}, {"dltype", {"list_str", dtypes}}}}}
                               .dump();
    return path;
  };
  const auto run = [&](const std::string& path) {
    return test::run_command(test::lightsim() + " --hw " + test::shipped_config("photonic.json") +
                             " --graph " + path);
  };
  test::expect_bad_input(
      run(graph("conv", "tvmgen_default_fused_nn_conv2d", {1, 64, 56, 56}, {64, 64, 3, 3}, {1, 64, 56, 56},
                {{"strides", "[2, 2]"}, {"padding", "[1, 1]"}})),
      "nodes[2] 'conv': conv2d: output spatial dim 0 is 56, but a kernel of 3 with stride 2");
  test::expect_bad_input(run(graph("conv", "tvmgen_default_fused_nn_conv2d", {1, 64, 56, 56}, {64, 48, 3, 3},
                                   {1, 64, 56, 56}, json::object())),
                         "nodes[2] 'conv': conv2d: input channels 64 are not a multiple of the weight's 48");
  test::expect_bad_input(run(graph("dense", "tvmgen_default_fused_nn_contrib_dense_pack", {4, 64},
                                   {3, 64, 16}, {4, 40}, json::object())),
                         "nodes[2] 'dense': dense: dense_pack weight [3, 64, 16] packs 3 x 16 = 48 outputs");
  test::expect_bad_input(run(graph("pool", "tvmgen_default_fused_nn_max_pool2d", {1, 8, 4, 4}, nullptr,
                                   {1, 8, 1, 1}, {{"pool_size", "[9, 9]"}})),
                         "nodes[1] 'pool': pool: pool window extent 9 exceeds the padded input 4");
}

TEST(Cli, TruncatedGraphIsBadInput) {
  const std::string path = test::temp_dir() + "/truncated.json";
  std::ifstream in(test::data_graph("mlp2.json"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(path) << text.substr(0, text.size() / 2);
  test::expect_bad_input(
      test::run_command(test::lightsim() + " --hw " + test::shipped_config("cpu.json") + " --graph " + path),
      path);
}

// A bad value of a CPU module key (here in a --set override and in a file): one line naming the file,
// the unit's field and the value, exit 2.
TEST(Cli, BadCpuModuleKeyIsBadInput) {
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("cpu.json") +
                                           " --graph " + test::data_graph("mlp2.json") +
                                           " --set cpu0.intra_op_threads=0"),
                         "units[0].intra_op_threads: must be positive, got 0 (unit 'cpu0')");
  const std::string path = test::temp_dir() + "/bad_cache.json";
  nlohmann::json c = nlohmann::json::parse(std::ifstream(test::shipped_config("cpu.json")));
  c["units"][0]["caches"][1]["capacity_MiB"] = 0.25;
  std::ofstream(path) << c.dump();
  test::expect_bad_input(
      test::run_command(test::lightsim() + " --hw " + path + " --graph " + test::data_graph("mlp2.json")),
      path + ": units[0].caches[1].capacity_MiB: must be larger than the previous level's (l2, 1 MiB), got "
             "0.25 (unit 'cpu0')");
}

TEST(Cli, UnknownOpIsBadInputUnlessMappedToCpu) {
  const std::string path = test::temp_dir() + "/unknown.json";
  std::ifstream in(test::data_graph("mlp2.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "tvmgen_default_fused_nn_relu";
  ASSERT_NE(text.find(from), std::string::npos);
  for (std::size_t at; (at = text.find(from)) != std::string::npos;)
    text.replace(at, from.size(), "tvmgen_default_fused_frobnicate");
  std::ofstream(path) << text;
  const std::string base =
      test::lightsim() + " --hw " + test::shipped_config("photonic.json") + " --graph " + path;
  test::expect_bad_input(test::run_command(base), "frobnicate");
  const auto r = test::run_command(base + " --unknown-op=cpu --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

TEST(Cli, JsonHasTheDocumentedFields) {
  const auto r =
      test::run_command(test::lightsim() + " --hw " + test::shipped_config("photonic.json") + " --graph " +
                        test::data_graph("transformer_block.json") + " --json --objective energy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key :
       {"makespan_s", "energy_j", "ops", "ops_by_unit", "objective", "objective_value", "solve_ms"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["objective"], "energy");
  std::size_t placed = 0;
  for (const auto& [unit, count] : j["ops_by_unit"].items())
    placed += count.get<std::size_t>();
  EXPECT_EQ(placed, j["ops"].get<std::size_t>());
  EXPECT_GT(j["makespan_s"].get<double>(), 0);
}

TEST(Cli, SummaryNamesUnitsAndCostliestOps) {
  const auto r = test::run_command(test::lightsim() + " --hw " + test::shipped_config("photonic.json") +
                                   " --graph " + test::data_graph("transformer_block.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"makespan", "energy", "costliest ops", "cpu0", "link"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

} // namespace
} // namespace lightsim

namespace lightsim {
namespace {

// Rows of a 1-D dataset in an HDF5 file (0 when the file or dataset is missing).
hsize_t dataset_rows(const std::string& file, const std::string& dataset) {
  try {
    const H5::H5File h5(file, H5F_ACC_RDONLY);
    hsize_t rows = 0;
    h5.openDataSet(dataset).getSpace().getSimpleExtentDims(&rows);
    return rows;
  } catch (const H5::Exception&) {
    return 0;
  }
}

TEST(CliSimulate, PrintsTheCheckTable) {
  const auto r = test::run_command(test::lightsim() + " --hw " + test::shipped_config("photonic.json") +
                                   " --graph " + test::data_graph("transformer_block.json") + " --simulate");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"SystemC replay vs prediction", "median |err|", "makespan  predicted"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST(CliSimulate, TraceHasOneRowPerOpOnEverySharedGraph) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const std::string dir = test::temp_dir();
  for (const char* model :
       {"gpt2_prefill_5.json", "gpt2_decoder_5.json", "llama2_7b_prefill.json", "llama2_7b_decoder.json"}) {
    const std::string trace = dir + "/" + model + ".h5";
    const auto r = test::run_command(test::lightsim() + " --hw " + test::shipped_config("photonic.json") +
                                     " --graph " + test::model_path(model) + " --trace " + trace + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.contains("simulation")) << model;
    EXPECT_EQ(j["simulation"]["trace"], trace);
    EXPECT_GT(j["simulation"]["simulated_makespan_s"].get<double>(), 0);
    const std::size_t ops = j["ops"].get<std::size_t>() + j["inputs"].get<std::size_t>();
    EXPECT_EQ(dataset_rows(trace, "/ops"), ops) << model;
    EXPECT_GT(dataset_rows(trace, "/check"), 0u) << model;
  }
}

TEST(CliSimulate, TraceInAMissingDirectoryIsBadInputAndLeavesNoFile) {
  const std::string dir = test::temp_dir();
  const std::string trace = dir + "/no/such/dir/run.h5";
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("cpu.json") +
                                           " --graph " + test::data_graph("mlp2.json") + " --trace " + trace),
                         trace);
  EXPECT_FALSE(std::filesystem::exists(dir + "/no"));
}

TEST(CliSimulate, TraceUnderARegularFileIsBadInputAndLeavesNoFile) {
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/file") << "x";
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("cpu.json") +
                                           " --graph " + test::data_graph("mlp2.json") + " --trace " + dir +
                                           "/file/run.h5"),
                         dir + "/file/run.h5");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir))
    ++entries;
  EXPECT_EQ(entries, 1u); // only the file itself: no temporary left behind
}

// One rule for every output option (README, "Output paths"): the path as written, relative to the working
// directory. A bare name lands in the working directory, wherever that is, for the HDF5 trace as for the
// Chrome trace; no traces/ folder is needed or made.
TEST(CliSimulate, BareOutputNamesGoToTheWorkingDirectory) {
  const std::string dir = test::temp_dir();
  const test::CommandResult r = test::run_command(
      "cd " + dir + " && " + test::lightsim() + " --hw " + test::shipped_config("cpu.json") + " --graph " +
      test::data_graph("mlp2.json") + " --trace run.h5 --chrome-trace run.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/run.h5"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/run.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/traces"));
  EXPECT_NE(r.out.find("run.h5"), std::string::npos) << r.out; // the summary says where the trace went
}

} // namespace
} // namespace lightsim

namespace lightsim {
namespace {

TEST(CliSimulate, RunsOnEveryShippedConfig) {
  for (const char* name : {"photonic.json", "cpu.json", "gpu.json", "lightcode.json", "lightcode-cpu.json"}) {
    const auto r = test::run_command(test::lightsim() + " --hw " + test::shipped_config(name) + " --graph " +
                                     test::data_graph("transformer_block.json") + " --simulate --json");
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["simulation"]["simulated_makespan_s"].get<double>(), 0) << name;
  }
}

} // namespace
} // namespace lightsim
