#include "ir/hardware/gpu_config.h"

#include <array>

namespace lightsim::ir {
namespace {

constexpr std::array<std::string_view, kNumGemmPrecisions> kPrecisionNames = {
    "float64", "float32", "tf32", "float16", "bfloat16", "int8", "float8"};

} // namespace

std::string_view gemm_precision_name(GemmPrecision p) {
  return kPrecisionNames.at(static_cast<std::size_t>(p));
}

std::optional<GemmPrecision> parse_gemm_precision(std::string_view name) {
  for (std::size_t i = 0; i < kNumGemmPrecisions; ++i)
    if (kPrecisionNames[i] == name) return static_cast<GemmPrecision>(i);
  return std::nullopt;
}

namespace detail {
namespace {

using nlohmann::json;

std::string of_unit(const std::string& unit_name) {
  return " (unit '" + unit_name + "')";
}

// {"<precision>": MACs per cycle per SM, ...}; every value > 0.
void read_rates(ConfigObject& parent, const std::string& key, const std::string& unit_name,
                std::array<double, kNumGemmPrecisions>& rates) {
  ConfigObject o = parent.object(key);
  for (const auto& item : o.raw().items()) {
    const std::optional<GemmPrecision> p = parse_gemm_precision(item.key());
    if (!p)
      o.fail(item.key(), "unknown precision (expected float64, float32, tf32, float16, bfloat16, int8 or "
                         "float8)" +
                             of_unit(unit_name));
    const double r = o.number(item.key());
    if (!(r > 0)) o.fail(item.key(), "must be positive, got " + item.value().dump() + of_unit(unit_name));
    rates[static_cast<std::size_t>(*p)] = r;
  }
  o.finish();
}

double efficiency(ConfigObject& o, const std::string& key, const std::string& unit_name) {
  const double e = o.number(key);
  if (!(e > 0 && e <= 1))
    o.fail(key, "must be in (0, 1], got " + o.raw().at(key).dump() + of_unit(unit_name));
  return e;
}

// `value` of tile field `field` must be a multiple of `unit` (the MMA shape or the warp tile).
void need_multiple(ConfigObject& tile, const std::string& field, int value, int unit, const std::string& of,
                   const std::string& unit_name) {
  if (value % unit != 0)
    tile.fail(field, "must be a multiple of " + of + " (" + std::to_string(unit) + "), got " +
                         std::to_string(value) + of_unit(unit_name));
}

GpuCtaTile read_tile(ConfigObject t, const GpuParams& gpu, const std::string& unit_name) {
  GpuCtaTile tile;
  tile.m = t.count("m");
  tile.n = t.count("n");
  tile.k_bytes = t.count("k_bytes");
  tile.warp_m = t.count("warp_m");
  tile.warp_n = t.count("warp_n");
  tile.stages = t.count("stages");
  t.finish();
  need_multiple(t, "warp_m", tile.warp_m, gpu.mma_m, "the MMA shape's m", unit_name);
  need_multiple(t, "warp_n", tile.warp_n, gpu.mma_n, "the MMA shape's n", unit_name);
  need_multiple(t, "k_bytes", tile.k_bytes, gpu.mma_k_bytes, "the MMA shape's k_bytes", unit_name);
  need_multiple(t, "m", tile.m, tile.warp_m, "warp_m", unit_name);
  need_multiple(t, "n", tile.n, tile.warp_n, "warp_n", unit_name);
  const double smem_kib = static_cast<double>(tile.stages) * (tile.m + tile.n) * tile.k_bytes / 1024;
  if (smem_kib > gpu.shared_memory_per_sm_KiB)
    t.fail_here("needs " + json(smem_kib).dump() + " KiB of shared memory for " +
                std::to_string(tile.stages) +
                " stages of (m + n) x k_bytes, more than shared_memory_per_sm_KiB (" +
                json(gpu.shared_memory_per_sm_KiB).dump() + ")" + of_unit(unit_name));
  return tile;
}

} // namespace

void read_gpu_params(ConfigObject& o, const std::string& unit_name, GpuParams& gpu) {
  gpu.sms = o.count("sms");
  read_rates(o, "tensor_core_macs_per_cycle_per_sm", unit_name, gpu.tensor_core_macs_per_cycle_per_sm);
  read_rates(o, "cuda_core_macs_per_cycle_per_sm", unit_name, gpu.cuda_core_macs_per_cycle_per_sm);
  gpu.fp32_gemm_as_tf32 = o.boolean("fp32_gemm_as_tf32");
  if (gpu.fp32_gemm_as_tf32 &&
      gpu.tensor_core_macs_per_cycle_per_sm[static_cast<std::size_t>(GemmPrecision::Tf32)] == 0)
    o.fail("fp32_gemm_as_tf32",
           "is true but tensor_core_macs_per_cycle_per_sm has no tf32 rate" + of_unit(unit_name));
  ConfigObject mma = o.object("mma");
  gpu.mma_m = mma.count("m");
  gpu.mma_n = mma.count("n");
  gpu.mma_k_bytes = mma.count("k_bytes");
  mma.finish();
  gpu.shared_memory_per_sm_KiB = o.rate("shared_memory_per_sm_KiB");
  gpu.shared_memory_bytes_per_cycle_per_sm = o.rate("shared_memory_bytes_per_cycle_per_sm");
  const json& tiles = o.required("cta_tiles");
  if (!tiles.is_array()) o.fail("cta_tiles", std::string("expected an array, found ") + tiles.type_name());
  if (tiles.empty())
    o.fail("cta_tiles", "is empty: a GPU needs at least one CTA tile to run GEMMs" + of_unit(unit_name));
  gpu.cta_tiles.clear();
  for (std::size_t i = 0; i < tiles.size(); ++i)
    gpu.cta_tiles.push_back(
        read_tile(ConfigObject(tiles[i], o.source(), o.key_path("cta_tiles") + "[" + std::to_string(i) + "]"),
                  gpu, unit_name));
  gpu.main_loop_efficiency = efficiency(o, "main_loop_efficiency", unit_name);
  gpu.memory_efficiency = efficiency(o, "memory_efficiency", unit_name);
  gpu.launch_latency_ns = o.non_negative("launch_latency_ns");
  gpu.kernel_gap_ns = o.non_negative("kernel_gap_ns");
  gpu.elementwise_flops_per_cycle_per_sm = o.rate("elementwise_flops_per_cycle_per_sm");
  if (o.optional("max_threads_per_sm"))
    gpu.max_threads_per_sm = o.integer_in("max_threads_per_sm", 32, 1 << 16);
  if (o.optional("max_ctas_per_sm")) gpu.max_ctas_per_sm = o.integer_in("max_ctas_per_sm", 1, 1024);
  if (o.optional("row_step_latency_ns")) gpu.row_step_latency_ns = o.non_negative("row_step_latency_ns");
  if (o.optional("row_memory_efficiency"))
    gpu.row_memory_efficiency = efficiency(o, "row_memory_efficiency", unit_name);
  gpu.tensor_core_pj_per_mac = o.non_negative("tensor_core_pj_per_mac");
  gpu.cuda_core_pj_per_op = o.non_negative("cuda_core_pj_per_op");
}

void write_gpu_params(const GpuParams& gpu, json& unit) {
  unit["sms"] = gpu.sms;
  auto rates = [](const std::array<double, kNumGemmPrecisions>& r) {
    json j = json::object();
    for (std::size_t i = 0; i < kNumGemmPrecisions; ++i)
      if (r[i] > 0) j[std::string(kPrecisionNames[i])] = r[i];
    return j;
  };
  unit["tensor_core_macs_per_cycle_per_sm"] = rates(gpu.tensor_core_macs_per_cycle_per_sm);
  unit["cuda_core_macs_per_cycle_per_sm"] = rates(gpu.cuda_core_macs_per_cycle_per_sm);
  unit["fp32_gemm_as_tf32"] = gpu.fp32_gemm_as_tf32;
  unit["mma"] = {{"m", gpu.mma_m}, {"n", gpu.mma_n}, {"k_bytes", gpu.mma_k_bytes}};
  unit["shared_memory_per_sm_KiB"] = gpu.shared_memory_per_sm_KiB;
  unit["shared_memory_bytes_per_cycle_per_sm"] = gpu.shared_memory_bytes_per_cycle_per_sm;
  unit["cta_tiles"] = json::array();
  for (const GpuCtaTile& t : gpu.cta_tiles)
    unit["cta_tiles"].push_back({{"m", t.m},
                                 {"n", t.n},
                                 {"k_bytes", t.k_bytes},
                                 {"warp_m", t.warp_m},
                                 {"warp_n", t.warp_n},
                                 {"stages", t.stages}});
  unit["main_loop_efficiency"] = gpu.main_loop_efficiency;
  unit["memory_efficiency"] = gpu.memory_efficiency;
  unit["launch_latency_ns"] = gpu.launch_latency_ns;
  unit["kernel_gap_ns"] = gpu.kernel_gap_ns;
  unit["elementwise_flops_per_cycle_per_sm"] = gpu.elementwise_flops_per_cycle_per_sm;
  unit["max_threads_per_sm"] = gpu.max_threads_per_sm;
  unit["max_ctas_per_sm"] = gpu.max_ctas_per_sm;
  if (gpu.row_step_latency_ns >= 0) unit["row_step_latency_ns"] = gpu.row_step_latency_ns;
  if (gpu.row_memory_efficiency >= 0) unit["row_memory_efficiency"] = gpu.row_memory_efficiency;
  unit["tensor_core_pj_per_mac"] = gpu.tensor_core_pj_per_mac;
  unit["cuda_core_pj_per_op"] = gpu.cuda_core_pj_per_op;
}

} // namespace detail
} // namespace lightsim::ir
