// Bad parameters: each raises lightsim::InputError with one line that names the problem, through the
// library API. (Output files: sim/io, tests/sim/atomic_file_test.cc.)
#include "ir/error.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <fstream>
#include <gtest/gtest.h>

namespace lightsim {
namespace {

using namespace ir::graphgen;

// Runs `f`, expects an InputError whose single-line message contains `needle`.
template <typename F> void expect_input_error(F f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no InputError (expected one mentioning '" << needle << "')";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

std::string write_config(const std::string& text) {
  const std::string path = test::temp_dir() + "/model.json";
  std::ofstream(path) << text;
  return path;
}

TEST(BadParams, UnknownModel) {
  expect_input_error([] { builtin_model("gpt5"); }, "unknown model 'gpt5'");
}

TEST(BadParams, SeqNotPositive) {
  expect_input_error([] { build_model_graph(test::request("gpt2", Phase::Prefill, 0)); },
                     "--seq must be positive");
  expect_input_error([] { build_model_graph(test::request("llama2-7b", Phase::Decode, -3)); },
                     "--seq must be positive");
}

TEST(BadParams, BatchNotPositive) {
  expect_input_error([] { build_model_graph(test::request("gpt2", Phase::Prefill, 4, 0)); }, "--batch");
}

TEST(BadParams, HeadsNotDividingHidden) {
  GraphRequest r = test::request("gpt2", Phase::Prefill, 4);
  r.model.heads = r.model.kv_heads = 7;
  expect_input_error([&] { build_model_graph(r); }, "do not divide the hidden size");
  const std::string path = write_config(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 2, "n_head": 10,
                                            "vocab_size": 100, "n_positions": 64})");
  expect_input_error([&] { load_model_config(path); }, "do not divide the hidden size");
}

TEST(BadParams, KvHeadsNotDividingHeads) {
  const std::string path = write_config(R"({"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 2,
      "num_attention_heads": 8, "num_key_value_heads": 3, "intermediate_size": 1024, "vocab_size": 100})");
  expect_input_error([&] { load_model_config(path); }, "kv heads (3) do not divide heads (8)");
}

TEST(BadParams, OddRotaryHeadSize) {
  GraphRequest r = test::request("llama2-7b", Phase::Prefill, 4);
  r.model.hidden = 32 * 3; // head size 3
  expect_input_error([&] { build_model_graph(r); }, "even head size");
}

TEST(BadParams, ByteCountOverflow) {
  // 32 heads x 2^31 x 2^31 attention scores x 4 bytes does not fit in 64 bits.
  expect_input_error(
      [] { build_model_graph(test::request("llama2-7b", Phase::Prefill, std::int64_t{1} << 31)); },
      "overflow");
  GraphRequest r = test::request("llama2-7b", Phase::Prefill, 4, std::int64_t{1} << 62);
  expect_input_error([&] { build_model_graph(r); }, "overflow");
  const std::string path = write_config(R"({"model_type": "llama", "hidden_size": 4611686018427387904,
      "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 8, "vocab_size": 8})");
  expect_input_error(
      [&] {
        build_model_graph(
            GraphRequest{load_model_config(path), Phase::Prefill, 2, {}, 1, ir::DType::Float32, {}});
      },
      "overflow");
}

TEST(BadParams, AbsurdLayerCount) {
  GraphRequest r = test::request("gpt2", Phase::Prefill, 4);
  r.layers = 1'000'000'000;
  expect_input_error([&] { build_model_graph(r); }, "--layers");
}

TEST(BadParams, PastNotBelowSeq) {
  GraphRequest r = test::request("gpt2", Phase::Decode, 5);
  r.past = 5;
  expect_input_error([&] { build_model_graph(r); }, "--past (5) must be less than --seq (5)");
}

TEST(BadParams, PastWithPrefill) {
  GraphRequest r = test::request("gpt2", Phase::Prefill, 5);
  r.past = 2;
  expect_input_error([&] { build_model_graph(r); }, "--past is only for --phase decode");
}

TEST(BadParams, Gpt2ContextBeyondPositionTable) {
  expect_input_error([] { build_model_graph(test::request("gpt2", Phase::Prefill, 1025)); },
                     "1024 positions");
}

TEST(BadParams, ConfigFileProblems) {
  expect_input_error([] { load_model_config("/nonexistent/model.json"); }, "/nonexistent/model.json");
  expect_input_error([] { load_model_config(write_config("{\"n_embd\": ")); }, "not valid JSON");
  expect_input_error([] { load_model_config(write_config(R"({"model_type": "llama", "hidden_size": 64})")); },
                     "/num_hidden_layers: missing");
  expect_input_error([] { load_model_config(write_config(R"({"model_type": "bert"})")); }, "model_type");
  // Found by fuzzing (tests/fuzz): a model_type that is not a string threw nlohmann's type_error.
  expect_input_error([] { load_model_config(write_config(R"({"model_type": 6})")); },
                     "/model_type: must be a string, got number");
  // Found by fuzzing (tests/fuzz): nesting is refused before it is built (~50 bytes per '[' otherwise).
  expect_input_error([] { load_model_config(write_config(std::string(100000, '['))); },
                     "JSON nested deeper than 64 levels");
}

} // namespace
} // namespace lightsim
