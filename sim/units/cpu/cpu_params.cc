#include "sim/units/cpu/cpu_params.h"

#include "ir/names.h"

namespace lightsim::units {
namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

// Op classes by their config names (for elementwise_ops).
struct OpClassNames {
  std::optional<std::size_t> parse(std::string_view name) const {
    const auto c = ir::parse_op_class(name);
    return c ? std::optional<std::size_t>(static_cast<std::size_t>(*c)) : std::nullopt;
  }
  std::string choices() const { return "op class names (configs/README.md, \"Models\")"; }
  const auto& entries() const {
    static const auto all = [] {
      std::vector<std::pair<std::size_t, std::string_view>> e;
      for (std::size_t c = 0; c < ir::kNumOpClasses; ++c)
        e.emplace_back(c, ir::op_class_name(static_cast<ir::OpClass>(c)));
      return e;
    }();
    return all;
  }
};

} // namespace

const ir::FieldTable<CacheLevel>& cache_level_fields() {
  using F = ir::Field<CacheLevel>;
  static const ir::FieldTable<CacheLevel> table(
      "cache level",
      {F::text(&CacheLevel::name, "name", "the level's name (l2, l3): for messages and traces"),
       F::scaled_rate(&CacheLevel::capacity_bytes, "capacity_MiB", kBytesPerMiB, "MiB",
                      "an op whose operand bytes fit streams them from this level"),
       F::rate(&CacheLevel::bandwidth_GBps, "bandwidth_GBps", "GB/s", "what one core streams from it"),
       F::rate(&CacheLevel::shared_GBps, "shared_GBps", "GB/s",
               "the total the cores streaming from it at once share (an L3); absent: private to each core "
               "(an L2)")
           .optional("none (private)")});
  return table;
}

const ir::FieldTable<CpuParams>& cpu_fields() {
  using F = ir::Field<CpuParams>;
  static const OpClassNames op_classes;
  static const ir::FieldTable<CpuParams> table(
      "cpu",
      {F::count(&CpuParams::vector_width, "vector_width", "fp32 lanes", "SIMD width per instruction"),
       F::flag(&CpuParams::fma, "fma", "one MAC per lane per cycle (false: half)"),
       F::non_negative(&CpuParams::dispatch_ns, "dispatch_ns", "ns",
                       "fixed cost of launching one op (runtime call, thread wake-up)"),
       F::rate(&CpuParams::memory_port_GBps, "memory_port_GBps", "GB/s",
               "the cores' shared port to their memory: all cores together"),
       F::rate(&CpuParams::core_memory_GBps, "core_memory_GBps", "GB/s",
               "what one core streams from memory (bounded by its misses in flight)")
           .optional("memory_port_GBps"),
       F::rate(&CpuParams::gemm_efficiency, "gemm_efficiency", "ratio",
               "GEMM micro-kernel MAC rate / (clock x vector_width x (fma ? 1 : 0.5)); set by "
               "lightsim-calibrate; above 1 when the nominal clock or SIMD width understates the machine")
           .optional(),
       F::keyed(
           &CpuParams::elementwise_ops, "elementwise_ops", op_classes, "op class", "number >= 0",
           "ops per element",
           "vector-lane operations per element of a non-GEMM op of that class (1 when absent: one SIMD "
           "instruction per vector_width elements; a transcendental takes tens); set by "
           "lightsim-calibrate",
           [](ir::detail::ConfigObject& o, const std::string& k) { return o.non_negative(k); },
           [](std::size_t c) {
             return ir::is_gemm_like(static_cast<ir::OpClass>(c))
                        ? std::string("a GEMM's rate is gemm_efficiency, not elementwise_ops")
                        : std::string();
           })
           .optional("1 for every class"),
       F::objects(&CpuParams::caches, "caches", cache_level_fields(), 0,
                  "cache levels, innermost first, capacities increasing; beyond the last: memory")
           .optional("none"),
       F::count(&CpuParams::intra_op_threads, "intra_op_threads", "cores",
                "cores one GEMM may split over (the runtime's intra-op thread team); more than `cores` uses "
                "all cores")
           .optional(),
       F::count(&CpuParams::intra_op_min_rows, "intra_op_min_rows", "rows",
                "a split gives each core at least this many rows of m (Eigen: 4)")
           .optional(),
       F::non_negative(&CpuParams::intra_op_min_macs, "intra_op_min_macs", "MACs",
                       "... and at least this many MACs of one GEMM of the batch (Eigen: 50000)")
           .optional(),
       F::count(&CpuParams::intra_op_row_block, "intra_op_row_block", "rows",
                "a split hands out m's rows in blocks of this many: every core but the last takes "
                "floor(m / cores / block) x block rows and the last the rest (Eigen's parallelizer: 4)")
           .optional("none (an even share)"),
       F::non_negative(&CpuParams::intra_op_sync_ns, "intra_op_sync_ns", "ns",
                       "fork / join of a GEMM split over more than one core")
           .optional(),
       F::count(&CpuParams::concurrent_ops, "concurrent_ops", "ops",
                "ops the runtime runs at once (its inter-op parallelism; 1: one op at a time, as "
                "lightsim-profile measures); more than `cores` runs one per core")
           .optional("one per core"),
       F::non_negative(&CpuParams::dynamic_power_w, "dynamic_power_w", "W",
                       "power above idle of one busy core, charged x the op's duration x the cores it holds "
                       "(energy component `compute`)")
           .optional()},
      {[](CpuParams& p, ir::detail::ConfigObject& o) {
        for (std::size_t i = 1; i < p.caches.size(); ++i) {
          if (p.caches[i].capacity_bytes > p.caches[i - 1].capacity_bytes) continue;
          ir::detail::ConfigObject level(o.raw().at("caches")[i], o.source(),
                                         o.key_path("caches") + "[" + std::to_string(i) + "]");
          level.set_context(o.context());
          level.fail("capacity_MiB",
                     "must be larger than the previous level's (" + p.caches[i - 1].name + ", " +
                         ir::detail::number_text(p.caches[i - 1].capacity_bytes / kBytesPerMiB) +
                         " MiB), got " + level.raw().at("capacity_MiB").dump());
        }
      }});
  return table;
}

} // namespace lightsim::units
