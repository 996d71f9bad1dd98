// Unit work: how much work an op is for one unit, counted the way the SystemC modules in sim/ time it
// (SIMD instructions on a CPU, the chosen GEMM kernel on a GPU: ir/cost/gpu_kernel.h, weight tiles and
// converter samples on the photonic MAC array). These are the unit-aware features of the arithmetic model
// (ir::Feature): a linear fit on them can follow the detailed models exactly wherever their timing is linear
// in these counts. For the CPU it also has the module's time of an op alone (cpu_alone_ns), which
// calibration fits.
//
// It is not a timing model of contention: ops sharing a port are timed by sim/hw/cpu.h and the list
// scheduler.
#pragma once

#include "ir/cost/gpu_kernel.h"
#include "ir/graph.h"
#include "ir/hardware/hardware.h"

#include <cstdint>

namespace lightsim::ir {

// Element operations besides MACs (OpFeatures::elementwise_ops): the anchor's own (max(elements_read,
// elements_out) for an op without MACs, else 0) plus those of its fused tail.
double elementwise_ops(const OpFeatures& op);

// True when the op has a GEMM view (batch, m, n, k all positive).
bool has_gemm_view(const OpFeatures& op);

// Bytes a unit moves for a convolution beyond its operands because it materialises the patch (im2col)
// matrix. The photonic array streams every patch through its DACs (dac_samples below count M x K per
// weight tile), so its periphery gathers the patches from its memory: the patch matrix's bytes beyond
// the data tensor (OpFeatures::im2col_extra_bytes). CPUs (TVM's direct NCHWc convolution) and GPUs
// (implicit-GEMM kernels) read the data tensor once: 0.
double materialised_bytes(const Unit& unit, const OpFeatures& op);

struct PhuGemmWork {
  std::int64_t weight_tiles = 0;                               // batch x ceil(k / rows) x ceil(n / cols)
  double dac_samples = 0;                                      // batch x m x k x ceil(n / cols)
  double adc_samples = 0;                                      // batch x m x n x ceil(k / rows)
  double weight_cells = 0;                                     // batch x k x n: cells programmed
  double reload_ns = 0, optics_ns = 0, dac_ns = 0, adc_ns = 0; // each summed over tiles
  double busy_ns = 0;          // the GEMM's time on the array: tile reloads and streams, as below
  double stream_ns = 0;        // summed over tiles: max(optics, DAC, ADC) of each
  double hidden_reload_ns = 0; // reload_ns + stream_ns - busy_ns: programming overlapped with streaming
  double macs = 0;
};
PhuGemmWork phu_gemm_work(const Unit& phu, const OpFeatures& op); // zeros without a GEMM view
// An m x k by k x n GEMM, `batch` times: weight tiles of rows x cols (partial ones at the edges), each
// programmed in weight_reload_ns (r) and streamed (s_i) at the pace of the slowest of optics
// (ceil(m / wdm) cycles), DACs (m x tile rows samples) and ADCs (m x tile cols samples), the converters at
// the sample rate their bits allow (ir::converter_sample_rate_gsps).
// busy_ns, with weight_buffers_in_use(phu) tiles held at once:
//   1 buffer:  sum_i (r + s_i)                                   (program, then stream, tile by tile)
//   2 buffers: r + sum_i max(r, s_i) - (max(r, s_T) - s_T)      (program tile i+1 while tile i streams)
// The 2-buffer form is one exposed reload plus T steps of max(reload, stream), except that the last tile
// T (the last k block of the last n block: partial where k or n is) has nothing left to program behind
// it, so its step is its stream alone. With s_i >= r it is r + sum_i s_i.
PhuGemmWork phu_gemm_work(const Unit& phu, std::int64_t m, std::int64_t n, std::int64_t k,
                          std::int64_t batch);

// The PHU's electronic periphery: one digital ALU behind each ADC, at the ADC sample rate (the pace at
// which it already accumulates the partial sums of the K tiles). Element operations per ns, and the time
// it takes for `ops` of them.
double phu_periphery_ops_per_ns(const PhuParams& phu);
double phu_periphery_ns(const PhuParams& phu, double ops);

// Walden conversion steps of a GEMM (a conversion at b bits is 2^b steps): input DAC samples, ADC samples
// and weight cells (programmed through DACs), each x 2^(that converter's bits).
struct PhuConversionSteps {
  double dac = 0, adc = 0, weight = 0;
};
PhuConversionSteps phu_conversion_steps(const Unit& phu, const PhuGemmWork& work);

// ---- CPU (sim/hw/cpu.h) ----
// A GEMM packs its operands, then computes (Eigen's single-thread GEMM: the time adds); other ops stream
// their operands while they compute (the time is the larger). The operands stream at the rate of the
// innermost cache level that holds the op's working set (its operand bytes), else from memory. A GEMM the
// runtime splits over k cores (cpu_op_cores) computes a share of the rows on each (cpu_split_share: the
// busiest core sets the time) and streams its bytes as k flows, each at most the level's per-core rate,
// together at most its shared rate (the memory port for memory).
int cpu_op_cores(const Unit& cpu, const OpFeatures& op);
// The share of a GEMM's MACs on its busiest core when split over `cores`: 1 / cores for an even split;
// with intra_op_row_block b, the last core's rows m - (cores - 1) x floor(m / cores / b) x b, over m
// (Eigen: m = 14 on 2 cores is 4 + 10 rows, so 10/14 of the work on one core). 1 when not split.
double cpu_split_share(const Unit& cpu, const OpFeatures& op, int cores);
// Ops a unit runs at once: a CPU's concurrent_ops (0: one per core), one per lane on other units.
int ops_in_flight(const Unit& unit);

struct CpuLevel {
  std::size_t index = 0;  // into CpuParams::caches; caches.size() = memory
  double core_GBps = 0;   // what one core streams from it
  double shared_GBps = 0; // what the cores streaming from it at once share; 0: private to each core
};
CpuLevel cpu_level(const Unit& cpu, double working_set_bytes);

struct CpuWork {
  int cores = 1;
  bool gemm = false;         // pack, then compute: memory + compute; else max(compute, memory)
  double compute_cycles = 0; // on the busiest core, before efficiencies: GEMM macs x cpu_split_share /
                             // (vector_width x (fma ? 1 : 0.5)); other ops elementwise_ops / vector_width (x
                             // the class's ops per element)
  double bytes = 0;          // operand bytes: the working set
  CpuLevel level;
  double memory_ns = 0; // the bytes alone on the op's cores: bytes / min(cores x core_GBps, shared_GBps)
};
// The work of `op` on CPU `cpu` with `operand_bytes` to stream.
CpuWork cpu_work(const Unit& cpu, const OpFeatures& op, double operand_bytes);

// Cycles of op's fused tail on one core of `cpu`: fused_ops shared evenly among the tail's classes (one per
// output element per member for an imported fused function; each member's elements for one the fusion pass
// formed), each share at its class's elementwise_ops per element / vector_width. 0 without a tail.
double cpu_tail_cycles(const Unit& cpu, const OpFeatures& op);
// Compute time of op (anchor and fused tail) on each of its cores: GEMM cycles / (clock x gemm_efficiency)
// plus, per element op, its class's elementwise_ops x elements / (vector_width x clock).
double cpu_compute_ns(const Unit& cpu, const Op& op, const CpuWork& work);
// Fixed time of an op: dispatch_ns, plus intra_op_sync_ns when it is split over cores.
double cpu_fixed_ns(const Unit& cpu, const CpuWork& work);
// The op alone on the CPU: fixed + (GEMM ? memory + compute : max(memory, compute)). Nop (a view): 0 work.
double cpu_alone_ns(const Unit& cpu, const Op& op, double operand_bytes);

// Clock cycles of the compute side of an op on `unit`, memory traffic excluded:
// CPU: CpuWork::compute_cycles;
// GPU: for a GEMM, its kernel's duration beyond the launch latency (GpuGemmKernel::cycles_after_launch:
//      main loop with memory overlapped per step, wave prologues and epilogues, split-K reduction); for
//      other ops elementwise_ops / (elementwise_flops_per_cycle_per_sm x sms);
//      Attention (fused, one kernel): both products as GEMM kernels (gpu_attention_shapes); plus the
//      element operations (the fused tail's included) on the CUDA cores;
// PHU: max(busy_ns of a GEMM (weight reloads, and their double buffering, included), periphery time of the
//      elementwise ops) x clock_ghz: the periphery works on the result stream while the optics compute.
double compute_cycles(const Unit& unit, const OpFeatures& op);

// Fused attention on a GPU, one kernel on the tensor cores: QK^T (batch x (m x k) * (k x n)) streams the
// op's FlashAttention traffic (operand_bytes) with its main loop; AV (batch x (m x n) * (n x value_dim))
// works on the probabilities and V blocks already on chip (no memory stream of its own).
struct GpuAttentionShapes {
  GpuGemmShape scores, values;
};
GpuAttentionShapes gpu_attention_shapes(const Unit& gpu, const OpFeatures& op);

// FlashAttention (Dao et al., NeurIPS 2022, Algorithm 1) on an on-chip memory of `on_chip_bytes`:
// blocks of Bc = ceil(M / 4d) keys and values and Br = min(Bc, d) queries, M = on-chip elements, d = head
// dim. Per head: K and V are read once; O, l and m are initialised in memory; for each of the
// Tc = ceil(n / Bc) key blocks, every query block reads Q_i, O_i, l_i, m_i and writes O_i, l_i, m_i.
// Bytes = batch x (e x (n (d + dv) + m dv + Tc m (d + 2 dv)) + 4 x (2 m + 4 Tc m)) + mask bytes, with e the
// element size and l, m kept in fp32 (4 bytes): Theta(n^2 d^2 / M) for m = n, not the n^2 of materialised
// scores. Zero for an op that is not Attention.
double attention_memory_bytes(const OpFeatures& op, double on_chip_bytes);
// The on-chip memory a unit tiles attention to: a GPU's shared memory per SM (one thread block per head
// block runs on one SM); 0 on units without one (they cannot run fused attention).
double attention_on_chip_bytes(const Unit& unit);
// What the unit's memory moves for an op: attention_memory_bytes for Attention, else bytes_read + bytes_out.
double operand_bytes(const Unit& unit, const OpFeatures& op);

} // namespace lightsim::ir
