// Memory capacity end to end. Llama-2-70B prefill (fp32: ~276 GB of weights, fp16: ~138 GB) on
// photonic.json, whose GPU has 80 GiB of HBM: no memory holds more weights than its capacity, the excess
// stays in host DRAM and is streamed to the GPU every inference over the PCIe link, and the makespan pays
// for it. And as a user meets it: a model that fits nowhere, a capacity of 0 and a memory that no link
// reaches are each one line on stderr with exit status 2; --json gives per memory its capacity, resident
// weights and peak live bytes.
#include "ir/graphgen/tvm_writer.h"
#include "scheduler/memory_use.h"
#include "sim/driver/pipeline.h"
#include "sim/io/atomic_file.h"
#include "tests/cli/run_command.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim {
namespace {

// Llama-2-70B prefill at a short length (the weights do not depend on it; the test stays fast).
std::string llama70b(ir::DType dtype) {
  ir::graphgen::GraphRequest r = test::request("llama2-70b", ir::graphgen::Phase::Prefill, 16);
  r.dtype = dtype;
  const std::string path =
      test::temp_dir() + "/llama2_70b_" + (dtype == ir::DType::Float16 ? "fp16" : "fp32") + ".json";
  const test::Generated g = test::generate(r);
  write_file_atomically(path, "graph",
                        [&](std::ostream& out) { ir::graphgen::write_tvm_graph(g.lowered, out); });
  return path;
}

PipelineOptions options(const std::string& graph) {
  PipelineOptions o;
  o.hardware_path = test::source_path("configs/photonic.json");
  o.graph_path = graph;
  return o;
}

TEST(Capacity, Llama70bWeightsStayWithinEveryMemoryAndTheExcessIsStreamed) {
  for (ir::DType dtype : {ir::DType::Float32, ir::DType::Float16}) {
    SCOPED_TRACE(dtype == ir::DType::Float32 ? "fp32" : "fp16");
    const std::string graph = llama70b(dtype);
    // The capacity pricing alone: without latency hiding each streamed weight is sent once per memory that
    // reads it (with it, the load stages fetch a copy per reading op: Llama70bStreamedWeightsGoThrough...).
    MachineConfig no_hiding = load_machine_config(test::source_path("configs/photonic.json"));
    ir::set_latency_hiding(no_hiding.hardware, false);
    const Pipeline run(options(graph), no_hiding);
    const ir::Hardware& hw = run.hardware();
    const int dram = hw.find_memory("dram0"), hbm = hw.find_memory("hbm0");
    int pcie = -1;
    for (std::size_t l = 0; l < hw.links.size(); ++l)
      if (hw.links[l].name == "pcie-gpu") pcie = static_cast<int>(l);
    ASSERT_GE(dram, 0);
    ASSERT_GE(hbm, 0);
    ASSERT_GE(pcie, 0);

    double weights = 0;
    for (const ir::Op& op : run.graph().ops)
      if (op.op_class == ir::OpClass::Input && op.is_param)
        for (ir::TensorId t : op.outputs)
          weights += static_cast<double>(run.graph().tensors[t].bytes);
    ASSERT_GT(weights, hw.memories[hbm].capacity_bytes); // the point of the test

    const std::vector<sched::MemoryUse> use = sched::memory_use(run.flat(), run.schedule());
    double resident = 0;
    for (std::size_t m = 0; m < use.size(); ++m) {
      EXPECT_LE(use[m].resident_weight_bytes, hw.memories[m].capacity_bytes) << hw.memories[m].name;
      resident += use[m].resident_weight_bytes;
    }
    EXPECT_DOUBLE_EQ(resident, weights); // every weight is resident somewhere, once
    // The HBM is nearly full of weights; host DRAM (and the PHU's SRAM, a few MB) holds the rest, which the
    // GPU's ops read by streaming.
    const int sram = hw.find_memory("sram0");
    ASSERT_GE(sram, 0);
    EXPECT_GT(use[hbm].resident_weight_bytes, 0.95 * hw.memories[hbm].capacity_bytes);
    EXPECT_GT(use[dram].resident_weight_bytes + use[sram].resident_weight_bytes,
              weights - hw.memories[hbm].capacity_bytes - 1.0);
    // Streamed into HBM, per inference: exactly the weights held elsewhere that an op on the GPU reads.
    double needed_on_gpu = 0;
    for (std::size_t op = 0; op < run.graph().ops.size(); ++op) {
      const ir::Op& desc = run.graph().ops[op];
      if (desc.op_class != ir::OpClass::Input || !desc.is_param) continue;
      if (hw.units[run.flat().unit_of(static_cast<ir::OpId>(op))].memory == hbm) continue;
      bool read_on_gpu = false;
      for (ir::OpId c : run.graph().consumers[desc.outputs[0]])
        read_on_gpu = read_on_gpu || hw.units[run.flat().unit_of(c)].memory == hbm;
      if (read_on_gpu) needed_on_gpu += static_cast<double>(run.graph().tensors[desc.outputs[0]].bytes);
    }
    EXPECT_GT(needed_on_gpu, 0.9 * (weights - hw.memories[hbm].capacity_bytes));
    EXPECT_DOUBLE_EQ(use[hbm].streamed_weight_bytes, needed_on_gpu);
    // Visible on the PCIe link and in the makespan.
    const sched::Schedule& s = run.schedule();
    EXPECT_GE(static_cast<double>(s.link_bytes[pcie]), use[hbm].streamed_weight_bytes);
    const double stream_s = use[hbm].streamed_weight_bytes / (hw.links[pcie].bandwidth_GBps * 1e9);
    EXPECT_GE(s.makespan_s, stream_s);
    EXPECT_TRUE(run.objective_report().capacity.binding);
    EXPECT_GE(run.objective_report().capacity.gap(), 0.0);
    EXPECT_LT(run.objective_report().capacity.relative_gap(), 0.01);

    // With an HBM large enough for every weight next to nothing is streamed (a weight the solver keeps on the
    // host for a CPU op may still be sent to a GPU op too: kilobytes) and the run is far shorter.
    MachineConfig big = load_machine_config(test::source_path("configs/photonic.json"));
    big.hardware.memories[hbm].capacity_bytes = 2 * weights;
    ir::set_latency_hiding(big.hardware, false);
    const Pipeline unlimited(options(graph), big);
    EXPECT_LT(sched::memory_use(unlimited.flat(), unlimited.schedule())[hbm].streamed_weight_bytes,
              1e-6 * weights);
    EXPECT_LT(unlimited.schedule().makespan_s, s.makespan_s - 0.9 * stream_s);
  }
}

// With latency hiding on (photonic.json), the GPU's load stage fetches each streamed weight into its two
// 1 GiB prefetch buffers ahead of the dense that reads it, so the streamed copies in HBM never exceed the
// buffers, whose room the capacity pricing keeps free of resident weights. Off, every streamed weight is
// sent at t = 0 and all of them pile up in HBM at once. Bounded buffers cost little time: the PCIe link
// stays busy (loads run ahead while the GPU computes), within 10% of the unbounded pile-up.
TEST(Capacity, Llama70bStreamedWeightsGoThroughThePrefetchBuffers) {
  const std::string graph = llama70b(ir::DType::Float16);
  const MachineConfig on = load_machine_config(test::source_path("configs/photonic.json"));
  MachineConfig off = on;
  ir::set_latency_hiding(off.hardware, false);
  const Pipeline hidden(options(graph), on), piled(options(graph), off);
  const int hbm = on.hardware.find_memory("hbm0"), gpu = on.hardware.find_unit("gpu0");
  ASSERT_GE(hbm, 0);
  ASSERT_GE(gpu, 0);
  const double buffers = ir::prefetch_reserved_bytes(on.hardware.units[gpu]);
  EXPECT_EQ(buffers, 2.0 * 1024 * 1024 * 1024);

  const sched::MemoryUse use = sched::memory_use(hidden.flat(), hidden.schedule())[hbm];
  EXPECT_GT(use.streamed_weight_bytes, 40e9);
  EXPECT_LE(use.peak_streamed_bytes, buffers);
  EXPECT_LE(use.resident_weight_bytes + buffers, on.hardware.memories[hbm].capacity_bytes);
  const sched::UnitUsage& loads = hidden.schedule().units[gpu];
  EXPECT_EQ(loads.load_bytes, use.streamed_weight_bytes); // every streamed byte came through a load
  EXPECT_EQ(loads.oversized_loads, 0u);
  EXPECT_GT(loads.load_hidden_s, 0);
  for (const sched::ScheduledTransfer& t : hidden.schedule().transfers)
    if (t.dst_memory == hbm && hidden.graph().ops[t.src_op].is_param) {
      EXPECT_TRUE(t.load);
    }

  const sched::MemoryUse all_at_once = sched::memory_use(piled.flat(), piled.schedule())[hbm];
  EXPECT_EQ(all_at_once.peak_streamed_bytes, all_at_once.streamed_weight_bytes);
  EXPECT_GT(all_at_once.peak_streamed_bytes, 10 * buffers);
  EXPECT_EQ(piled.schedule().units[gpu].loads, 0u);
  EXPECT_LE(hidden.schedule().makespan_s, 1.1 * piled.schedule().makespan_s);
}

TEST(CapacityCli, AModelThatFitsNowhereIsRefusedInOneLine) {
  // Every memory far smaller than the smallest weight matrix (32 KiB). Latency hiding off: the load stages'
  // prefetch buffers would not fit such memories either (a bad input of its own, tested in
  // tests/cli/latency_test.cc).
  test::expect_bad_input(test::run_command(test::photonic_mlp2() + " --latency-hiding off" +
                                           " --set memories.dram0.capacity_MiB=0.01" +
                                           " --set memories.hbm0.capacity_MiB=0.01" +
                                           " --set memories.sram0.capacity_MiB=0.01"),
                         {"fits in no memory", "0.01 MiB"});
  // Each weight fits somewhere, but not all of them together (38.4 KB of weights; 32.8 + 1 + 1 KB of room).
  test::expect_bad_input(test::run_command(test::photonic_mlp2() + " --latency-hiding off" +
                                           " --set memories.dram0.capacity_MiB=0.0313" +
                                           " --set memories.hbm0.capacity_MiB=0.001" +
                                           " --set memories.sram0.capacity_MiB=0.001"),
                         {"fit nowhere"});
}

TEST(CapacityCli, ZeroCapacityIsBadInput) {
  test::expect_bad_input(test::run_command(test::photonic_mlp2() + " --set memories.hbm0.capacity_MiB=0"),
                         {"capacity_MiB", "memories[1]"});
}

TEST(CapacityCli, AMemoryThatNoLinkReachesIsBadInput) {
  // pcie-phu rewired to the GPU: nothing reaches the PHU's SRAM, so nothing could be streamed there.
  test::expect_bad_input(
      test::run_command(test::photonic_mlp2() + " --set 'links.pcie-phu.endpoints=[\"cpu0\",\"gpu0\"]'"),
      {"links", "no route", "sram0"});
}

TEST(CapacityCli, JsonGivesEveryMemorysCapacityResidentWeightsAndPeakLiveBytes) {
  for (const char* objective : {"time", "energy", "edp"}) {
    const auto r = test::run_command(test::photonic_mlp2() + " --json --objective " + objective);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["memories"].size(), 3u);
    double resident = 0;
    for (const auto& m : j["memories"]) {
      for (const char* key : {"name", "kind", "capacity_bytes", "resident_weight_bytes",
                              "streamed_weight_bytes", "peak_live_bytes", "peak_streamed_bytes"})
        EXPECT_TRUE(m.contains(key)) << key;
      EXPECT_LE(m["resident_weight_bytes"].get<double>(), m["capacity_bytes"].get<double>());
      resident += m["resident_weight_bytes"].get<double>();
    }
    EXPECT_GT(resident, 0);
    EXPECT_EQ(j["objective"], objective);
    EXPECT_FALSE(j["capacity"]["binding"].get<bool>());
    EXPECT_EQ(j["capacity"]["gap"].get<double>(), 0.0);
    if (std::string(objective) != "time") {
      EXPECT_EQ(j["starts"][0]["name"], "time");
      EXPECT_LE(j["search"]["final_value"].get<double>(), j["starts"][0]["value"].get<double>());
    }
  }
}

} // namespace
} // namespace lightsim
