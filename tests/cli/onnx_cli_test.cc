// lightsim on ONNX models as users run it (issue 26): --graph told by content, --dim, the shared exports
// with --simulate on every shipped config, and bad input as one line with exit 2.
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace lightsim::test {
namespace {

std::string graph_tool() {
  return binary_path("sim/lightsim-graph");
}

TEST(OnnxCli, LightsimGraphOnnxRunsLikeItsTvmForm) {
  const std::string dir = temp_dir();
  ASSERT_EQ(run_command(graph_tool() + " --model gpt2 --layers 2 --seq 16 --format onnx -o " + dir + "/g.bin")
                .exit_code,
            0);
  ASSERT_EQ(run_command(graph_tool() + " --model gpt2 --layers 2 --seq 16 -o " + dir + "/g.json").exit_code,
            0);
  const CommandResult onnx =
      run_command(lightsim() + " --hw " + shipped_config("gpu.json") + " --graph " + dir + "/g.bin");
  const CommandResult tvm =
      run_command(lightsim() + " --hw " + shipped_config("gpu.json") + " --graph " + dir + "/g.json");
  ASSERT_EQ(onnx.exit_code, 0) << onnx.err;
  ASSERT_EQ(tvm.exit_code, 0) << tvm.err;
  const auto makespan = [](const std::string& out) { return out.substr(out.find("makespan"), 30); };
  EXPECT_EQ(makespan(onnx.out), makespan(tvm.out)); // same ops, same plan
}

TEST(OnnxCli, BadInputIsOneLineAndExit2) {
  const std::string dir = temp_dir();
  ASSERT_EQ(run_command(graph_tool() + " --model gpt2 --layers 1 --seq 4 --format onnx -o " + dir + "/g.onnx")
                .exit_code,
            0);
  const std::uintmax_t size = std::filesystem::file_size(dir + "/g.onnx");
  std::filesystem::copy_file(dir + "/g.onnx", dir + "/cut.onnx");
  std::filesystem::resize_file(dir + "/cut.onnx", size / 2);
  const std::string run = lightsim() + " --hw " + shipped_config("gpu.json") + " --graph ";
  expect_bad_input(run_command(run + dir + "/cut.onnx"), {dir + "/cut.onnx", "not an ONNX model"});
  std::ofstream(dir + "/junk.bin") << "\x89PNG not a model";
  expect_bad_input(run_command(run + dir + "/junk.bin"), {"junk.bin", "not an ONNX model"});
  expect_bad_input(run_command(run + dir + "/g.onnx --dim seq"), {"--dim seq", "NAME=VALUE"});
  expect_bad_input(run_command(run + dir + "/g.onnx --dim seq=-4"), {"--dim seq=-4", "positive integer"});
}

TEST(OnnxCli, SharedExportsSimulateOnEveryShippedConfig) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const std::string models = shared_models_dir() + "/onnx/";
  const std::string d = "p2o.DynamicDimension.";
  const std::vector<std::string> graphs{
      models + "gpt2_s64.onnx",
      models + "ch_PP-OCRv4_det_infer.onnx --dim " + d + "0=1 --dim " + d + "1=640 --dim " + d + "2=640",
      models + "ch_PP-OCRv4_rec_infer.onnx --dim " + d + "0=1 --dim " + d + "1=320",
      models + "ch_ppocr_mobile_v2.0_cls_infer.onnx --dim " + d + "0=1 --dim " + d + "1=48 --dim " + d +
          "2=192"};
  for (const auto& entry : std::filesystem::directory_iterator(source_path("configs")))
    if (entry.path().extension() == ".json")
      for (const std::string& g : graphs) {
        const CommandResult r =
            run_command(lightsim() + " --hw " + entry.path().string() + " --graph " + g + " --simulate");
        EXPECT_EQ(r.exit_code, 0) << entry.path() << " " << g << ": " << r.err;
      }
  const CommandResult unbound = run_command(lightsim() + " --hw " + shipped_config("gpu.json") + " --graph " +
                                            models + "ch_PP-OCRv4_rec_infer.onnx");
  expect_bad_input(
      unbound, {"2 unbound symbolic dimensions", "'p2o.DynamicDimension.0' (x dim 0)", "--dim NAME=VALUE"});
}

} // namespace
} // namespace lightsim::test
