// Resident model state (issue 24, item 4): a decode step's KV cache is a per-run input that a runtime keeps
// in the memory of the device that runs attention. With placement.state "any" (the default) Llama-2-7B decode
// on h100.json holds the whole cache in hbm0 (the bytes of every past_k / past_v input, computed here by
// hand from the shapes), counts it in hbm0's capacity, and sends none of it over PCIe; with "inputs" every
// cache byte crosses PCIe each step, as before this mechanism. A cache that fits nowhere, and a placement
// naming no unit, are one line and exit 2.
#include "ir/error.h"
#include "ir/graphgen/tvm_writer.h"
#include "scheduler/memory_use.h"
#include "sim/driver/pipeline.h"
#include "sim/io/atomic_file.h"
#include "tests/cli/run_command.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>

namespace lightsim {
namespace {

constexpr int kLayers = 2;
constexpr std::int64_t kSeq = 128; // context after the step: 127 cached tokens and one new

// Llama-2-7B decode, fp16, two layers (the cache's size per layer does not depend on the layer count).
std::string llama7b_decode() {
  ir::graphgen::GraphRequest r = test::request("llama2-7b", ir::graphgen::Phase::Decode, kSeq);
  r.dtype = ir::DType::Float16;
  r.layers = kLayers;
  const std::string path = test::temp_dir() + "/llama2_7b_decode_state.json";
  const test::Generated g = test::generate(r);
  write_file_atomically(path, "graph",
                        [&](std::ostream& out) { ir::graphgen::write_tvm_graph(g.lowered, out); });
  return path;
}

// By hand: K and V per layer, each [1 batch, 32 heads, 127 tokens, 128 head dim] of 2-byte elements.
constexpr double kCacheBytes = 2.0 * kLayers * 32 * (kSeq - 1) * 128 * 2;

struct DecodeRun {
  explicit DecodeRun(const std::vector<std::string>& overrides)
      : pipeline(options(), load_machine_config(test::source_path("configs/h100.json"), overrides)) {}
  static PipelineOptions options() {
    PipelineOptions o;
    o.hardware_path = test::source_path("configs/h100.json");
    o.graph_path = llama7b_decode();
    return o;
  }
  // Bytes of the state inputs that some transfer moves (over any link).
  double state_bytes_moved() const {
    double moved = 0;
    for (const sched::ScheduledTransfer& tr : pipeline.schedule().transfers)
      if (pipeline.graph().ops[tr.src_op].is_state) moved += static_cast<double>(tr.bytes);
    return moved;
  }
  Pipeline pipeline;
};

TEST(ModelState, DecodeCacheInputsAreRecognised) {
  const DecodeRun run({});
  double state = 0;
  int inputs = 0;
  for (const ir::Op& op : run.pipeline.graph().ops)
    if (op.is_state) {
      ++inputs;
      EXPECT_EQ(op.op_class, ir::OpClass::Input);
      EXPECT_FALSE(op.is_param);
      EXPECT_TRUE(op.name.starts_with("past_")) << op.name;
      state += static_cast<double>(run.pipeline.graph().tensors[op.outputs[0]].bytes);
    }
  EXPECT_EQ(inputs, 2 * kLayers);
  EXPECT_DOUBLE_EQ(state, kCacheBytes);
}

TEST(ModelState, CacheIsResidentInHbmAndNeverCrossesPcie) {
  const DecodeRun resident({});
  const ir::Hardware& hw = resident.pipeline.hardware();
  const int hbm = hw.find_memory("hbm0"), dram = hw.find_memory("dram0");
  ASSERT_GE(hbm, 0);
  ASSERT_GE(dram, 0);
  EXPECT_EQ(hw.placement.state_unit, -1); // h100.json says nothing: the default, "any"
  const std::vector<sched::MemoryUse> use =
      sched::memory_use(resident.pipeline.flat(), resident.pipeline.schedule());
  EXPECT_DOUBLE_EQ(use[hbm].resident_state_bytes, kCacheBytes);
  EXPECT_DOUBLE_EQ(use[dram].resident_state_bytes, 0);
  EXPECT_EQ(resident.state_bytes_moved(), 0);

  // Sent with the per-run inputs from the host: every cache byte crosses PCIe once, and the step is longer.
  const DecodeRun sent({"placement.state=inputs"});
  EXPECT_EQ(sent.pipeline.hardware().placement.state_unit, ir::Placement::kStateWithInputs);
  const std::vector<sched::MemoryUse> sent_use =
      sched::memory_use(sent.pipeline.flat(), sent.pipeline.schedule());
  EXPECT_DOUBLE_EQ(sent_use[hbm].resident_state_bytes, 0);
  EXPECT_DOUBLE_EQ(sent.state_bytes_moved(), kCacheBytes);
  EXPECT_GT(sent.pipeline.schedule().makespan_s, resident.pipeline.schedule().makespan_s);

  // Pinned to the GPU by name: the same as "any" here.
  const DecodeRun pinned({"placement.state=gpu0"});
  EXPECT_DOUBLE_EQ(
      sched::memory_use(pinned.pipeline.flat(), pinned.pipeline.schedule())[hbm].resident_state_bytes,
      kCacheBytes);
  EXPECT_EQ(pinned.state_bytes_moved(), 0);
}

TEST(ModelState, CacheThatFitsNowhereIsOneLine) {
  // hbm0 of 0.5 MiB (no prefetch buffers in it), the cache pinned there: one past_k input alone is 0.99 MiB.
  const std::string small = " --set latency_hiding=false --set memories.hbm0.capacity_MiB=0.5";
  try {
    const DecodeRun run({"placement.state=gpu0", "latency_hiding=false", "memories.hbm0.capacity_MiB=0.5"});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("model state (KV cache)"), std::string::npos) << what;
    EXPECT_NE(what.find("placement.state is 'gpu0'"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  const std::string graph = llama7b_decode();
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("h100.json") +
                                           " --graph " + graph + " --set placement.state=gpu0" + small),
                         {"model state (KV cache)", "past_", "hbm0"});
  // With "any", the cache and the weights together over every memory: named in the one line.
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("h100.json") +
                                           " --graph " + graph + small +
                                           " --set memories.dram0.capacity_MiB=300"),
                         {"the weights and model state (KV cache)", "fit"});
  test::expect_bad_input(test::run_command(test::lightsim() + " --hw " + test::shipped_config("h100.json") +
                                           " --graph " + graph + " --set placement.state=nowhere"),
                         {"placement", "state", "nowhere"});
}

// The GPU fields of the Hopper mechanisms (sim/units/gpu/gpu_params.h), out of range: one line naming the
// unit, the field and the value.
TEST(ModelState, GpuFieldsOfTheNewMechanismsOutOfRangeAreOneLine) {
  const std::string run = test::lightsim() + " --hw " + test::shipped_config("h100.json") + " --graph " +
                          test::data_graph("mlp2.json") + " --set ";
  test::expect_bad_input(test::run_command(run + "gpu0.l2.capacity_MiB=-1"),
                         {"gpu0", "l2.capacity_MiB", "-1"});
  test::expect_bad_input(test::run_command(run + "gpu0.l2.bandwidth_GBps=0"),
                         {"gpu0", "l2.bandwidth_GBps", "0"});
  test::expect_bad_input(test::run_command(run + "'gpu0.l2={\"capacity_MiB\": 50}'"),
                         {"gpu0", "bandwidth_GBps"});
  test::expect_bad_input(test::run_command(run + "gpu0.one_pass_row_elements=-5"),
                         {"gpu0", "one_pass_row_elements", "-5"});
  test::expect_bad_input(test::run_command(run + "gpu0.stream_k=3"), {"gpu0", "stream_k", "true or false"});
}

} // namespace
} // namespace lightsim
