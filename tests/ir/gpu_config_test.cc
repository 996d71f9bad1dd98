// The GPU section of hardware configs: the shipped A100 and H100 load with their datasheet figures and
// round-trip; every bad GPU field is one line naming the file, the unit's JSON path, the field and the
// value (empty tile list, efficiency outside (0, 1], a flash_attention field out of range, a tile that is not
// a multiple of the MMA shape or of its warp tile, one that does not fit in shared memory, an unknown
// precision, TF32 mode without a TF32 rate); and a graph whose GEMM dtype a GPU has no rate for is refused
// when the graph is costed.
#include "ir/cost/cost_model.h"
#include "ir/cost/stacked_graph.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/transfer.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "tests/ir/hardware_fixture.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::ir {
namespace {

using nlohmann::json;

// A GPU config error also names the unit.
void expect_error(const json& config, const std::string& path, const std::string& what) {
  test::expect_config_error(config, path, what);
  EXPECT_NE(test::config_load_error(config).find("(unit 'gpu0')"), std::string::npos);
}

double tensor(const Unit& u, GemmPrecision p) {
  return u.as<units::GpuParams>().tensor_core_macs_per_cycle_per_sm[static_cast<std::size_t>(p)];
}

TEST(GpuConfigs, A100AndH100FromTheirDatasheets) {
  const Hardware a100 = load_hardware(test::source_path("configs/a100.json"));
  const Unit& a = a100.units.at(static_cast<std::size_t>(a100.find_unit("gpu0")));
  // 2 x 1024 fp16 MACs x 108 SMs x 1.41 GHz = 312 TFLOP/s; HBM2e 2039 GB/s.
  EXPECT_NEAR(2 * tensor(a, GemmPrecision::Float16) * a.as<units::GpuParams>().sms * a.clock_ghz * 1e9,
              312e12, 0.5e12);
  EXPECT_NEAR(2 * tensor(a, GemmPrecision::Tf32) * a.as<units::GpuParams>().sms * a.clock_ghz * 1e9, 156e12,
              0.5e12);
  EXPECT_NEAR(2 * tensor(a, GemmPrecision::Int8) * a.as<units::GpuParams>().sms * a.clock_ghz * 1e9, 624e12,
              1e12);
  EXPECT_NEAR(2 *
                  a.as<units::GpuParams>()
                      .cuda_core_macs_per_cycle_per_sm[static_cast<std::size_t>(GemmPrecision::Float32)] *
                  a.as<units::GpuParams>().sms * a.clock_ghz * 1e9,
              19.5e12, 0.1e12);
  EXPECT_EQ(a.as<units::GpuParams>().memory_bandwidth_GBps, 2039);
  EXPECT_GT(a.as<units::GpuParams>().main_loop_efficiency, 0);
  EXPECT_LE(a.as<units::GpuParams>().main_loop_efficiency, 1);
  const Hardware h100 = load_hardware(test::source_path("configs/h100.json"));
  const Unit& h = h100.units.at(static_cast<std::size_t>(h100.find_unit("gpu0")));
  EXPECT_NEAR(2 * tensor(h, GemmPrecision::Float16) * h.as<units::GpuParams>().sms * h.clock_ghz * 1e9,
              989.4e12, 0.5e12);
  EXPECT_NEAR(2 * tensor(h, GemmPrecision::Float8) * h.as<units::GpuParams>().sms * h.clock_ghz * 1e9,
              1978.9e12, 1e12);
  // The realistic machines' GPU (gpu.json, photonic.json) is this H100 from its datasheet with the A100's
  // fitted constants; h100.json's adds Hopper's library kernels and L2, the launch and stream rate measured
  // by our sweeps and three constants fitted to our H100 measurements (configs/measured/h100-fidelity.md),
  // and differs in nothing else.
  const Hardware gpu = load_hardware(test::source_path("configs/gpu.json"));
  const Hardware photonic = load_hardware(test::source_path("configs/photonic.json"));
  const auto& like = gpu.units.at(static_cast<std::size_t>(gpu.find_unit("gpu0"))).as<units::GpuParams>();
  EXPECT_EQ(photonic.units.at(static_cast<std::size_t>(photonic.find_unit("gpu0"))).as<units::GpuParams>(),
            like);
  units::GpuParams measured = h.as<units::GpuParams>();
  EXPECT_TRUE(measured.stream_k);
  EXPECT_TRUE(measured.persistent_epilogues);
  EXPECT_FALSE(like.persistent_epilogues);
  measured.persistent_epilogues = false;
  EXPECT_EQ(measured.l2.capacity_MiB, 50);
  EXPECT_EQ(measured.l2.latency_ns, 140);
  EXPECT_EQ(measured.l2.reach_MiB, 28);
  EXPECT_EQ(measured.one_pass_row_elements, 1024);
  EXPECT_TRUE(measured.flash_attention_2);
  EXPECT_FALSE(like.stream_k);
  EXPECT_FALSE(like.flash_attention_2);
  EXPECT_EQ(like.l2.capacity_MiB, 0);
  measured.stream_k = false;
  measured.l2 = {};
  measured.one_pass_row_elements = 0;
  measured.flash_attention_2 = false;
  EXPECT_EQ(like.gemm_prologue_ns, 0);
  EXPECT_EQ(like.stream_memory_efficiency, -1); // absent: memory_efficiency
  EXPECT_EQ(like.row_reduction_cycles_per_element, 0);
  EXPECT_FALSE(like.row_wave_overlap);
  EXPECT_TRUE(measured.row_wave_overlap);
  EXPECT_EQ(measured.row_step_latency_ns, 200); // F.rms_norm measured on the H100 (the A100's fit: 310)
  // FlashAttention-2's head-size-128 kernel; its CTA's fixed time from our one-query SDPA kernel.
  EXPECT_EQ(measured.flash_attention, (units::GpuFlashAttention{.block_m = 128,
                                                                .block_n = 64,
                                                                .split_block_m = 64,
                                                                .split_block_n = 128,
                                                                .ctas_per_sm = 2,
                                                                .cta_latency_ns = 3410,
                                                                .exp_per_cycle_per_sm = 16,
                                                                .setup_kernels = 1}));
  EXPECT_EQ(like.flash_attention.block_m, 0);
  measured.flash_attention = like.flash_attention;
  measured.row_wave_overlap = like.row_wave_overlap;
  measured.row_step_latency_ns = like.row_step_latency_ns;
  measured.row_reduction_cycles_per_element = like.row_reduction_cycles_per_element;
  measured.stream_memory_efficiency = like.stream_memory_efficiency;
  measured.gemm_prologue_ns = like.gemm_prologue_ns;
  measured.launch_latency_ns = like.launch_latency_ns;
  measured.memory_efficiency = like.memory_efficiency;
  measured.main_loop_efficiency = like.main_loop_efficiency;
  EXPECT_EQ(measured, like);
  for (const Hardware* hw : {&a100, &h100}) {
    const json j = hardware_to_json(*hw);
    EXPECT_EQ(hardware_from_json(j, hw->source), *hw);
    EXPECT_EQ(hardware_to_json(hardware_from_json(json::parse(j.dump(2)), hw->source)), j);
  }
}

// An element kernel the fit leaves with its formula (resize: no training graph has one) costs what the
// GPU module charges: launch + gap + the larger of its CUDA cores' cycles and its stream (Gpu::kernel_ns),
// on both sides of the turn.
TEST(GpuConfigs, ElementKernelFormulaIsTheModulesRoofline) {
  const Hardware h100 = load_hardware(test::source_path("configs/h100.json"));
  const Unit& u = h100.units.at(static_cast<std::size_t>(h100.find_unit("gpu0")));
  const auto& gpu = u.as<units::GpuParams>();
  const OpClassModel& resize =
      h100.models.at(static_cast<std::size_t>(u.model)).classes[static_cast<std::size_t>(OpClass::Resize)];
  ASSERT_FALSE(resize.fit.has_value()); // the formula, not a fit
  int compute_bound = 0, stream_bound = 0;
  for (double n : {1e3, 1e5, 1e7}) {
    // 0.01 bytes an element: no real tensor, but an element kernel on the CUDA cores' side of the turn (a
    // real one rarely is: the H100 streams 1666 bytes a cycle against 16896 element operations).
    for (double bytes_per_element : {0.01, 4.0}) {
      OpFeatures f;
      f.elements_in = f.elements_read = n / 4;
      f.elements_out = n;
      f.bytes_in = f.bytes_read = n / 4 * bytes_per_element;
      f.bytes_out = n * bytes_per_element;
      f.max_dim = n;
      const double compute = feature_value(Feature::ComputeCycles, f, u);
      const double stream = feature_value(units::gpu_features().stream_cycles, f, u);
      const double l2 = units::gpu_l2_bytes(gpu, f.bytes_read + f.bytes_out, 0);
      EXPECT_NEAR(stream,
                  units::gpu_stream_ns(gpu, units::gpu_stream_efficiency(gpu, OpClass::Resize),
                                       f.bytes_read + f.bytes_out, l2) *
                      u.clock_ghz,
                  1e-9 * stream);
      (compute > stream ? compute_bound : stream_bound)++;
      const double module_s =
          (gpu.launch_latency_ns + gpu.kernel_gap_ns + std::max(compute, stream) / u.clock_ghz) * 1e-9;
      EXPECT_NEAR(evaluate(resize, f, u).time_s, module_s, 1e-9 * module_s) << n << " " << bytes_per_element;
    }
  }
  EXPECT_GT(compute_bound, 0);
  EXPECT_GT(stream_bound, 0);
}

TEST(GpuBadConfig, EmptyTileList) {
  json c = test::small_machine();
  c["units"][1]["cta_tiles"] = json::array();
  expect_error(c, "units[1].cta_tiles", "is empty");
}

TEST(GpuBadConfig, EfficiencyOutsideZeroToOne) {
  for (double bad : {0.0, -0.2, 1.01, 7.0}) {
    json c = test::small_machine();
    c["units"][1]["main_loop_efficiency"] = bad;
    expect_error(c, "units[1].main_loop_efficiency", "must be in (0, 1], got " + json(bad).dump());
    c = test::small_machine();
    c["units"][1]["memory_efficiency"] = bad;
    expect_error(c, "units[1].memory_efficiency", "must be in (0, 1], got " + json(bad).dump());
    c = test::small_machine();
    c["units"][1]["stream_memory_efficiency"] = bad;
    expect_error(c, "units[1].stream_memory_efficiency", "must be in (0, 1], got " + json(bad).dump());
  }
  // The L2's reach and latency, and the GEMM prologue: out of range names the field and the value.
  json l2 = test::small_machine();
  l2["units"][1]["l2"] = {{"capacity_MiB", 50}, {"bandwidth_GBps", 8000}, {"reach_MiB", 0}};
  EXPECT_NE(test::config_load_error(l2).find("units[1].l2.reach_MiB"), std::string::npos);
  EXPECT_NE(test::config_load_error(l2).find("got 0"), std::string::npos);
  l2["units"][1]["l2"]["reach_MiB"] = 28;
  l2["units"][1]["l2"]["latency_ns"] = -140;
  EXPECT_NE(test::config_load_error(l2).find("units[1].l2.latency_ns"), std::string::npos);
  l2["units"][1]["l2"]["latency_ns"] = 140;
  l2["units"][1]["gemm_prologue_ns"] = -1;
  EXPECT_NE(test::config_load_error(l2).find("units[1].gemm_prologue_ns"), std::string::npos);
  l2["units"][1]["gemm_prologue_ns"] = 140;
  EXPECT_EQ(test::config_load_error(l2), "");
  json c = test::small_machine();
  c["units"][1]["main_loop_efficiency"] = 1; // the bound itself is allowed
  EXPECT_EQ(test::config_load_error(c), "");
}

TEST(GpuBadConfig, RowKernelFieldsOutOfRange) {
  const std::vector<std::pair<std::string, json>> bad = {
      {"max_threads_per_sm", 0},      {"max_threads_per_sm", 16},     {"max_threads_per_sm", 2.5},
      {"max_ctas_per_sm", 0},         {"row_step_latency_ns", -1},    {"row_memory_efficiency", 0},
      {"row_memory_efficiency", 1.5}, {"row_step_latency_ns", "fast"}};
  for (const auto& [field, value] : bad) {
    SCOPED_TRACE(field + " = " + value.dump());
    json c = test::small_machine();
    c["units"][1][field] = value;
    const std::string error = test::config_load_error(c);
    EXPECT_NE(error.find("units[1]." + field), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  json c = test::small_machine();
  c["units"][1]["max_threads_per_sm"] = 1536;
  c["units"][1]["row_memory_efficiency"] = 1;
  c["units"][1]["row_step_latency_ns"] = 0;
  EXPECT_EQ(test::config_load_error(c), "");
}

TEST(GpuBadConfig, FlashAttentionFieldsOutOfRange) {
  const json good = {
      {"block_m", 128},   {"block_n", 64},          {"split_block_m", 64},       {"split_block_n", 128},
      {"ctas_per_sm", 2}, {"cta_latency_ns", 3000}, {"exp_per_cycle_per_sm", 16}};
  json c = test::small_machine();
  c["units"][1]["flash_attention_2"] = true;
  c["units"][1]["flash_attention"] = good;
  EXPECT_EQ(test::config_load_error(c), "");
  const std::vector<std::pair<std::string, json>> bad = {
      {"block_m", 0},         {"split_block_n", -64},      {"ctas_per_sm", 0},
      {"cta_latency_ns", -1}, {"exp_per_cycle_per_sm", 0}, {"setup_kernels", 17},
      {"block_n", "wide"}};
  for (const auto& [field, value] : bad) {
    SCOPED_TRACE(field + " = " + value.dump());
    json b = c;
    b["units"][1]["flash_attention"][field] = value;
    const std::string error = test::config_load_error(b);
    EXPECT_NE(error.find("units[1].flash_attention." + field), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

TEST(GpuBadConfig, TileNotAMultipleOfTheMmaShape) {
  json c = test::small_machine(); // MMA 16 x 8, 32 bytes of k
  c["units"][1]["cta_tiles"][1]["k_bytes"] = 48;
  expect_error(c, "units[1].cta_tiles[1].k_bytes",
               "must be a multiple of the MMA shape's k_bytes (32), got 48");
  c = test::small_machine();
  c["units"][1]["cta_tiles"][0]["warp_m"] = 24;
  c["units"][1]["cta_tiles"][0]["m"] = 120;
  expect_error(c, "units[1].cta_tiles[0].warp_m", "must be a multiple of the MMA shape's m (16), got 24");
  c = test::small_machine();
  c["units"][1]["cta_tiles"][0]["warp_n"] = 60;
  expect_error(c, "units[1].cta_tiles[0].warp_n", "must be a multiple of the MMA shape's n (8), got 60");
  c = test::small_machine();
  c["units"][1]["cta_tiles"][0]["m"] = 96; // warps of 64 rows do not tile 96
  expect_error(c, "units[1].cta_tiles[0].m", "must be a multiple of warp_m (64), got 96");
}

TEST(GpuBadConfig, TileThatDoesNotFitInSharedMemory) {
  json c = test::small_machine();
  c["units"][1]["cta_tiles"][0]["stages"] = 11; // 11 x (128 + 128) x 64 B = 176 KiB > 164 KiB
  expect_error(c, "units[1].cta_tiles[0]", "needs 176.0 KiB of shared memory for 11 stages");
}

TEST(GpuBadConfig, UnknownPrecisionAndTf32WithoutRate) {
  json c = test::small_machine();
  c["units"][1]["tensor_core_macs_per_cycle_per_sm"]["fp16"] = 1024;
  expect_error(c, "units[1].tensor_core_macs_per_cycle_per_sm.fp16", "unknown precision");
  c = test::small_machine();
  c["units"][1]["tensor_core_macs_per_cycle_per_sm"]["int8"] = 0;
  expect_error(c, "units[1].tensor_core_macs_per_cycle_per_sm.int8", "must be positive, got 0");
  c = test::small_machine();
  c["units"][1]["tensor_core_macs_per_cycle_per_sm"].erase("tf32");
  c["units"][1]["fp32_gemm_as_tf32"] = true;
  expect_error(c, "units[1].fp32_gemm_as_tf32", "no tf32 rate");
}

// A graph of one fp16 dense, costed on the small machine whose GPU has or lacks an fp16 rate.
Graph fp16_dense() {
  Graph g;
  g.source = "g.json";
  auto tensor = [&](std::vector<std::int64_t> shape, OpId producer) {
    Tensor t;
    t.shape = std::move(shape);
    t.dtype = DType::Float16;
    t.elements = 1;
    for (std::int64_t d : t.shape)
      t.elements *= static_cast<std::uint64_t>(d);
    t.bytes = 2 * t.elements;
    t.producer = producer;
    g.tensors.push_back(t);
    return static_cast<TensorId>(g.tensors.size() - 1);
  };
  Op x{.name = "x", .outputs = {tensor({32, 64}, 0)}}, w{.name = "w", .is_param = true};
  w.outputs = {tensor({128, 64}, 1)};
  Op dense{.name = "proj", .func_name = "tvmgen_default_fused_nn_dense", .op_class = OpClass::Dense};
  dense.inputs = {0, 1};
  dense.outputs = {tensor({32, 128}, 2)};
  g.ops = {x, w, dense};
  g.finalize();
  return g;
}

TEST(GpuBadConfig, GraphDtypeWithoutARate) {
  const Graph g = fp16_dense();
  EXPECT_EQ(g.ops[2].features.gemm_dtype, DType::Float16);
  json c = test::small_machine();
  c["models"]["m-gpu"]["dense"] = c["models"]["m-gpu"]["add"];
  {
    const Hardware hw = hardware_from_json(c, "small.json");
    const TransferModel transfers(hw);
    EXPECT_NO_THROW(build_stacked_graph(g, hw, transfers)); // fp16 has a tensor-core rate
  }
  c["units"][1]["tensor_core_macs_per_cycle_per_sm"].erase("float16");
  const Hardware hw = hardware_from_json(c, "small.json");
  const TransferModel transfers(hw);
  try {
    build_stacked_graph(g, hw, transfers);
    FAIL() << "an fp16 GEMM on a GPU without an fp16 rate was costed";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("small.json: units[1] 'gpu0': tensor_core_macs_per_cycle_per_sm", 0), 0u) << m;
    EXPECT_NE(m.find("no rate for float16"), std::string::npos) << m;
    EXPECT_NE(m.find("dense 'proj'"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

} // namespace
} // namespace lightsim::ir
