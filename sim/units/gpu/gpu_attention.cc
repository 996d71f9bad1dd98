#include "sim/units/gpu/gpu_attention.h"

#include "ir/error.h"
#include "ir/int_math.h"
#include "sim/units/gpu/gpu_kernel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace lightsim::units {
namespace {

// FlashAttention-2's split heuristic (num_splits_heuristic in its flash_api.cpp, which PyTorch vendors): a
// library's choice, not the hardware's, so constants of that code rather than config fields.
constexpr double kNoSplitFill = 0.8;         // no split when the CTAs fill this share of the SMs
constexpr double kSplitFillTolerance = 0.85; // the least split within this share of the best fill
constexpr std::int64_t kMaxSplits = 128;

// How full the last wave of `ctas` CTAs on `slots` slots is: waves / ceil(waves), in (0, 1].
double last_wave_fill(std::int64_t ctas, std::int64_t slots) {
  const double waves = static_cast<double>(ctas) / static_cast<double>(slots);
  return waves / std::ceil(waves);
}

} // namespace

std::int64_t gpu_flash_attention_splits(std::int64_t ctas, std::int64_t slots, std::int64_t key_blocks) {
  if (static_cast<double>(ctas) >= kNoSplitFill * static_cast<double>(slots)) return 1;
  const std::int64_t most = std::min({kMaxSplits, slots, key_blocks});
  // A split count that leaves the blocks per split as the one before it is that one in effect.
  const auto distinct = [&](std::int64_t s) {
    return s == 1 || ceil_div(key_blocks, s) != ceil_div(key_blocks, s - 1);
  };
  double best = 0;
  for (std::int64_t s = 1; s <= most; ++s)
    if (distinct(s)) best = std::max(best, last_wave_fill(ctas * s, slots));
  for (std::int64_t s = 1; s <= most; ++s)
    if (distinct(s) && last_wave_fill(ctas * s, slots) >= kSplitFillTolerance * best) return s;
  return 1;
}

GpuFlashKernel gpu_flash_attention_kernel(const ir::Unit& unit, const ir::OpFeatures& op) {
  const GpuParams& gpu = unit.as<GpuParams>();
  const GpuFlashAttention& fa = gpu.flash_attention;
  const std::int64_t m = op.gemm_m, n = op.gemm_n;
  GpuFlashKernel k;
  // The library decides on splits by the split kernel's blocks and one CTA slot per SM (PyTorch's copy of
  // FlashAttention-2 passes the SM count), then runs that kernel, or the plain one when it keeps 1.
  k.splits = gpu_flash_attention_splits(op.gemm_batch * ceil_div(m, fa.split_block_m), gpu.sms,
                                        ceil_div(n, fa.split_block_n));
  const std::int64_t block_m = k.splits > 1 ? fa.split_block_m : fa.block_m;
  const std::int64_t block_n = k.splits > 1 ? fa.split_block_n : fa.block_n;
  k.query_blocks = ceil_div(m, block_m);
  k.ctas = op.gemm_batch * k.query_blocks * k.splits;
  const std::int64_t per_split = ceil_div(ceil_div(n, block_n), k.splits);

  const double pairs = static_cast<double>(block_m * block_n);
  const std::optional<GpuGemmEngine> engine = gpu_gemm_engine(gpu, op.gemm_dtype);
  if (!engine)
    throw InputError("unit '" + unit.name + "'",
                     "no GEMM rate for " + std::string(ir::dtype_name(op.gemm_dtype)) + " (fused attention)");
  const double macs_per_cycle = engine->macs_per_cycle_per_sm * gpu.main_loop_efficiency;
  k.block_cycles = pairs * static_cast<double>(op.gemm_k + op.attention_value_dim) / macs_per_cycle +
                   pairs / fa.exp_per_cycle_per_sm;

  // The key blocks of one batch element's CTAs, in launch order (query blocks fastest, then splits): every
  // batch element repeats them, so the SMs' shares follow from one pattern.
  std::vector<std::int64_t> pattern;
  pattern.reserve(static_cast<std::size_t>(k.query_blocks * k.splits));
  for (std::int64_t s = 0; s < k.splits; ++s)
    for (std::int64_t q = 0; q < k.query_blocks; ++q) {
      const std::int64_t last_query = std::min(m, (q + 1) * block_m); // rows up to it, one past
      const std::int64_t keys = op.attention_causal ? std::clamp(n - m + last_query, std::int64_t{0}, n) : n;
      const std::int64_t blocks = ceil_div(keys, block_n);
      pattern.push_back(std::clamp(blocks - s * per_split, std::int64_t{0}, per_split));
    }
  // CTA c runs pattern[c mod the pattern's length] on SM c mod sms: both repeat every lcm of the two, so
  // one such period counts for all whole periods, then the rest.
  std::vector<std::int64_t> ctas_on(static_cast<std::size_t>(gpu.sms)), blocks_on(ctas_on.size());
  const auto per_element = static_cast<std::int64_t>(pattern.size());
  const std::int64_t period = per_element > 0 ? std::lcm(per_element, std::int64_t{gpu.sms}) : 1;
  auto assign = [&](std::int64_t first, std::int64_t last, std::int64_t times) {
    for (std::int64_t c = first; c < last; ++c) {
      const std::int64_t blocks = pattern[static_cast<std::size_t>(c % per_element)];
      if (blocks == 0) continue; // a split past a causal query block's last key returns at once
      const auto sm = static_cast<std::size_t>(c % gpu.sms);
      ctas_on[sm] += times;
      blocks_on[sm] += times * blocks;
    }
  };
  if (k.ctas >= period) assign(0, period, k.ctas / period);
  assign(k.ctas / period * period, k.ctas, 1);
  for (std::size_t sm = 0; sm < ctas_on.size(); ++sm) {
    const double ns = static_cast<double>(ceil_div(ctas_on[sm], fa.ctas_per_sm)) * fa.cta_latency_ns +
                      static_cast<double>(blocks_on[sm]) * k.block_cycles / unit.clock_ghz;
    if (ns > k.busiest_sm_ns) {
      k.busiest_sm_ns = ns;
      k.key_blocks = blocks_on[sm];
    }
  }

  const GpuGemmShape traffic = gpu_attention_shapes(unit, op).scores;
  k.stream_ns =
      gpu_stream_ns(gpu, gpu.memory_efficiency, traffic.memory_bytes, std::max(0.0, traffic.l2_bytes));
  if (k.splits > 1) { // each split's fp32 O rows and log-sum-exp, written, then read by the combine kernel
    const double partials = static_cast<double>(op.gemm_batch) * static_cast<double>(m) *
                            static_cast<double>(k.splits) * static_cast<double>(op.attention_value_dim + 1) *
                            4;
    k.combine_ns = gpu.launch_latency_ns + gpu_stream_ns(gpu, gpu.memory_efficiency, 2 * partials);
  }
  if (m > 1) k.setup_ns = fa.setup_kernels * gpu.launch_latency_ns;
  k.kernel_ns = k.setup_ns + gpu.launch_latency_ns + gpu.gemm_prologue_ns +
                std::max(k.busiest_sm_ns, k.stream_ns) + k.combine_ns;
  return k;
}

} // namespace lightsim::units
