// The lightsim-graph executable as a user meets it: it writes a graph, and bad parameters give one line on
// stderr, exit status 2 and no output file.
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim {
namespace {

namespace fs = std::filesystem;

std::string tool() {
  return test::binary_path("sim/lightsim-graph");
}

// A fresh, empty directory for outputs, beside test::temp_dir() (which a test may also use).
std::string out_dir() {
  const std::string dir = test::temp_dir() + "-out";
  fs::remove_all(dir);
  fs::create_directories(dir);
  test::remove_at_test_end(dir);
  return dir;
}

void expect_bad(const std::string& args, const std::string& needle) {
  const std::string dir = out_dir();
  const std::string out = dir + "/g.json";
  const test::CommandResult r = test::run_command(tool() + " " + args + " -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(test::line_count(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("lightsim-graph: ", 0), 0u)
      << "every error line starts with the tool's name: " << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir)) << "output left behind";
}

TEST(GraphCli, WritesLlamaPrefill) {
  const std::string out = out_dir() + "/llama.json";
  const auto r =
      test::run_command(tool() + " --model llama2-7b --phase prefill --seq 128 --layers 2 -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["attrs"]["shape"][1][0], nlohmann::json({1, 128}));
  EXPECT_EQ(doc["heads"].size(), 5u);
}

TEST(GraphCli, UnknownModel) {
  expect_bad("--model gpt5 --seq 4", "unknown model 'gpt5'");
}
TEST(GraphCli, SeqZero) {
  expect_bad("--model gpt2 --seq 0", "--seq must be positive");
}
TEST(GraphCli, TensorParallelMustDivideTheHeads) {
  expect_bad("--model llama2-7b --seq 4 --merge-projections --tensor-parallel 3",
             "--tensor-parallel 3 does not divide the 32 attention heads of llama2-7b");
}
TEST(GraphCli, BadPhase) {
  expect_bad("--model gpt2 --phase train --seq 4", "--phase");
}
TEST(GraphCli, BadDtype) {
  expect_bad("--model gpt2 --seq 4 --dtype float64", "--dtype");
}
TEST(GraphCli, Overflow) {
  expect_bad("--model llama2-70b --seq 4 --batch 4611686018427387904", "overflow");
}
TEST(GraphCli, NonNumericSeq) {
  expect_bad("--model gpt2 --seq many", "--seq");
}

// A decode step reads a KV cache: --seq 1 leaves the default --past (seq - 1) at 0, and the message names
// the options, not a tensor of the graph the tool was about to build.
TEST(GraphCli, DecodeWithAnEmptyKvCacheNamesSeqAndPast) {
  expect_bad("--model gpt2 --phase decode --seq 1",
             "--past must be at least 1, got 0 (--past defaults to --seq - 1");
  expect_bad("--model gpt2 --phase decode --seq 8 --past 0", "--past must be at least 1, got 0");
}

// A config's model_type names the types lightsim-graph knows.
TEST(GraphCli, UnknownModelTypeNamesTheKnownTypes) {
  const std::string cfg = out_dir() + "/../" + "graphgen-cli-mistral.json";
  std::ofstream(cfg) << R"({"model_type": "mistral", "hidden_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10})";
  expect_bad("--config " + cfg + " --seq 4",
             "'mistral' is not a model type lightsim-graph builds: known model "
             "types are gpt2 and llama");
  fs::remove(cfg);
}

TEST(GraphCli, AnUnknownFuseModeListsTheModes) {
  expect_bad("--model gpt2 --seq 4 --fuse fast", "--fuse: 'fast' is not one of none, tvm, flash or vllm");
}

TEST(GraphCli, HeadsNotDividingHidden) {
  const std::string cfg = out_dir() + "/../" + "graphgen-cli-cfg.json";
  std::ofstream(cfg) << R"({"n_embd": 100, "n_layer": 1, "n_head": 3, "vocab_size": 10})";
  expect_bad("--config " + cfg + " --seq 4", "do not divide");
  fs::remove(cfg);
}

// CNNs and encoders (issue 15): image models take no --seq, BERT needs one, encoders do not decode.
TEST(GraphCli, ImageModelsAndEncoders) {
  const std::string out = out_dir() + "/r18.json";
  const auto r = test::run_command(tool() + " --model resnet18 --batch 2 --dtype float16 -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["attrs"]["shape"][1][0], nlohmann::json({2, 3, 224, 224}));
  EXPECT_EQ(doc["attrs"]["dltype"][1][0], "float16");
  expect_bad("--model resnet50 --seq 4", "--seq does not apply to resnet50");
  expect_bad("--model bert-base", "--seq is required for bert-base");
  expect_bad("--model vit-b16 --phase decode", "vit-b16 is not a decoder");
  expect_bad("--model mobilenet-v2 --layers 3", "--layers does not apply to mobilenet-v2");
}

// Sub-byte precision (issue 25): --dtype int4 writes int4 tensors (TVM's dltype), --weight-dtype keeps the
// activations at --dtype; ONNX has no 4-bit type in the proto lightsim builds with, and int3 is no dtype.
TEST(GraphCli, SubByteDtypes) {
  const std::string out = out_dir() + "/deit-int4.json";
  auto r = test::run_command(tool() + " --model deit-t --dtype int4 -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(doc["attrs"]["dltype"][1][0], "int4"); // the image input
  const std::string mixed = out_dir() + "/deit-mixed.json";
  r = test::run_command(tool() + " --model deit-t --dtype int8 --weight-dtype int4 -o " + mixed);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = nlohmann::json::parse(std::ifstream(mixed));
  int int4 = 0, int8 = 0;
  for (const nlohmann::json& t : doc["attrs"]["dltype"][1]) {
    int4 += t == "int4";
    int8 += t == "int8";
  }
  EXPECT_GT(int4, 0);
  EXPECT_GT(int8, 0);
  expect_bad("--model deit-t --dtype int3",
             "--dtype must be float32, float16, int8, int4 or int2, got 'int3'");
  expect_bad("--model deit-t --weight-dtype uint4", "--weight-dtype must be");
  expect_bad("--model deit-t --dtype int4 --format onnx", "--format onnx has no int4 or int2");
}

TEST(GraphCli, UnwritableOutput) {
  const auto r = test::run_command(tool() + " --model gpt2 --seq 4 -o /nonexistent/dir/g.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(test::line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/dir/g.json"), std::string::npos) << r.err;
}

} // namespace
} // namespace lightsim
