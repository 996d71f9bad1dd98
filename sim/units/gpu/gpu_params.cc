#include "sim/units/gpu/gpu_params.h"

namespace lightsim::units {
namespace {

using ir::detail::ConfigObject;

// `value` of tile field `field` must be a multiple of `unit` (the MMA shape or the warp tile).
void need_multiple(ConfigObject& tile, const std::string& field, int value, int unit, const std::string& of) {
  if (value % unit != 0)
    tile.fail(field, "must be a multiple of " + of + " (" + std::to_string(unit) + "), got " +
                         std::to_string(value));
}

// Each CTA tile against the MMA shape, its warp tile and the SM's shared memory.
void check_tiles(GpuParams& gpu, ConfigObject& o) {
  for (std::size_t i = 0; i < gpu.cta_tiles.size(); ++i) {
    const GpuCtaTile& tile = gpu.cta_tiles[i];
    ConfigObject t(o.raw().at("cta_tiles")[i], o.source(),
                   o.key_path("cta_tiles") + "[" + std::to_string(i) + "]");
    t.set_context(o.context());
    need_multiple(t, "warp_m", tile.warp_m, gpu.mma.m, "the MMA shape's m");
    need_multiple(t, "warp_n", tile.warp_n, gpu.mma.n, "the MMA shape's n");
    need_multiple(t, "k_bytes", tile.k_bytes, gpu.mma.k_bytes, "the MMA shape's k_bytes");
    need_multiple(t, "m", tile.m, tile.warp_m, "warp_m");
    need_multiple(t, "n", tile.n, tile.warp_n, "warp_n");
    const double smem_kib = static_cast<double>(tile.stages) * (tile.m + tile.n) * tile.k_bytes / 1024;
    if (smem_kib > gpu.shared_memory_per_sm_KiB)
      t.fail_here("needs " + nlohmann::json(smem_kib).dump() + " KiB of shared memory for " +
                  std::to_string(tile.stages) +
                  " stages of (m + n) x k_bytes, more than shared_memory_per_sm_KiB (" +
                  nlohmann::json(gpu.shared_memory_per_sm_KiB).dump() + ")");
  }
}

double positive_rate(ConfigObject& o, const std::string& key) {
  return o.rate(key);
}

const ir::FieldTable<GpuMma>& mma_fields() {
  using F = ir::Field<GpuMma>;
  static const ir::FieldTable<GpuMma> table(
      "mma", {F::count(&GpuMma::m, "m", "", "rows of the MMA instruction's result"),
              F::count(&GpuMma::n, "n", "", "columns of the MMA instruction's result"),
              F::count(&GpuMma::k_bytes, "k_bytes", "B", "its K step in bytes")});
  return table;
}

const ir::FieldTable<GpuL2>& l2_fields() {
  using F = ir::Field<GpuL2>;
  static const ir::FieldTable<GpuL2> table(
      "l2",
      {F::rate(&GpuL2::capacity_MiB, "capacity_MiB", "MiB", "capacity of the whole L2"),
       F::rate(&GpuL2::bandwidth_GBps, "bandwidth_GBps", "GB/s", "read + write bandwidth of the whole L2"),
       F::rate(&GpuL2::reach_MiB, "reach_MiB", "MiB",
               "largest working set a kernel finds whole in the L2; beyond it the hits fall linearly to none "
               "at twice it (less than the capacity on a two-partition L2, whose halves cache for their own "
               "SMs)")
           .optional("capacity_MiB"),
       F::non_negative(
           &GpuL2::latency_ns, "latency_ns", "ns",
           "round trip of an access the L2 serves (a kernel whose operands are all in the L2 waits "
           "this instead of the memory's latency)")
           .optional("the memory's latency_ns")});
  return table;
}

const ir::FieldTable<GpuFlashAttention>& flash_attention_fields() {
  using F = ir::Field<GpuFlashAttention>;
  static const ir::FieldTable<GpuFlashAttention> table(
      "flash_attention",
      {F::count(&GpuFlashAttention::block_m, "block_m", "", "query rows of one CTA"),
       F::count(&GpuFlashAttention::block_n, "block_n", "", "keys of one main-loop step"),
       F::count(&GpuFlashAttention::split_block_m, "split_block_m", "",
                "query rows of one CTA of the split-keys kernel (and of the split heuristic's count)"),
       F::count(&GpuFlashAttention::split_block_n, "split_block_n", "",
                "keys of one step of the split-keys kernel (and of the split heuristic's count)"),
       F::integer(&GpuFlashAttention::ctas_per_sm, "ctas_per_sm", 1, 1024, "CTAs",
                  "resident CTAs per SM (what the kernel's shared memory and registers allow): their fixed "
                  "times overlap, their blocks share the SM's tensor cores"),
       F::non_negative(&GpuFlashAttention::cta_latency_ns, "cta_latency_ns", "ns",
                       "fixed time of one CTA besides its blocks: loading Q and the first K and V blocks, "
                       "writing O and the log-sum-exp"),
       F::rate(&GpuFlashAttention::exp_per_cycle_per_sm, "exp_per_cycle_per_sm", "exp/cycle",
               "exponentials per cycle per SM (special-function units): one per (query, key) pair of a "
               "block"),
       F::integer(&GpuFlashAttention::setup_kernels, "setup_kernels", 0, 16, "kernels",
                  "small kernels (a memset) the library launches before the attention kernel when there is "
                  "more than one query, each launch_latency_ns")
           .optional("0")});
  return table;
}

} // namespace

const ir::FieldTable<GpuCtaTile>& gpu_cta_tile_fields() {
  using F = ir::Field<GpuCtaTile>;
  static const ir::FieldTable<GpuCtaTile> table(
      "cta tile",
      {F::count(&GpuCtaTile::m, "m", "", "rows of outputs the CTA computes (a multiple of warp_m)"),
       F::count(&GpuCtaTile::n, "n", "", "columns of outputs the CTA computes (a multiple of warp_n)"),
       F::count(&GpuCtaTile::k_bytes, "k_bytes", "B",
                "bytes of K per main-loop step (a multiple of the MMA's)"),
       F::count(&GpuCtaTile::warp_m, "warp_m", "",
                "rows per warp (Hopper: warpgroup), a multiple of the MMA's m"),
       F::count(&GpuCtaTile::warp_n, "warp_n", "", "columns per warp, a multiple of the MMA's n"),
       F::count(&GpuCtaTile::stages, "stages", "",
                "steps of operands buffered in shared memory (stages x (m + n) x k_bytes must fit)")});
  return table;
}

const ir::FieldTable<GpuParams>& gpu_fields() {
  using F = ir::Field<GpuParams>;
  static const ir::FieldTable<GpuParams> table(
      "gpu",
      {F::count(&GpuParams::sms, "sms", "", "streaming multiprocessors"),
       F::keyed(&GpuParams::tensor_core_macs_per_cycle_per_sm, "tensor_core_macs_per_cycle_per_sm",
                kGemmPrecisions, "precision", "number > 0", "MACs/cycle/SM",
                "dense tensor-core rate per precision (absent: no such path)", positive_rate),
       F::keyed(&GpuParams::cuda_core_macs_per_cycle_per_sm, "cuda_core_macs_per_cycle_per_sm",
                kGemmPrecisions, "precision", "number > 0", "MACs/cycle/SM",
                "CUDA-core (SIMT) FMA rate per precision, for GEMMs the tensor cores cannot run (fp32, fp64)",
                positive_rate),
       F::flag(&GpuParams::fp32_gemm_as_tf32, "fp32_gemm_as_tf32",
               "fp32 GEMMs run as TF32 on the tensor cores (cuBLAS' TF32 mode); needs a tf32 rate"),
       F::object(
           &GpuParams::mma, "mma", mma_fields(),
           "the tensor cores' MMA instruction shape (k in bytes: 16 fp16 = 8 tf32 = 32 int8 elements in "
           "32 bytes)"),
       F::rate(&GpuParams::shared_memory_per_sm_KiB, "shared_memory_per_sm_KiB", "KiB",
               "shared memory per SM (a tile's stages x (m + n) x k_bytes must fit)"),
       F::rate(&GpuParams::shared_memory_bytes_per_cycle_per_sm, "shared_memory_bytes_per_cycle_per_sm",
               "B/cycle", "shared-memory bandwidth per SM (32 banks x 4 bytes)"),
       F::objects(
           &GpuParams::cta_tiles, "cta_tiles", gpu_cta_tile_fields(), 1,
           "candidate thread-block (CTA) tiles: the CTA computes m x n outputs stepping k_bytes of K at a "
           "time, each warp warp_m x warp_n"),
       F::fraction(&GpuParams::main_loop_efficiency, "main_loop_efficiency",
                   "achieved / peak rate of a GEMM's main-loop steps (calibrated)"),
       F::fraction(&GpuParams::memory_efficiency, "memory_efficiency",
                   "achievable / peak bandwidth of the unit's memory for GEMMs and row-reducing kernels "
                   "(for every kernel when stream_memory_efficiency is absent; calibrated)"),
       F::non_negative(&GpuParams::launch_latency_ns, "launch_latency_ns", "ns",
                       "fixed part of every kernel's own duration (grid launch and completion)"),
       F::non_negative(&GpuParams::gemm_prologue_ns, "gemm_prologue_ns", "ns",
                       "further fixed time of a GEMM or fused-attention kernel beyond launch_latency_ns (its "
                       "set-up and pipeline fill; calibrated)")
           .optional(),
       F::fraction(&GpuParams::stream_memory_efficiency, "stream_memory_efficiency",
                   "share of the memory's peak an element-wise or copy kernel streams at (softmax, norms and "
                   "reductions keep memory_efficiency)")
           .optional("memory_efficiency"),
       F::non_negative(
           &GpuParams::kernel_gap_ns, "kernel_gap_ns", "ns",
           "idle time between two back-to-back kernels of one stream (not part of either kernel)"),
       F::rate(&GpuParams::elementwise_flops_per_cycle_per_sm, "elementwise_flops_per_cycle_per_sm",
               "ops/cycle", "CUDA-core operations per cycle per SM for non-GEMM ops"),
       F::integer(
           &GpuParams::max_threads_per_sm, "max_threads_per_sm", 32, 1 << 16, "threads",
           "resident threads per SM (CUDA C++ Programming Guide): how many rows of a row kernel run at "
           "once")
           .optional(),
       F::integer(&GpuParams::max_ctas_per_sm, "max_ctas_per_sm", 1, 1024, "CTAs", "resident CTAs per SM")
           .optional(),
       F::non_negative(&GpuParams::row_step_latency_ns, "row_step_latency_ns", "ns",
                       "round trip of one access step of a row kernel (calibrated)")
           .optional("the memory's latency_ns"),
       F::fraction(&GpuParams::row_memory_efficiency, "row_memory_efficiency",
                   "share of the memory's peak a row kernel's wave of accesses streams at (calibrated)")
           .optional("memory_efficiency"),
       F::flag(&GpuParams::row_wave_overlap, "row_wave_overlap",
               "a row kernel's waves overlap: one wave's chain of access steps plus the larger of the other "
               "waves' chains and the memory stream (false: the waves one after another)")
           .optional(),
       F::flag(&GpuParams::stream_k, "stream_k",
               "GEMM kernels may be persistent stream-K kernels: the tiles of the last, partial wave are "
               "split along K over every SM, their partial sums fixed up through the L2 (Hopper's cuBLAS "
               "and CUTLASS); the library picks whichever kernel is faster")
           .optional(),
       F::flag(&GpuParams::persistent_epilogues, "persistent_epilogues",
               "GEMM kernels overlap each wave's epilogue with the next wave's loads (Hopper's persistent, "
               "warp-specialised kernels): one prologue and one epilogue a kernel, not a wave")
           .optional(),
       F::object(
           &GpuParams::l2, "l2", l2_fields(),
           "the L2: a kernel's activations (inputs other than weights, and outputs) stream through it when "
           "together they fit in its reach, as do stream-K's partial sums; weights stream from memory")
           .optional("absent: no L2, everything streams from memory"),
       F::flag(
           &GpuParams::flash_attention_2, "flash_attention_2",
           "fused attention as FlashAttention-2 and later: query blocks outer, K and V read once per query "
           "block (through the L2 when the heads in flight fit in it), causally masked blocks skipped; "
           "false: FlashAttention-1's traffic")
           .optional(),
       F::object(&GpuParams::flash_attention, "flash_attention", flash_attention_fields(),
                 "fused attention as FlashAttention-2's forward kernel: CTAs of block_m queries stepping "
                 "block_n keys at a time (MMAs, then exponentials), each CTA a fixed time, the keys split "
                 "over more CTAs when the queries' CTAs do not fill the SMs")
           .optional("absent: both products timed as GEMM kernels"),
       F::integer(&GpuParams::one_pass_row_elements, "one_pass_row_elements", 0, 1 << 24, "elements",
                  "longest softmax / normalisation row that one CTA holds on chip and reads once; longer "
                  "rows are read once per pass (softmax 3: maximum, sum, normalise; norms 2)")
           .optional("0: every row in one pass"),
       F::non_negative(
           &GpuParams::row_reduction_cycles_per_element, "row_reduction_cycles_per_element", "cycles",
           "SM cycles a softmax or normalisation kernel spends per element it reads (its "
           "instructions at the SM's issue rate: maximum, exponential, sum, divide, conversions); "
           "its time is at least elements x this / (sms x clock)")
           .optional("0: the CUDA-core operation count alone"),
       F::non_negative(&GpuParams::tensor_core_pj_per_mac, "tensor_core_pj_per_mac", "pJ",
                       "energy of one tensor-core MAC (GEMM-like ops; component tensor_core)"),
       F::non_negative(
           &GpuParams::cuda_core_pj_per_op, "cuda_core_pj_per_op", "pJ",
           "energy of one CUDA-core element operation (every other op, fused tail included; component "
           "cuda_core)")},
      {[](GpuParams& gpu, ConfigObject& o) {
         if (gpu.fp32_gemm_as_tf32 &&
             gpu.tensor_core_macs_per_cycle_per_sm[static_cast<std::size_t>(GemmPrecision::Tf32)] == 0)
           o.fail("fp32_gemm_as_tf32", "is true but tensor_core_macs_per_cycle_per_sm has no tf32 rate");
       },
       check_tiles});
  return table;
}

} // namespace lightsim::units
