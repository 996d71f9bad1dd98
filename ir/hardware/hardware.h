// Hardware: the machine being simulated, loaded from a JSON config in configs/ (documented field by field
// in configs/README.md). Units (CPU, GPU, photonic MAC array) compute; each unit reads and writes one
// Memory (SRAM, HBM or DRAM); Links (PCIe, on-chip buses, NVLink; point to point or through a switch) join
// memories. Two units that share a memory exchange tensors for free; otherwise a tensor travels the path of
// links between their memories. The arithmetic model (linear coefficients per op class, per unit) is part of
// the config, so a retrain writes a new config.
//
// It is not a simulator: the SystemC modules in sim/ read their parameters from here.
#pragma once

#include "ir/energy.h"
#include "ir/hardware/arithmetic_model.h"
#include "ir/hardware/collective_config.h"
#include "ir/hardware/unit_kind.h"
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

// ---- Units ------------------------------------------------------------------------------------------

// The load stage of a unit's decoupled access/execute pipeline (config `prefetch`, scheduler/load_stage.h):
// `depth` buffers of `buffer_bytes` each, reserved in the unit's memory, into which the operands that are
// not resident there are fetched ahead of the ops that read them. depth 0: no load stage.
struct PrefetchParams {
  int depth = 0;
  double buffer_bytes = 0;
  friend bool operator==(const PrefetchParams&, const PrefetchParams&) = default;
};

// A compute unit: what every kind has, and its kind's own parameters (`params`, the kind's struct:
// sim/units/<kind>/). `kind` is the registered descriptor (ir/hardware/unit_kind.h).
struct Unit {
  std::string name;
  const UnitKind* kind = nullptr;
  int cores = 1; // lanes: what the kind's lane_noun names (CPU cores, GPU streams, PHU arrays, ...)
  double clock_ghz = 1;
  double static_power_w = 0;
  int memory = -1; // index into Hardware::memories
  int model = -1;  // index into Hardware::models
  KindParams params;
  PrefetchParams prefetch;
  // The machine's switch (Hardware::latency_hiding), copied into each unit by set_latency_hiding so that
  // unit-level timing (the kinds' work counts, the SystemC modules) sees it.
  bool latency_hiding = false;

  // The kind's parameter struct (std::logic_error for another kind's).
  template <class P> const P& as() const { return params.get<P>(); }
  template <class P> P& as() { return params.get<P>(); }
  std::string_view kind_name() const;
  friend bool operator==(const Unit&, const Unit&) = default;
};

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

enum class LinkKind : std::uint8_t { Pcie, Bus, Nvlink };
std::string_view link_kind_name(LinkKind k);

// Usable data rate of a PCIe link per direction, GB/s: lanes x transfer rate (2.5, 5, 8, 16, 32, 64 GT/s
// for generations 1..6) x line-code efficiency (8b/10b for gen 1-2, 128b/130b for gen 3-5, 242/256 FLIT
// for gen 6) / 8 bits. Requires 1 <= generation <= 6 and lanes >= 1.
double pcie_bandwidth_GBps(int generation, int lanes);

// A link joins two memories point to point, or more than two through a switch (NVSwitch, a PCIe switch):
// then every endpoint has its own port of bandwidth_GBps per direction into a non-blocking crossbar, a
// transfer between two endpoints is one hop, and transfers contend at the sending endpoint's port (a port
// that receives from several senders at once is not modelled as a bottleneck). A two-ended link is the
// same with two ports: each direction is the sending end's port.

struct Link {
  std::string name;
  LinkKind kind = LinkKind::Bus;
  std::vector<int> endpoints; // memory indices, >= 2 (a unit named in the config means its memory)
  double bandwidth_GBps = 0;  // usable data rate per direction (per port), before packet overhead
  double latency_ns = 0;
  int max_payload_bytes = 0;               // 0: no packetisation
  int header_bytes = 0;                    // per packet
  double energy_pj_per_byte = 0;           // per byte on the wire
  double energy_pj_per_packet = 0;         // per packet (needs max_payload_bytes): link-layer work per TLP
  int pcie_generation = 0, pcie_lanes = 0; // for PCIe links (bandwidth derived from them unless given)
  int nvlinks = 0;                         // NVLink: links per port (bandwidth = nvlinks x GBps_per_nvlink)
  double GBps_per_nvlink = 0;              // NVLink: data rate of one link per direction
  friend bool operator==(const Link&, const Link&) = default;
};

// The port of `link` through which `memory` sends (its index in endpoints); -1 when not an endpoint.
int link_port(const Link& link, int memory);

// Where graph inputs and parameters live before the run starts.
struct Placement {
  static constexpr int kStateWithInputs = -2;
  int inputs_unit = 0;  // unit whose memory holds the per-run inputs (e.g. input_ids)
  int params_unit = -1; // unit whose memory holds weights; -1: resident wherever the solver prefers
  // Model state inputs (Op::is_state, a KV cache), config `placement.state`: -1 ("any", the default):
  // resident where the solver prefers, as weights are (in the memory of the unit that consumes it unless
  // capacity forbids), counted against that memory's capacity and never sent per run; a unit's index:
  // resident in that unit's memory; kStateWithInputs ("inputs"): sent each run from inputs_unit's memory, as
  // a runtime that keeps the cache on the host does.
  int state_unit = -1;
  friend bool operator==(const Placement&, const Placement&) = default;
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
  // Latency hiding (config `latency_hiding`, `lightsim --latency-hiding on|off`): the PHUs' weight double
  // buffering and the units' load stages are used only when it is on; off, weight tiles are programmed
  // one at a time and operands held in another memory are sent when they are produced (inputs at t = 0).
  bool latency_hiding = false;
  CollectiveConfig collectives; // config `collectives`: the communication library (defaults without one)

  int find_unit(std::string_view name) const;   // -1 if absent
  int find_memory(std::string_view name) const; // -1 if absent
  // The name of unit / memory `index`; "" when the index is out of range (e.g. -1: none).
  std::string_view unit_name(int index) const;
  std::string_view memory_name(int index) const;
  const ArithmeticModel& model_of(int unit) const { return models[units[unit].model]; }
  friend bool operator==(const Hardware&, const Hardware&) = default;
};

// Turns latency hiding on or off for the machine and every unit in it.
void set_latency_hiding(Hardware& hw, bool on);
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
