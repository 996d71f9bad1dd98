// Hardware: the machine being simulated, loaded from a JSON config in configs/ (documented field by field
// in configs/README.md). Units (CPU, GPU, photonic MAC array) compute; each unit reads and writes one
// Memory (SRAM, HBM or DRAM); Links (PCIe, on-chip buses) join memories. Two units that share a memory
// exchange tensors for free; otherwise a tensor travels the path of links between their memories.
// The arithmetic model (linear coefficients per op class, per unit) is part of the config, so a retrain
// writes a new config.
//
// It is not a simulator: the SystemC modules in sim/ read their parameters from here.
#pragma once

#include "ir/op_class.h"

#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
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
  OperandBytes,         // bytes_read + bytes_out: what the unit's memory moves for the op (Attention:
                        // FlashAttention's traffic for the unit's on-chip memory, ir/cost/unit_work.h)
  ElementwiseOps,       // max(elements_in, elements_out) for non-GEMM ops, 0 for GEMMs; + the fused tail's
  ComputeCycles,        // unit clock cycles of the compute side (CPU SIMD, GPU tile waves, PHU tiles)
  ComputeCyclesPerByte, // compute_cycles / max(operand_bytes, 1): compute- vs memory-bound
  TilePassWaves,        // GPU: waves of tensor-core tiles x ceil(k / tile_k)
  WeightTiles,          // PHU: batch x ceil(k / rows) x ceil(n / cols) weight tiles programmed
  DacConversions,       // PHU: input samples through the DACs, over all weight tiles
  AdcConversions,       // PHU: result samples through the ADCs, over all weight tiles
  FusedOps,             // element operations of the ops fused behind the anchor (0 for an unfused op)
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

// One piece of a piecewise-linear model: it applies when `when` is unset or
// when_min <= feature(when) < when_max. Pieces are tried in order; the last one has no condition.
struct ModelPiece {
  std::optional<Feature> when;
  double when_min = -std::numeric_limits<double>::infinity();
  double when_max = std::numeric_limits<double>::infinity();
  LinearForm time_s;
  LinearForm energy_j;
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

struct CpuParams {
  int vector_width = 1; // fp32 lanes per SIMD instruction
  bool fma = true;      // a MAC per lane per cycle (else half)
  double dispatch_ns = 0;
  double memory_port_GBps = 0;   // the cores' shared port to their memory
  double compute_efficiency = 1; // sustained / nominal compute rate (calibrated from measurements)
  friend bool operator==(const CpuParams&, const CpuParams&) = default;
};

struct GpuParams {
  int sms = 1;
  int tensor_cores_per_sm = 1;
  int tile_m = 16, tile_n = 16, tile_k = 16; // tensor-core tile (MACs per tile pass = m*n*k)
  double tile_cycles = 1;                    // cycles one tensor core spends on one tile pass
  double launch_latency_ns = 0;
  double elementwise_flops_per_cycle_per_sm = 0; // CUDA cores for non-GEMM ops
  double shared_memory_per_sm_KiB = 0;           // on-chip memory fused attention is tiled to (0: not given)
  friend bool operator==(const GpuParams&, const GpuParams&) = default;
};

struct ConverterParams {
  int count = 1;
  double sample_rate_gsps = 1; // samples per ns
  double energy_pj = 0;        // per conversion
  int bits = 8;
  friend bool operator==(const ConverterParams&, const ConverterParams&) = default;
};

struct PhuParams {
  int rows = 1, cols = 1;      // MAC array: a rows x cols weight tile is programmed at a time
  int wdm_channels = 1;        // wavelengths: independent input vectors through the array per cycle
  double weight_reload_ns = 0; // phase / ring settling time to program one weight tile
  ConverterParams dac, adc;
  int bits = 8;
  double laser_power_w = 0;
  double mac_energy_pj = 0;
  friend bool operator==(const PhuParams&, const PhuParams&) = default;
};

struct Unit {
  std::string name;
  UnitKind kind = UnitKind::Cpu;
  int cores = 1; // lanes: CPU cores, GPU streams, PHU arrays
  double clock_ghz = 1;
  double static_power_w = 0;
  double dynamic_power_w = 0; // per busy lane, above static (CPU/GPU op energy in the SystemC modules)
  int memory = -1;            // index into Hardware::memories
  int model = -1;             // index into Hardware::models
  CpuParams cpu;              // valid when kind == Cpu
  GpuParams gpu;              // valid when kind == Gpu
  PhuParams phu;              // valid when kind == Phu
  friend bool operator==(const Unit&, const Unit&) = default;
};

// ---- Memories and links -----------------------------------------------------------------------------

enum class MemoryKind : std::uint8_t { Sram, Hbm, Dram };
std::string_view memory_kind_name(MemoryKind k);

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
};
std::string_view fuse_mode_name(FuseMode m);               // "none", "tvm", "flash"
std::optional<FuseMode> parse_fuse_mode(std::string_view); // nullopt for anything else

struct CompilerConfig {
  FuseMode fuse = FuseMode::None;
  int max_depth = 256; // most ops in one fused group (TVM's relay.FuseOps.max_depth, default kMaxFusedOps)
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

  int find_unit(std::string_view name) const;   // -1 if absent
  int find_memory(std::string_view name) const; // -1 if absent
  const ArithmeticModel& model_of(int unit) const { return models[units[unit].model]; }
  friend bool operator==(const Hardware&, const Hardware&) = default;
};

// Loads and validates a config file; throws InputError naming the file and JSON path of the problem.
Hardware load_hardware(const std::string& path);
// The config file's JSON, unvalidated (for overrides applied before validation); InputError when the
// file cannot be read or is not JSON.
nlohmann::json read_hardware_config(const std::string& path);
// The same from parsed JSON (`source` is used in messages). Applies nothing beyond the JSON.
Hardware hardware_from_json(const nlohmann::json& config, const std::string& source);
// The JSON text of a config as loaded (for traces and for retrain, which edits the models).
nlohmann::json hardware_to_json(const Hardware& hw);

} // namespace lightsim::ir
