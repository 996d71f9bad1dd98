// Hardware: names of the enums, look-ups, PCIe rates, loading a config file and writing one back.
// Reading and validating the JSON is in hardware_from_json.cc.
#include "ir/hardware/hardware.h"

#include "ir/error.h"
#include "ir/hardware/hardware_fields.h"
#include "ir/json_reader.h"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

namespace lightsim::ir {

namespace {

using nlohmann::json;

json linear_form_to_json(const LinearForm& form) {
  json j = json::object();
  for (std::size_t i = 0; i < feature_count(); ++i)
    if (form.coef[i] != 0) j[std::string(feature_name(static_cast<Feature>(i)))] = form.coef[i];
  j["intercept"] = form.intercept;
  return j;
}

// A plain form when all the energy is `compute` (the format before components), else one form per
// component that has one.
json energy_to_json(const EnergyForms& e) {
  bool split = false;
  for (const auto& [c, form] : e.parts())
    split = split || (c != EnergyComponent::Compute && form != LinearForm{});
  if (!split) return linear_form_to_json(e[EnergyComponent::Compute]);
  json j = json::object();
  for (const auto& [c, form] : e.parts())
    if (form != LinearForm{}) j[std::string(energy_component_name(c))] = linear_form_to_json(form);
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

json unit_to_json(const Hardware& hw, const Unit& u) {
  json j = {{"name", u.name},
            {"kind", u.kind_name()},
            {"memory", hw.memories.at(u.memory).name},
            {"model", hw.models.at(u.model).name}};
  unit_fields().write(u, j);
  u.kind->write_params(u, j);
  return j;
}

json memory_to_json(const Hardware& hw, const Memory& m) {
  json j = {{"name", m.name}};
  memory_fields().write(m, j);
  if (m.spill_to >= 0) j["spill_to"] = hw.memories.at(m.spill_to).name;
  return j;
}

json link_to_json(const Hardware& hw, const Link& l) {
  json ends = json::array();
  for (int m : l.endpoints)
    ends.push_back(hw.memories.at(m).name);
  json j = {{"name", l.name}, {"endpoints", std::move(ends)}};
  link_fields().write(l, j);
  link_kind_fields(l.kind).write(l, j);
  return j;
}

} // namespace

std::string_view Unit::kind_name() const {
  return kind ? kind->name() : std::string_view("?");
}

std::string_view memory_kind_name(MemoryKind k) {
  return kMemoryKinds.name(k);
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

std::string_view link_kind_name(LinkKind k) {
  return kLinkKinds.name(k);
}

int link_port(const Link& link, int memory) {
  for (std::size_t p = 0; p < link.endpoints.size(); ++p)
    if (link.endpoints[p] == memory) return static_cast<int>(p);
  return -1;
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

bool has_load_stage(const Unit& unit) {
  return unit.latency_hiding && unit.prefetch.depth > 0;
}

double prefetch_reserved_bytes(const Unit& unit) {
  return has_load_stage(unit) ? unit.prefetch.depth * unit.prefetch.buffer_bytes : 0.0;
}

int Hardware::find_unit(std::string_view wanted) const {
  for (std::size_t i = 0; i < units.size(); ++i)
    if (units[i].name == wanted) return static_cast<int>(i);
  return -1;
}

int Hardware::find_memory(std::string_view wanted) const {
  for (std::size_t i = 0; i < memories.size(); ++i)
    if (memories[i].name == wanted) return static_cast<int>(i);
  return -1;
}

std::string_view Hardware::unit_name(int index) const {
  return index >= 0 && static_cast<std::size_t>(index) < units.size() ? std::string_view(units[index].name)
                                                                      : std::string_view();
}

std::string_view Hardware::memory_name(int index) const {
  return index >= 0 && static_cast<std::size_t>(index) < memories.size()
             ? std::string_view(memories[index].name)
             : std::string_view();
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
  j["placement"]["state"] = hw.placement.state_unit == Placement::kStateWithInputs ? std::string("inputs")
                            : hw.placement.state_unit < 0                          ? std::string("any")
                                                          : hw.units.at(hw.placement.state_unit).name;
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
  if (!(hw.collectives == CollectiveConfig{})) {
    json collectives = json::object();
    collective_fields().write(hw.collectives, collectives);
    j["collectives"] = collectives;
  }
  return j;
}

} // namespace lightsim::ir
