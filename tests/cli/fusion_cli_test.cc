// Fusion as users meet it: `lightsim --fuse`, the config's compiler section (and its bad values: one line
// naming the field, exit 2), `lightsim-graph --fuse tvm` writing a fused graph that imports back fused, and
// the fused plan's makespan against the unfused one on the four real exports and the shipped machines.
#include "ir/fusion/fusion.h"
#include "ir/tvm/tvm_import.h"
#include "sim/driver/pipeline.h"
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim {
namespace {

std::string lightsim_graph() {
  return test::binary_path("sim/lightsim-graph");
}

// photonic.json with its compiler section replaced by `compiler`, written to a temp file.
std::string config_with_compiler(const nlohmann::json& compiler) {
  nlohmann::json j = nlohmann::json::parse(std::ifstream(test::shipped_config("photonic.json")));
  j["compiler"] = compiler;
  const std::string path = test::temp_dir() + "/compiler.json";
  std::ofstream(path) << j.dump(1);
  return path;
}

TEST(FusionCli, AnUnknownFuseModeIsBadInput) {
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("gpu.json") +
                                           " --graph " + test::data_graph("mlp2.json") + " --fuse fast"),
                         "--fuse");
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " +
                                           config_with_compiler({{"fuse", "fast"}, {"max_depth", 256}}) +
                                           " --graph " + test::data_graph("mlp2.json")),
                         "compiler.fuse: unknown fusion mode 'fast' (expected none, tvm, flash or vllm)");
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("gpu.json") +
                                           " --graph " + test::data_graph("mlp2.json") +
                                           " --set compiler.fuse=fast"),
                         "compiler.fuse");
}

TEST(FusionCli, ABadMaxDepthOrAnUnknownKeyIsBadInput) {
  for (const nlohmann::json& depth :
       {nlohmann::json(0), nlohmann::json(-3), nlohmann::json(2.5), nlohmann::json("x")})
    test::expect_bad_input(test::run_command(test::lightsim() + " --hw " +
                                             config_with_compiler({{"fuse", "tvm"}, {"max_depth", depth}}) +
                                             " --graph " + test::data_graph("mlp2.json")),
                           "compiler.max_depth");
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, nlohmann::json>>{{"row_cta_threads", 0},
                                                           {"row_cta_threads", 2048},
                                                           {"vector_access_bytes", 0},
                                                           {"vector_access_bytes", "16"}})
    test::expect_bad_input(test::run_command(test::lightsim() + " --hw " +
                                             config_with_compiler({{"fuse", "vllm"}, {key, value}}) +
                                             " --graph " + test::data_graph("mlp2.json")),
                           "compiler." + key);
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " +
                                           config_with_compiler({{"fusion", "tvm"}}) + " --graph " +
                                           test::data_graph("mlp2.json")),
                         "compiler.fusion");
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + config_with_compiler("tvm") +
                                           " --graph " + test::data_graph("mlp2.json")),
                         "compiler");
}

TEST(FusionCli, TheConfigFusesAndFuseOverridesIt) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const std::string graph = test::model_path("gpt2_prefill_5.json");
  auto run_json = [&](const std::string& args) {
    const auto r = test::run_command(test::lightsim() + " --hw " + test::shipped_config("gpu.json") +
                                     " --graph " + graph + " --json" + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json fused = run_json(""), unfused = run_json(" --fuse none"),
                       flash = run_json(" --set compiler.fuse=flash");
  EXPECT_EQ(fused["fusion"]["mode"], "tvm"); // gpu.json's compiler section
  EXPECT_EQ(fused["fusion"]["ops_before"], 810);
  EXPECT_EQ(fused["fusion"]["ops_after"], fused["ops"]);
  EXPECT_EQ(unfused["fusion"]["mode"], "none");
  EXPECT_EQ(unfused["ops"], 810);
  // Fusion groups the ops (343 of 810) and so shortens the run; the unfused graph's many small ops go where
  // they are cheapest, most of them to the host's cores (no launch), so its GPU launches are not a bound.
  EXPECT_LT(fused["ops"].get<int>(), unfused["ops"].get<int>() / 2);
  EXPECT_LT(fused["makespan_s"].get<double>(), unfused["makespan_s"].get<double>());
  EXPECT_GT(fused["fusion"]["gpu_kernel_launches"].get<int>(), 0);
  // Ops on CPUs launch no kernels: a CPU-only machine counts none.
  const auto cpu =
      test::run_command(test::lightsim() + " --hw " + test::shipped_config("lightcode-cpu.json") +
                        " --graph " + graph + " --json");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_EQ(nlohmann::json::parse(cpu.out)["fusion"]["gpu_kernel_launches"], 0);
  EXPECT_EQ(flash["fusion"]["mode"], "flash");
  EXPECT_EQ(flash["fusion"]["attention_ops"], 12);
  EXPECT_LE(fused["makespan_s"].get<double>(), unfused["makespan_s"].get<double>());
  // The lightcode configs keep fusion off: the prototype's figure still comes out.
  const auto r = test::run_command(test::lightsim() + " --hw " + test::shipped_config("lightcode-cpu.json") +
                                   " --graph " + graph + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json lc = nlohmann::json::parse(r.out);
  EXPECT_EQ(lc["fusion"]["mode"], "none");
  EXPECT_NEAR(lc["makespan_s"].get<double>(), 0.0916, 0.00005);
}

TEST(FusionCli, SimulatesAFusedPlan) {
  LIGHTSIM_NEED_SHARED_MODELS();
  const auto r =
      test::run_command(test::lightsim() + " --hw " + test::shipped_config("photonic.json") + " --graph " +
                        test::model_path("llama2_7b_decoder.json") + " --fuse flash --simulate");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fusion    flash"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("32 fused attention"), std::string::npos) << r.out;
}

TEST(FusionCli, LightsimGraphWritesAFusedGraphThatImportsBackFused) {
  const std::string dir = test::temp_dir();
  for (const char* mode : {"tvm", "flash"}) {
    SCOPED_TRACE(mode);
    const std::string fused_path = dir + "/llama_" + mode + ".json", plain_path = dir + "/llama.json";
    auto r = test::run_command(lightsim_graph() + " --model llama2-7b --seq 16 --layers 2 --fuse " + mode +
                               " -o " + fused_path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = test::run_command(lightsim_graph() + " --model llama2-7b --seq 16 --layers 2 -o " + plain_path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ir::Graph back = ir::import_tvm_graph_file(fused_path).graph;
    const ir::Graph plain = ir::import_tvm_graph_file(plain_path).graph;
    EXPECT_TRUE(ir::fusion::is_fused(back));
    // The same ops, names, classes and boundary tensors as the pass gives in memory.
    const ir::fusion::FusionResult mem = ir::fusion::fuse(plain, {*ir::fusion::kFuseModes.parse(mode), 256});
    ASSERT_EQ(back.ops.size(), mem.graph.ops.size());
    for (std::size_t i = 0; i < back.ops.size(); ++i) {
      const ir::Op &a = back.ops[i], &b = mem.graph.ops[i];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.func_name, b.func_name);
      EXPECT_EQ(a.op_class, b.op_class) << a.name;
      EXPECT_EQ(a.features.fused_tail, b.features.fused_tail) << a.name;
      EXPECT_EQ(a.features.bytes_in, b.features.bytes_in) << a.name;
      EXPECT_EQ(a.features.bytes_out, b.features.bytes_out) << a.name;
      EXPECT_EQ(a.features.macs, b.features.macs) << a.name;
    }
    EXPECT_TRUE(std::any_of(back.ops.begin(), back.ops.end(), [](const ir::Op& op) {
      return op.func_name == "tvmgen_default_fused_power_mean" && op.op_class == ir::OpClass::Mean;
    }));
  }
  test::expect_bad_input(
      test::run_command(lightsim_graph() + " --model gpt2 --seq 4 --fuse fast -o " + dir + "/x.json"),
      "--fuse");
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.json"));
}

// The Must-show: for the time objective, on the same machine, the fused plan is never slower.
TEST(FusionPlan, NeverSlowerThanUnfusedForTheTimeObjective) {
  LIGHTSIM_NEED_SHARED_MODELS();
  for (const char* file :
       {"gpt2_prefill_5.json", "gpt2_decoder_5.json", "llama2_7b_prefill.json", "llama2_7b_decoder.json"})
    for (const char* hw : {"cpu.json", "gpu.json", "photonic.json"}) {
      PipelineOptions options;
      options.hardware_path = test::shipped_config(hw);
      options.graph_path = test::model_path(file);
      options.fuse = ir::fusion::FuseMode::None;
      const Pipeline unfused(options);
      for (ir::fusion::FuseMode mode :
           {ir::fusion::FuseMode::Tvm, ir::fusion::FuseMode::Flash, ir::fusion::FuseMode::Vllm}) {
        options.fuse = mode;
        const Pipeline fused(options);
        std::cout << file << " on " << hw << ", " << ir::fusion::kFuseModes.name(mode) << ": "
                  << fused.graph().num_compute_ops() << " ops vs " << unfused.graph().num_compute_ops()
                  << ", makespan " << fused.schedule().makespan_s << " s vs " << unfused.schedule().makespan_s
                  << " s\n";
        EXPECT_LE(fused.schedule().makespan_s, unfused.schedule().makespan_s) << file << " " << hw;
      }
    }
}

// compiler.fold_constants (ir/fusion/fold_constants.h) on lightsim-graph's DeiT-T (one layer): the weight
// transposes and broadcasts of TVM's PyTorch front end are done ahead of time (fewer ops, fewer copies);
// the report says how many were folded; a bad value is one line.
TEST(FusionCli, FoldConstantsRemovesTheOpsOnWeights) {
  const std::string dir = test::temp_dir(), graph = dir + "/deit_t_1.json";
  const test::CommandResult made =
      test::run_command(lightsim_graph() + " --model deit-t --layers 1 --dtype int8 -o " + graph);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // photonic.json with `compiler`, beside the graph (config_with_compiler would clear the folder).
  const auto config = [&](const nlohmann::json& compiler, const std::string& name) {
    nlohmann::json j = nlohmann::json::parse(std::ifstream(test::shipped_config("photonic.json")));
    j["compiler"] = compiler;
    const std::string path = dir + "/" + name + ".json";
    std::ofstream(path) << j.dump(1);
    return path;
  };
  const auto run = [&](bool fold) {
    const test::CommandResult r =
        test::run_command(test::lightsim() + " --hw " +
                          config({{"fuse", "none"}, {"fold_constants", fold}}, fold ? "fold" : "plain") +
                          " --graph " + graph + " --json --top 100000");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json plain = run(false), folded = run(true);
  const std::size_t folded_ops = folded["fusion"]["folded_ops"].get<std::size_t>();
  EXPECT_EQ(plain["fusion"]["folded_ops"], 0);
  EXPECT_GT(folded_ops, 0u);
  EXPECT_EQ(folded["ops"].get<std::size_t>(), plain["ops"].get<std::size_t>() - folded_ops);
  std::size_t copies_before = 0, copies_after = 0;
  for (const auto& op : plain["costliest_ops"])
    copies_before += op["class"] == "copy";
  for (const auto& op : folded["costliest_ops"])
    copies_after += op["class"] == "copy";
  EXPECT_LT(copies_after, copies_before); // the weights' broadcast_to copies are gone
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " +
                                           config({{"fold_constants", "yes"}}, "bad") + " --graph " + graph),
                         "compiler.fold_constants");
}

// Fused attention on a PHU with buffer levels (issue 25): BERT's attention, whose mask is computed from the
// attention-mask input and whose probabilities pass an identity broadcast_to, fuses into one op per layer
// (--fuse flash, the DOTA-B config's compiler section); the PHU runs it (Q K^T and P V on the array, the
// softmax in the periphery) with the arithmetic model's energy equal to the replay's and its makespan within
// the shipped configs' 2% (the replay's load stage stalls a little behind the weights' prefetch).
TEST(FusionCli, PhuRunsFusedAttentionThroughAComputedMask) {
  const std::string graph = test::temp_dir() + "/bert_2.json";
  const test::CommandResult made = test::run_command(
      lightsim_graph() + " --model bert-base --seq 128 --layers 2 --dtype int8 -o " + graph);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const test::CommandResult r = test::run_command(test::lightsim() + " --hw " +
                                                  test::source_path("configs/published/dota-b-8bit.json") +
                                                  " --graph " + graph + " --json --simulate --top 100000");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["fusion"]["attention_ops"], 2);
  int on_phu = 0;
  for (const auto& op : j["costliest_ops"])
    on_phu += op["class"] == "attention" && op["unit"] == "phu0";
  EXPECT_EQ(on_phu, 2);
  const double replay_s = j["simulation"]["simulated_makespan_s"].get<double>();
  const double replay_j = j["simulation"]["simulated_energy_j"].get<double>();
  EXPECT_NEAR(j["makespan_s"].get<double>(), replay_s, 0.02 * replay_s); // the shipped configs' bound
  EXPECT_NEAR(j["energy_j"].get<double>(), replay_j, 1e-6 * replay_j);
}

} // namespace
} // namespace lightsim
