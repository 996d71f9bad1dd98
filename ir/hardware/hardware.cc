// Hardware: names of the enums, look-ups, PCIe rates, loading a config file and writing one back.
// Reading and validating the JSON is in hardware_from_json.cc.
#include "ir/hardware/hardware.h"

#include "ir/error.h"
#include "ir/hardware/cpu_config.h"
#include "ir/hardware/gpu_config.h"
#include "ir/json_reader.h"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

namespace lightsim::ir {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, kNumFeatures> kFeatureNames = {"macs",
                                                                      "elements_in",
                                                                      "elements_out",
                                                                      "bytes_in",
                                                                      "bytes_out",
                                                                      "max_dim",
                                                                      "operand_bytes",
                                                                      "elementwise_ops",
                                                                      "compute_cycles",
                                                                      "compute_cycles_per_byte",
                                                                      "tile_pass_waves",
                                                                      "weight_tiles",
                                                                      "dac_conversions",
                                                                      "adc_conversions",
                                                                      "memory_cycles",
                                                                      "compute_memory_ratio",
                                                                      "dac_conversion_steps",
                                                                      "adc_conversion_steps",
                                                                      "weight_conversion_steps",
                                                                      "fused_ops",
                                                                      "core_cycles",
                                                                      "op_cores",
                                                                      "tail_cycles",
                                                                      "row_kernel_cycles"};

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

json linear_form_to_json(const LinearForm& form) {
  json j = json::object();
  for (std::size_t i = 0; i < kNumFeatures; ++i)
    if (form.coef[i] != 0) j[std::string(kFeatureNames[i])] = form.coef[i];
  j["intercept"] = form.intercept;
  return j;
}

// A plain form when all the energy is `compute` (the format before components), else one form per
// component that has one.
json energy_to_json(const EnergyForms& e) {
  bool split = false;
  for (std::size_t c = 0; c < kNumEnergyComponents; ++c)
    split = split || (c != static_cast<std::size_t>(EnergyComponent::Compute) && e.parts[c] != LinearForm{});
  if (!split) return linear_form_to_json(e[EnergyComponent::Compute]);
  json j = json::object();
  for (std::size_t c = 0; c < kNumEnergyComponents; ++c)
    if (e.parts[c] != LinearForm{})
      j[std::string(energy_component_name(static_cast<EnergyComponent>(c)))] =
          linear_form_to_json(e.parts[c]);
  return j;
}

json piece_to_json(const ModelPiece& p) {
  json j = json::object();
  if (p.when) {
    json when = {{"feature", feature_name(*p.when)}};
    if (std::isfinite(p.when_min)) when["min"] = p.when_min;
    if (std::isfinite(p.when_max)) when["max"] = p.when_max;
    j["when"] = when;
  }
  j["time_s"] = linear_form_to_json(p.time_s);
  j["energy_j"] = energy_to_json(p.energy_j);
  return j;
}

json op_class_model_to_json(const OpClassModel& entry) {
  json j = json::object();
  if (entry.pieces.size() == 1 && !entry.pieces[0].when) {
    j = piece_to_json(entry.pieces[0]);
  } else {
    j["pieces"] = json::array();
    for (const auto& p : entry.pieces)
      j["pieces"].push_back(piece_to_json(p));
  }
  if (entry.fit) {
    LinearForm lo, hi; // feature ranges are written as feature -> value objects
    lo.coef = entry.fit->feature_min;
    hi.coef = entry.fit->feature_max;
    json flo = linear_form_to_json(lo), fhi = linear_form_to_json(hi);
    flo.erase("intercept");
    fhi.erase("intercept");
    j["fit"] = {
        {"samples", entry.fit->samples}, {"r2", entry.fit->r2}, {"feature_min", flo}, {"feature_max", fhi}};
  }
  return j;
}

json converter_to_json(const ConverterParams& c) {
  json j = {{"count", c.count}, {"bit_clock_ghz", c.bit_clock_ghz}, {"fom_fj_per_step", c.fom_fj_per_step}};
  if (c.bits) j["bits"] = *c.bits;
  return j;
}

json unit_to_json(const Hardware& hw, const Unit& u) {
  json j = {{"name", u.name},
            {"kind", unit_kind_name(u.kind)},
            {"cores", u.cores},
            {"clock_ghz", u.clock_ghz},
            {"static_power_w", u.static_power_w},
            {"memory", hw.memories.at(u.memory).name},
            {"model", hw.models.at(u.model).name}};
  switch (u.kind) {
  case UnitKind::Cpu:
    j["dynamic_power_w"] = u.dynamic_power_w;
    detail::write_cpu_params(u.cpu, j);
    break;
  case UnitKind::Gpu:
    detail::write_gpu_params(u.gpu, j);
    break;
  case UnitKind::Phu:
    j["rows"] = u.phu.rows;
    j["cols"] = u.phu.cols;
    j["wdm_channels"] = u.phu.wdm_channels;
    j["weight_reload_ns"] = u.phu.weight_reload_ns;
    j["dac"] = converter_to_json(u.phu.dac);
    j["adc"] = converter_to_json(u.phu.adc);
    j["bits"] = u.phu.bits;
    j["laser_power_w"] = u.phu.laser_power_w;
    j["mac_energy_pj"] = u.phu.mac_energy_pj;
    if (u.phu.weight_buffers != 1) j["weight_buffers"] = u.phu.weight_buffers;
    break;
  }
  if (u.prefetch.depth > 0)
    j["prefetch"] = {{"depth", u.prefetch.depth}, {"buffer_MiB", u.prefetch.buffer_bytes / kBytesPerMiB}};
  return j;
}

json memory_to_json(const Hardware& hw, const Memory& m) {
  json j = {{"name", m.name},
            {"kind", memory_kind_name(m.kind)},
            {"capacity_MiB", m.capacity_bytes / kBytesPerMiB},
            {"bandwidth_GBps", m.bandwidth_GBps},
            {"latency_ns", m.latency_ns},
            {"banks", m.banks},
            {"energy_pj_per_byte", m.energy_pj_per_byte},
            {"static_power_w", m.static_power_w}};
  if (m.spill_to >= 0) j["spill_to"] = hw.memories.at(m.spill_to).name;
  return j;
}

json link_to_json(const Hardware& hw, const Link& l) {
  json j = {{"name", l.name},
            {"kind", link_kind_name(l.kind)},
            {"endpoints", {hw.memories.at(l.endpoints[0]).name, hw.memories.at(l.endpoints[1]).name}},
            {"latency_ns", l.latency_ns},
            {"energy_pj_per_byte", l.energy_pj_per_byte}};
  if (l.kind == LinkKind::Pcie) {
    j["generation"] = l.pcie_generation;
    j["lanes"] = l.pcie_lanes;
    if (l.bandwidth_GBps != pcie_bandwidth_GBps(l.pcie_generation, l.pcie_lanes))
      j["bandwidth_GBps"] = l.bandwidth_GBps; // an override of the derived rate
  } else {
    j["bandwidth_GBps"] = l.bandwidth_GBps;
  }
  if (l.max_payload_bytes > 0) {
    j["max_payload_bytes"] = l.max_payload_bytes;
    j["header_bytes"] = l.header_bytes;
    if (l.energy_pj_per_packet != 0) j["energy_pj_per_packet"] = l.energy_pj_per_packet;
  }
  return j;
}

} // namespace

std::string_view feature_name(Feature f) {
  return kFeatureNames.at(static_cast<std::size_t>(f));
}

std::optional<Feature> parse_feature(std::string_view name) {
  for (std::size_t i = 0; i < kNumFeatures; ++i)
    if (kFeatureNames[i] == name) return static_cast<Feature>(i);
  return std::nullopt;
}

std::string_view fuse_mode_name(FuseMode m) {
  switch (m) {
  case FuseMode::None:
    return "none";
  case FuseMode::Tvm:
    return "tvm";
  case FuseMode::Flash:
    return "flash";
  case FuseMode::Vllm:
    return "vllm";
  }
  return "?";
}

std::optional<FuseMode> parse_fuse_mode(std::string_view name) {
  for (FuseMode m : {FuseMode::None, FuseMode::Tvm, FuseMode::Flash, FuseMode::Vllm})
    if (fuse_mode_name(m) == name) return m;
  return std::nullopt;
}

std::string_view unit_kind_name(UnitKind k) {
  switch (k) {
  case UnitKind::Cpu:
    return "cpu";
  case UnitKind::Gpu:
    return "gpu";
  case UnitKind::Phu:
    return "phu";
  }
  return "?";
}

std::string_view memory_kind_name(MemoryKind k) {
  switch (k) {
  case MemoryKind::Sram:
    return "sram";
  case MemoryKind::Hbm:
    return "hbm";
  case MemoryKind::Dram:
    return "dram";
  }
  return "?";
}

EnergyComponent memory_component(MemoryKind k) {
  switch (k) {
  case MemoryKind::Sram:
    return EnergyComponent::Sram;
  case MemoryKind::Hbm:
    return EnergyComponent::Hbm;
  case MemoryKind::Dram:
    return EnergyComponent::Dram;
  }
  return EnergyComponent::Dram;
}

int converter_bits(const PhuParams& phu, const ConverterParams& c) {
  return c.bits.value_or(phu.bits);
}

double converter_sample_rate_gsps(const PhuParams& phu, const ConverterParams& c) {
  return c.bit_clock_ghz / (converter_bits(phu, c) + 1);
}

double conversion_energy_pj(const PhuParams& phu, const ConverterParams& c) {
  return c.fom_fj_per_step * std::ldexp(1.0, converter_bits(phu, c)) * 1e-3;
}

std::string_view link_kind_name(LinkKind k) {
  switch (k) {
  case LinkKind::Pcie:
    return "pcie";
  case LinkKind::Bus:
    return "bus";
  }
  return "?";
}

double pcie_bandwidth_GBps(int generation, int lanes) {
  // Per-lane transfer rate (GT/s) and line-code efficiency per generation 1..6.
  constexpr std::array<double, 6> kGTps = {2.5, 5, 8, 16, 32, 64};
  constexpr std::array<double, 6> kEfficiency = {8.0 / 10,    8.0 / 10,    128.0 / 130,
                                                 128.0 / 130, 128.0 / 130, 242.0 / 256};
  auto g = static_cast<std::size_t>(generation - 1);
  return kGTps.at(g) * kEfficiency.at(g) / 8.0 * lanes;
}

void set_latency_hiding(Hardware& hw, bool on) {
  hw.latency_hiding = on;
  for (Unit& u : hw.units)
    u.latency_hiding = on;
}

int weight_buffers_in_use(const Unit& unit) {
  return unit.latency_hiding ? unit.phu.weight_buffers : 1;
}

bool has_load_stage(const Unit& unit) {
  return unit.latency_hiding && unit.prefetch.depth > 0;
}

double prefetch_reserved_bytes(const Unit& unit) {
  return has_load_stage(unit) ? unit.prefetch.depth * unit.prefetch.buffer_bytes : 0.0;
}

int Hardware::find_unit(std::string_view unit_name) const {
  for (std::size_t i = 0; i < units.size(); ++i)
    if (units[i].name == unit_name) return static_cast<int>(i);
  return -1;
}

int Hardware::find_memory(std::string_view memory_name) const {
  for (std::size_t i = 0; i < memories.size(); ++i)
    if (memories[i].name == memory_name) return static_cast<int>(i);
  return -1;
}

json parse_hardware_config(std::string_view text, const std::string& source) {
  return parse_json_text(text, source);
}

json read_hardware_config(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const InputError&) {
    throw InputError(path, "cannot open hardware config");
  }
  return parse_hardware_config(text, path);
}

Hardware load_hardware(const std::string& path) {
  return hardware_from_json(read_hardware_config(path), path);
}

json hardware_to_json(const Hardware& hw) {
  json j = json::object();
  j["name"] = hw.name;
  if (!hw.description.empty()) j["description"] = hw.description;
  j["units"] = json::array();
  for (const auto& u : hw.units)
    j["units"].push_back(unit_to_json(hw, u));
  j["memories"] = json::array();
  for (const auto& m : hw.memories)
    j["memories"].push_back(memory_to_json(hw, m));
  j["links"] = json::array();
  for (const auto& l : hw.links)
    j["links"].push_back(link_to_json(hw, l));
  j["placement"] = {{"inputs", hw.units.at(hw.placement.inputs_unit).name},
                    {"params", hw.placement.params_unit < 0 ? std::string("any")
                                                            : hw.units.at(hw.placement.params_unit).name}};
  if (hw.compiler != CompilerConfig{})
    j["compiler"] = {{"fuse", fuse_mode_name(hw.compiler.fuse)},
                     {"max_depth", hw.compiler.max_depth},
                     {"row_cta_threads", hw.compiler.row_cta_threads},
                     {"vector_access_bytes", hw.compiler.vector_access_bytes}};
  json models = json::object();
  for (const auto& m : hw.models) {
    json classes = json::object();
    for (std::size_t c = 0; c < kNumOpClasses; ++c)
      if (!m.classes[c].pieces.empty())
        classes[std::string(op_class_name(static_cast<OpClass>(c)))] = op_class_model_to_json(m.classes[c]);
    models[m.name] = classes;
  }
  j["models"] = models;
  if (hw.latency_hiding) j["latency_hiding"] = true;
  return j;
}

} // namespace lightsim::ir
