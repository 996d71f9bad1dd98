// Hardware: the machine being simulated, loaded from a JSON config in configs/ (documented field by field
// in configs/README.md). Units (CPU, GPU, photonic MAC array) compute; each unit reads and writes one
// Memory (SRAM, HBM or DRAM); Links (PCIe, on-chip buses) join memories. Two units that share a memory
// exchange tensors for free; otherwise a tensor travels the path of links between their memories.
// The arithmetic model (linear coefficients per op class, per unit) is part of the config, so a retrain
// writes a new config.
//
// It is not a simulator: the SystemC modules in sim/ read their parameters from here.
#pragma once

#include "ir/energy.h"
#include "ir/op_class.h"

#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::ir {

// ---- Arithmetic model -------------------------------------------------------------------------------

// Named inputs of the linear model. Shape features come from OpFeatures; unit-aware ones (tiles, waves,
// passes) also depend on the unit's parameters and are computed in ir/cost/cost_model.cc.
enum class Feature : std::uint8_t {
  Macs,
  ElementsIn,
  ElementsOut,
  BytesIn,
  BytesOut,
  MaxDim,
  // Unit-aware (ir/cost/unit_work.h): the work as the SystemC modules count it, so that a linear fit can
  // follow them. Zero on units where they do not apply.
  OperandBytes,         // bytes_read + bytes_out (+ im2col patches on the PHU): memory traffic (Attention:
                        // FlashAttention's traffic for the unit's on-chip memory, ir/cost/unit_work.h)
  ElementwiseOps,       // max(elements_in, elements_out) for non-GEMM ops, 0 for GEMMs; + the fused tail's
  ComputeCycles,        // unit clock cycles of the compute side (CPU SIMD, GPU kernel, PHU tiles)
  ComputeCyclesPerByte, // compute_cycles / max(operand_bytes, 1): compute- vs memory-bound
  TilePassWaves,        // GPU: waves of CTA tiles x main-loop steps per CTA of the chosen GEMM kernel
  WeightTiles,          // PHU: batch x ceil(k / rows) x ceil(n / cols) weight tiles programmed
  DacConversions,       // PHU: input samples through the DACs, over all weight tiles
  AdcConversions,       // PHU: result samples through the ADCs, over all weight tiles
  MemoryCycles,         // CPU: cycles its operand bytes take alone at their cache level's rate, on its cores
  ComputeMemoryRatio,   // CPU: compute_cycles / memory_cycles: which side of the roofline an op is on
  // Converter precision (Walden conversion steps: a conversion at b bits is 2^b steps), so that an energy
  // coefficient per step is the converter's figure of merit and follows its bits.
  DacConversionSteps,    // PHU: dac_conversions x 2^(DAC bits)
  AdcConversionSteps,    // PHU: adc_conversions x 2^(ADC bits)
  WeightConversionSteps, // PHU: weight cells programmed (batch x k x n) x 2^(DAC bits)
  FusedOps,              // element operations of the ops fused behind the anchor (0 for an unfused op)
  // CPU GEMMs: cycles the op holds its cores alone (fixed + memory + compute) x those cores: what dynamic
  // power is charged on when the runtime splits it over cores (other ops hold one core: 0 here).
  CoreCycles,
  OpCores, // CPU: cores the op holds (a GEMM split over k cores: k, which adds a fork / join; else 1)
  // CPU: cycles of the fused tail on one core, each member class at its own elementwise_ops per element
  // (ir::cpu_tail_cycles: fused_ops shared evenly among the tail's classes, / vector_width); 0 elsewhere.
  TailCycles,
  // GPU: cycles of a row kernel beyond its launch (ir/cost/gpu_kernel.h: its waves of access steps, or its
  // CUDA-core work when that is longer); 0 for every other op.
  RowKernelCycles,
  Count_
};
inline constexpr std::size_t kNumFeatures = static_cast<std::size_t>(Feature::Count_);
std::string_view feature_name(Feature f); // "macs", "elements_in", ... (config keys)
std::optional<Feature> parse_feature(std::string_view name);

// value = intercept + sum_i coef[i] * feature_i
struct LinearForm {
  std::array<double, kNumFeatures> coef{};
  double intercept = 0;
  friend bool operator==(const LinearForm&, const LinearForm&) = default;
};

// Energy as one linear form per component (ir/energy.h); an op's energy is the sum over components of
// max(0, form). A config's plain `energy_j` form is all `compute`; link and static are never op energy.
struct EnergyForms {
  std::array<LinearForm, kNumEnergyComponents> parts{};
  LinearForm& operator[](EnergyComponent c) { return parts[static_cast<std::size_t>(c)]; }
  const LinearForm& operator[](EnergyComponent c) const { return parts[static_cast<std::size_t>(c)]; }
  bool has(EnergyComponent c) const { return (*this)[c] != LinearForm{}; }
  friend bool operator==(const EnergyForms&, const EnergyForms&) = default;
};

// One piece of a piecewise-linear model: it applies when `when` is unset or
// when_min <= feature(when) < when_max. Pieces are tried in order; the last one has no condition.
struct ModelPiece {
  std::optional<Feature> when;
  double when_min = -std::numeric_limits<double>::infinity();
  double when_max = std::numeric_limits<double>::infinity();
  LinearForm time_s;
  EnergyForms energy_j;
  friend bool operator==(const ModelPiece&, const ModelPiece&) = default;
};

// Provenance of a fitted entry (written by retrain; empty for hand-written entries).
struct FitInfo {
  std::size_t samples = 0;
  double r2 = 0;
  std::array<double, kNumFeatures> feature_min{}, feature_max{};
  friend bool operator==(const FitInfo&, const FitInfo&) = default;
};

struct OpClassModel {
  std::vector<ModelPiece> pieces; // empty: the unit cannot run this class
  std::optional<FitInfo> fit;
  friend bool operator==(const OpClassModel&, const OpClassModel&) = default;
};

// Per op class; a unit can run exactly the classes whose entry has pieces.
struct ArithmeticModel {
  std::string name;
  std::array<OpClassModel, kNumOpClasses> classes;
  bool can_run(OpClass c) const { return !classes[static_cast<std::size_t>(c)].pieces.empty(); }
  friend bool operator==(const ArithmeticModel&, const ArithmeticModel&) = default;
};

// ---- Units ------------------------------------------------------------------------------------------

enum class UnitKind : std::uint8_t { Cpu, Gpu, Phu };
std::string_view unit_kind_name(UnitKind k); // "cpu", "gpu", "phu"

// One cache level of a CPU as the CPU module sees it: an op whose working set (its operand bytes) fits in
// `capacity_bytes` streams its operands at `bandwidth_GBps` per core; when `shared_GBps` > 0 the cores
// streaming from this level at once share that total (a shared L3), else each core has its own (an L2).
struct CacheLevel {
  std::string name; // "l2", "l3": for messages and traces
  double capacity_bytes = 0;
  double bandwidth_GBps = 0; // per core
  double shared_GBps = 0;    // 0: private to each core
  friend bool operator==(const CacheLevel&, const CacheLevel&) = default;
};

constexpr std::array<double, kNumOpClasses> per_op_class(double value) {
  std::array<double, kNumOpClasses> a{};
  for (double& x : a)
    x = value;
  return a;
}

// CPU parameters (configs/README.md, "CPU"). The CPU module (sim/hw/cpu.h) times an op from these alone;
// absent optional fields leave a plain roofline: no caches, one core per op, one op per core.
struct CpuParams {
  int vector_width = 1; // fp32 lanes per SIMD instruction
  bool fma = true;      // a MAC per lane per cycle (else half)
  double dispatch_ns = 0;
  double memory_port_GBps = 0; // the cores' shared port to their memory (all cores together)
  double core_memory_GBps = 0; // what one core streams from memory (0: memory_port_GBps)
  double gemm_efficiency = 1;  // GEMM micro-kernel MAC rate / (clock x vector_width x (fma ? 1 : 0.5))
  // Vector-lane operations per element of a non-GEMM op, per op class (1: one SIMD instruction per
  // vector_width elements; a transcendental takes tens). Calibrated from measurements.
  std::array<double, kNumOpClasses> elementwise_ops = per_op_class(1.0);
  std::vector<CacheLevel> caches; // innermost first, capacities increasing; beyond the last: memory
  int intra_op_threads = 1;       // cores one GEMM may split over (the runtime's intra-op thread team)
  int intra_op_min_rows = 1;      // a split gives each core at least this many rows of m (Eigen: 4)
  double intra_op_min_macs = 0;   // ... and at least this many MACs (Eigen: 50000)
  // Rows of m a split hands out in blocks of this many: every core but the last takes
  // floor(m / cores / block) x block rows, the last the rest (Eigen: 4); 0: an even share of m.
  int intra_op_row_block = 0;
  double intra_op_sync_ns = 0; // fork / join of a GEMM split over more than one core
  int concurrent_ops = 0;      // ops the runtime runs at once (inter-op parallelism); 0: one per core
  friend bool operator==(const CpuParams&, const CpuParams&) = default;
};

// The compute precision of a GEMM on a GPU, keyed in configs by these names: "float64", "float32", "tf32",
// "float16", "bfloat16", "int8", "float8". The operands' dtype chooses it (fp32 may run as TF32).
enum class GemmPrecision : std::uint8_t { Float64, Float32, Tf32, Float16, BFloat16, Int8, Float8, Count_ };
inline constexpr std::size_t kNumGemmPrecisions = static_cast<std::size_t>(GemmPrecision::Count_);
std::string_view gemm_precision_name(GemmPrecision p);
std::optional<GemmPrecision> parse_gemm_precision(std::string_view name);

// One thread-block (CTA) tile of a GPU's GEMM kernels: the CTA computes m x n outputs, stepping through K
// k_bytes at a time (k_bytes / operand bytes elements per step); each of its warps computes warp_m x warp_n;
// `stages` steps of operands are buffered in shared memory.
struct GpuCtaTile {
  int m = 128, n = 128, k_bytes = 64, warp_m = 64, warp_n = 64, stages = 3;
  friend bool operator==(const GpuCtaTile&, const GpuCtaTile&) = default;
};

struct GpuParams {
  int sms = 1;
  // Multiply-accumulates per cycle per SM of each precision on the tensor cores and on the CUDA cores;
  // 0: the engine has no such path. A GEMM uses the tensor cores when they have its precision.
  std::array<double, kNumGemmPrecisions> tensor_core_macs_per_cycle_per_sm{};
  std::array<double, kNumGemmPrecisions> cuda_core_macs_per_cycle_per_sm{};
  bool fp32_gemm_as_tf32 = false; // fp32 GEMMs run as TF32 on the tensor cores (cuBLAS TF32 mode)
  int mma_m = 16, mma_n = 8, mma_k_bytes = 32; // the tensor cores' MMA instruction shape
  std::vector<GpuCtaTile> cta_tiles;           // the candidate kernels' tiles (at least one)
  double shared_memory_per_sm_KiB = 0;
  double shared_memory_bytes_per_cycle_per_sm = 0;
  double main_loop_efficiency = 1; // achieved / peak rate of a GEMM's main loop, in (0, 1] (calibrated)
  double memory_efficiency = 1;    // achievable / peak bandwidth of the unit's memory, in (0, 1] (calibrated)
  double launch_latency_ns = 0;    // fixed part of every kernel's duration (grid launch and completion)
  double kernel_gap_ns = 0;        // idle time between two back-to-back kernels of one stream
  double elementwise_flops_per_cycle_per_sm = 0; // CUDA cores for non-GEMM ops
  // Row kernels (ir/cost/gpu_kernel.h, gpu_row_kernel): the SM's thread and CTA limits that set how many
  // rows run at once, and the two constants of one access step: its round trip and the share of the
  // memory's peak the wave's accesses stream at (both calibrated; absent: the memory's latency and
  // memory_efficiency).
  int max_threads_per_sm = 2048;
  int max_ctas_per_sm = 32;
  double row_step_latency_ns = -1;   // < 0: memory_latency_ns
  double row_memory_efficiency = -1; // < 0: memory_efficiency
  // Energy per operation (configs/README.md, "Energy"): tensor-core MACs of GEMM-like ops, CUDA-core
  // element operations of the others.
  double tensor_core_pj_per_mac = 0;
  double cuda_core_pj_per_op = 0;
  // Copied from the unit's memory by the loader (not config keys): the kernel model streams operands
  // from it, and the arithmetic model's features see only the unit.
  double memory_bandwidth_GBps = 0, memory_latency_ns = 0;
  friend bool operator==(const GpuParams&, const GpuParams&) = default;
};

// A bank of DACs or ADCs. Precision sets both their pace and their energy (configs/README.md, "Converter
// precision"): a conversion at b bits takes b + 1 cycles of bit_clock_ghz (a SAR ADC samples in one cycle
// and decides one bit per cycle; a DAC settles to half an LSB in (b + 1) ln 2 time constants) and costs
// fom_fj_per_step x 2^b (Walden figure of merit: energy per conversion step).
struct ConverterParams {
  int count = 1;
  double bit_clock_ghz = 1;   // bit cycles per ns
  double fom_fj_per_step = 0; // Walden figure of merit, fJ per conversion step
  std::optional<int> bits;    // unset: the PHU's bits
  friend bool operator==(const ConverterParams&, const ConverterParams&) = default;
};

struct PhuParams {
  int rows = 1, cols = 1;      // MAC array: a rows x cols weight tile is programmed at a time
  int wdm_channels = 1;        // wavelengths: independent input vectors through the array per cycle
  double weight_reload_ns = 0; // phase / ring settling time to program one weight tile
  ConverterParams dac, adc;
  int bits = 8;
  double laser_power_w = 0; // wall-plug (electrical) power of the lasers while the array is busy
  double mac_energy_pj = 0; // per optical MAC: modulation and photodetection share
  // Weight tiles the array holds at once (config `weight_buffers`, 1 or 2): with 2, tile i+1 is programmed
  // while tile i streams (ir/cost/unit_work.h). Used only with latency hiding on (Unit::latency_hiding).
  int weight_buffers = 1;
  friend bool operator==(const PhuParams&, const PhuParams&) = default;
};

// The load stage of a unit's decoupled access/execute pipeline (config `prefetch`, scheduler/load_stage.h):
// `depth` buffers of `buffer_bytes` each, reserved in the unit's memory, into which the operands that are
// not resident there are fetched ahead of the ops that read them. depth 0: no load stage.
struct PrefetchParams {
  int depth = 0;
  double buffer_bytes = 0;
  friend bool operator==(const PrefetchParams&, const PrefetchParams&) = default;
};

struct Unit {
  std::string name;
  UnitKind kind = UnitKind::Cpu;
  int cores = 1; // lanes: CPU cores, GPU streams, PHU arrays
  double clock_ghz = 1;
  double static_power_w = 0;
  double dynamic_power_w = 0; // CPU only: per busy core, above static (charged x op duration)
  int memory = -1;            // index into Hardware::memories
  int model = -1;             // index into Hardware::models
  CpuParams cpu;              // valid when kind == Cpu
  GpuParams gpu;              // valid when kind == Gpu
  PhuParams phu;              // valid when kind == Phu
  PrefetchParams prefetch;
  // The machine's switch (Hardware::latency_hiding), copied into each unit by set_latency_hiding so that
  // unit-level timing (ir/cost/unit_work.h, the SystemC modules) sees it.
  bool latency_hiding = false;
  friend bool operator==(const Unit&, const Unit&) = default;
};

// The bits a converter of `phu` works at: its own, else the PHU's.
int converter_bits(const PhuParams& phu, const ConverterParams& c);
// Samples per ns at those bits: bit_clock_ghz / (bits + 1).
double converter_sample_rate_gsps(const PhuParams& phu, const ConverterParams& c);
// Energy of one conversion at those bits, pJ: fom_fj_per_step x 2^bits / 1000.
double conversion_energy_pj(const PhuParams& phu, const ConverterParams& c);

// ---- Memories and links -----------------------------------------------------------------------------

enum class MemoryKind : std::uint8_t { Sram, Hbm, Dram };
std::string_view memory_kind_name(MemoryKind k);
// The energy component of an access to a memory of this kind (sram, hbm, dram).
EnergyComponent memory_component(MemoryKind k);

struct Memory {
  std::string name;
  MemoryKind kind = MemoryKind::Dram;
  double capacity_bytes = 0;
  double bandwidth_GBps = 0; // GB/s == bytes per ns
  double latency_ns = 0;
  int banks = 1;
  double energy_pj_per_byte = 0; // read or write
  double static_power_w = 0;
  int spill_to = -1; // SRAM: memory that takes what does not fit (index), -1 = none
  friend bool operator==(const Memory&, const Memory&) = default;
};

enum class LinkKind : std::uint8_t { Pcie, Bus };
std::string_view link_kind_name(LinkKind k);

// Usable data rate of a PCIe link per direction, GB/s: lanes x transfer rate (2.5, 5, 8, 16, 32, 64 GT/s
// for generations 1..6) x line-code efficiency (8b/10b for gen 1-2, 128b/130b for gen 3-5, 242/256 FLIT
// for gen 6) / 8 bits. Requires 1 <= generation <= 6 and lanes >= 1.
double pcie_bandwidth_GBps(int generation, int lanes);

struct Link {
  std::string name;
  LinkKind kind = LinkKind::Bus;
  std::array<int, 2> endpoints{-1, -1}; // memory indices (a unit named in the config means its memory)
  double bandwidth_GBps = 0;            // usable data rate per direction, before packet overhead
  double latency_ns = 0;
  int max_payload_bytes = 0;               // 0: no packetisation
  int header_bytes = 0;                    // per packet
  double energy_pj_per_byte = 0;           // per byte on the wire
  double energy_pj_per_packet = 0;         // per packet (needs max_payload_bytes): link-layer work per TLP
  int pcie_generation = 0, pcie_lanes = 0; // for PCIe links (bandwidth derived from them unless given)
  friend bool operator==(const Link&, const Link&) = default;
};

// Where graph inputs and parameters live before the run starts.
struct Placement {
  int inputs_unit = 0;  // unit whose memory holds the per-run inputs (e.g. input_ids, KV cache)
  int params_unit = -1; // unit whose memory holds weights; -1: resident wherever the solver prefers
  friend bool operator==(const Placement&, const Placement&) = default;
};

// The `compiler` section: which fusion the graph goes through before it is placed (ir/fusion/fusion.h).
enum class FuseMode : std::uint8_t {
  None,  // every op its own kernel, as the graph came
  Tvm,   // TVM's FuseOps rules
  Flash, // TVM's rules, and QK^T -> scale/mask -> softmax -> AV as one fused attention op
  Vllm,  // flash, and the fused kernels of vLLM's library on top (ir/fusion/vllm_kernels.h)
};
std::string_view fuse_mode_name(FuseMode m);               // "none", "tvm", "flash", "vllm"
std::optional<FuseMode> parse_fuse_mode(std::string_view); // nullopt for anything else

struct CompilerConfig {
  FuseMode fuse = FuseMode::None;
  int max_depth = 256; // most ops in one fused group (TVM's relay.FuseOps.max_depth, default kMaxFusedOps)
  // vllm mode's row kernels (ir/fusion/vllm_kernels.h): the most threads a kernel gives one row's CTA
  // (vLLM: min(row items, 1024)), and the bytes one access of a vectorised kernel moves (fused_add_rms_norm:
  // 8 fp16 = 16 bytes; vLLM's other kernels of 2024 load one element per access).
  int row_cta_threads = 1024;
  int vector_access_bytes = 16;
  friend bool operator==(const CompilerConfig&, const CompilerConfig&) = default;
};

struct Hardware {
  std::string source; // file it came from
  std::string name;
  std::string description;
  std::vector<Unit> units;
  std::vector<Memory> memories;
  std::vector<Link> links;
  std::vector<ArithmeticModel> models;
  Placement placement;
  CompilerConfig compiler;
  // Latency hiding (config `latency_hiding`, `lightsim --latency-hiding on|off`): the PHUs' weight double
  // buffering and the units' load stages are used only when it is on; off, weight tiles are programmed
  // one at a time and operands held in another memory are sent when they are produced (inputs at t = 0).
  bool latency_hiding = false;

  int find_unit(std::string_view name) const;   // -1 if absent
  int find_memory(std::string_view name) const; // -1 if absent
  const ArithmeticModel& model_of(int unit) const { return models[units[unit].model]; }
  friend bool operator==(const Hardware&, const Hardware&) = default;
};

// Turns latency hiding on or off for the machine and every unit in it.
void set_latency_hiding(Hardware& hw, bool on);
// The weight tiles a PHU holds at once as it runs: its weight_buffers with latency hiding on, else 1.
int weight_buffers_in_use(const Unit& unit);
// Whether the unit fetches its non-resident operands through a load stage (latency hiding on, depth >= 1).
bool has_load_stage(const Unit& unit);
// Bytes of the unit's memory its prefetch buffers take (depth x buffer_bytes; 0 without a load stage).
double prefetch_reserved_bytes(const Unit& unit);

// Loads and validates a config file; throws InputError naming the file and JSON path of the problem.
Hardware load_hardware(const std::string& path);
// The config file's JSON, unvalidated (for overrides applied before validation); InputError when the
// file cannot be read or is not JSON.
nlohmann::json read_hardware_config(const std::string& path);
// The same from the file's text (`source` names it in messages).
nlohmann::json parse_hardware_config(std::string_view text, const std::string& source);
// The same from parsed JSON (`source` is used in messages). Applies nothing beyond the JSON.
Hardware hardware_from_json(const nlohmann::json& config, const std::string& source);
// The JSON text of a config as loaded (for traces and for retrain, which edits the models).
nlohmann::json hardware_to_json(const Hardware& hw);

} // namespace lightsim::ir
