// hardware_from_json: reads and validates a hardware config (layout in configs/README.md).
#include "ir/error.h"
#include "ir/hardware/config_reader.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/hardware_fields.h"
#include "ir/hardware/transfer.h"

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace lightsim::ir {

namespace {

using detail::ConfigObject;
using nlohmann::json;

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

std::string index_path(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Calls f(element, path) for each element of the required array field `key` of `parent`.
template <class F> void for_each_element(ConfigObject& parent, const std::string& key, F&& f) {
  const json& array = parent.required(key);
  if (!array.is_array()) parent.fail(key, std::string("expected an array, found ") + array.type_name());
  for (std::size_t i = 0; i < array.size(); ++i)
    f(array[i], index_path(parent.key_path(key), i));
}

// {"<feature>": coef, ..., "intercept": b}; absent features are zero.
LinearForm read_linear_form(ConfigObject o) {
  LinearForm form;
  for (const auto& item : o.raw().items()) {
    if (item.key() == "intercept") {
      form.intercept = o.number(item.key());
    } else if (auto f = parse_feature(item.key())) {
      form.coef[static_cast<std::size_t>(*f)] = o.number(item.key());
    } else {
      o.fail(item.key(), "unknown feature (expected intercept or one of " + feature_choices() + ")");
    }
  }
  return form;
}

// Either one linear form (all `compute`, the format before components) or an object of per-component
// linear forms {"laser": FORM, "dac": FORM, ...}.
EnergyForms read_energy(ConfigObject o) {
  EnergyForms energy;
  bool forms = false, numbers = false;
  for (const auto& item : o.raw().items())
    (item.value().is_object() ? forms : numbers) = true;
  if (forms && numbers)
    o.fail_here("mixes a linear form with per-component forms (give either {\"<feature>\": coefficient, "
                "\"intercept\": b} or {\"<component>\": {...}, ...})");
  if (!forms) {
    energy[EnergyComponent::Compute] = read_linear_form(o);
    return energy;
  }
  for (const auto& item : o.raw().items()) {
    const std::optional<EnergyComponent> c = parse_energy_component(item.key());
    if (!c) o.fail(item.key(), "unknown energy component (expected " + energy_component_choices() + ")");
    if (!is_op_component(*c))
      o.fail(item.key(),
             "not an op energy: link energy comes from the links, static energy from static power "
             "x makespan");
    energy[*c] = read_linear_form(o.object(item.key()));
  }
  return energy;
}

Feature read_feature_name(ConfigObject& o, const std::string& key) {
  auto name = o.string(key);
  auto f = parse_feature(name);
  if (!f) o.fail(key, "unknown feature '" + name + "'");
  return *f;
}

ModelPiece read_piece(ConfigObject o, bool is_last) {
  ModelPiece piece;
  if (o.optional("when")) {
    auto when = o.object("when");
    piece.when = read_feature_name(when, "feature");
    if (!when.has("min") && !when.has("max")) when.fail_here("needs \"min\", \"max\" or both");
    if (when.optional("min")) piece.when_min = when.number("min");
    if (when.optional("max")) piece.when_max = when.number("max");
    if (!(piece.when_min < piece.when_max)) when.fail("max", "must be greater than min");
    when.finish();
  } else if (!is_last) {
    o.fail("when", "missing: only the last piece may apply unconditionally");
  }
  piece.time_s = read_linear_form(o.object("time_s"));
  piece.energy_j = read_energy(o.object("energy_j"));
  o.finish();
  return piece;
}

FitInfo read_fit(ConfigObject o) {
  FitInfo fit;
  fit.samples = static_cast<std::size_t>(o.integer_in("samples", 0, std::numeric_limits<int>::max()));
  fit.r2 = o.number("r2");
  fit.feature_min = read_linear_form(o.object("feature_min")).coef;
  fit.feature_max = read_linear_form(o.object("feature_max")).coef;
  o.finish();
  return fit;
}

OpClassModel read_op_class_model(ConfigObject o) {
  OpClassModel entry;
  if (o.optional("pieces")) {
    const json& pieces = o.required("pieces");
    if (!pieces.is_array() || pieces.empty()) o.fail("pieces", "expected a non-empty array");
    for_each_element(o, "pieces", [&](const json& p, const std::string& path) {
      entry.pieces.push_back(read_piece(ConfigObject(p, o.source(), path), &p == &pieces.back()));
    });
    if (entry.pieces.back().when)
      o.fail("pieces", "the last piece must have no \"when\" (it applies to everything else)");
  } else {
    ModelPiece piece;
    piece.time_s = read_linear_form(o.object("time_s"));
    piece.energy_j = read_energy(o.object("energy_j"));
    entry.pieces.push_back(piece);
  }
  if (o.optional("fit")) entry.fit = read_fit(o.object("fit"));
  o.finish();
  return entry;
}

ArithmeticModel read_model(const std::string& name, ConfigObject o) {
  ArithmeticModel model;
  model.name = name;
  for (const auto& item : o.raw().items()) {
    auto c = parse_op_class(item.key());
    if (!c) o.fail(item.key(), "unknown op class '" + item.key() + "'");
    model.classes[static_cast<std::size_t>(*c)] = read_op_class_model(o.object(item.key()));
  }
  return model;
}

// Names of units and memories share one namespace: a link endpoint may name either.
class Names {
public:
  void add(ConfigObject& o, const std::string& name) {
    auto [it, fresh] = where_.emplace(name, o.path());
    if (!fresh) o.fail("name", "duplicate name '" + name + "' (already used by " + it->second + ")");
  }

private:
  std::map<std::string, std::string> where_;
};

struct PendingUnit {
  std::string path, memory, model;
};

Unit read_unit(ConfigObject o, Names& names, PendingUnit& pending) {
  Unit u;
  u.name = o.string("name");
  names.add(o, u.name);
  const std::string kind = o.string("kind");
  u.kind = find_unit_kind(kind);
  if (u.kind == nullptr)
    o.fail("kind", "unknown unit kind '" + kind + "' (expected " + unit_kind_choices() + ")");
  pending = {o.path(), o.string("memory"), o.string("model")};
  o.set_context(" (unit '" + u.name + "')");
  o.set_unknown_key_hint("a " + kind + " unit has no such key (lightsim --describe-config " + kind +
                         " lists its keys)");
  unit_fields().read(o, u);
  u.kind->read_params(o, u);
  o.finish(); // keys of another kind are unknown here
  return u;
}

Memory read_memory(ConfigObject o, Names& names, std::string& spill_to) {
  Memory m;
  m.name = o.string("name");
  names.add(o, m.name);
  memory_fields().read(o, m);
  if (o.optional("spill_to")) spill_to = o.string("spill_to");
  o.finish();
  return m;
}

Link read_link(ConfigObject o, const Hardware& hw, std::set<std::string>& link_names) {
  Link l;
  l.name = o.string("name");
  if (!link_names.insert(l.name).second) o.fail("name", "duplicate link name '" + l.name + "'");
  const json& ends = o.required("endpoints");
  if (!ends.is_array() || ends.size() < 2) o.fail("endpoints", "expected an array of two or more names");
  for (std::size_t i = 0; i < ends.size(); ++i) {
    std::string path = index_path(o.key_path("endpoints"), i);
    if (!ends[i].is_string()) throw InputError(o.source() + ": " + path, "expected a unit or memory name");
    auto name = ends[i].get<std::string>();
    int unit = hw.find_unit(name);
    int memory = unit >= 0 ? hw.units[unit].memory : hw.find_memory(name);
    if (memory < 0) throw InputError(o.source() + ": " + path, "no unit or memory named '" + name + "'");
    if (link_port(l, memory) >= 0)
      throw InputError(o.source() + ": " + path,
                       "memory '" + hw.memories[memory].name + "' is already an endpoint of this link");
    l.endpoints.push_back(memory);
  }
  link_fields().read(o, l);
  link_kind_fields(l.kind).read(o, l);
  o.finish();
  return l;
}

// With latency hiding on, the prefetch buffers of the units on each memory must fit in it together.
void check_prefetch_fits(const Hardware& hw, const std::string& source) {
  if (!hw.latency_hiding) return;
  std::vector<double> reserved(hw.memories.size(), 0.0);
  for (std::size_t u = 0; u < hw.units.size(); ++u) {
    const Unit& unit = hw.units[u];
    const double own = prefetch_reserved_bytes(unit);
    if (own == 0) continue;
    const Memory& m = hw.memories[static_cast<std::size_t>(unit.memory)];
    reserved[static_cast<std::size_t>(unit.memory)] += own;
    const double total = reserved[static_cast<std::size_t>(unit.memory)];
    if (total <= m.capacity_bytes) continue;
    auto mib = [](double bytes) {
      std::ostringstream text;
      text << bytes / kBytesPerMiB;
      return text.str();
    };
    throw InputError(source + ": " + index_path("units", u) + ".prefetch.buffer_MiB",
                     std::to_string(unit.prefetch.depth) + " buffers of " + mib(unit.prefetch.buffer_bytes) +
                         " MiB" +
                         (total > own ? " (with the other units' there: " + mib(total) + " MiB)" : "") +
                         " do not fit memory '" + m.name + "' (capacity_MiB " + mib(m.capacity_bytes) + ")");
  }
}

int resolve_unit(ConfigObject& o, const std::string& key, const Hardware& hw) {
  auto name = o.string(key);
  int u = hw.find_unit(name);
  if (u < 0) o.fail(key, "no unit named '" + name + "'");
  return u;
}

} // namespace

Hardware hardware_from_json(const json& config, const std::string& source) {
  ConfigObject root(config, source, "");
  Hardware hw;
  hw.source = source;
  hw.name = root.string("name");
  if (root.optional("description")) {
    const json& d = root.required("description");
    if (!d.is_string()) root.fail("description", "expected a string");
    hw.description = d.get<std::string>();
  }

  // Models first: units refer to them by name. A JSON object is read in key order.
  auto models = root.object("models");
  for (const auto& item : models.raw().items())
    hw.models.push_back(read_model(item.key(), models.object(item.key())));

  Names names;
  std::vector<std::string> spills;
  for_each_element(root, "memories", [&](const json& m, const std::string& path) {
    spills.emplace_back();
    hw.memories.push_back(read_memory(ConfigObject(m, source, path), names, spills.back()));
  });
  for (std::size_t i = 0; i < spills.size(); ++i) {
    if (spills[i].empty()) continue;
    std::string where = source + ": " + index_path("memories", i) + ".spill_to";
    hw.memories[i].spill_to = hw.find_memory(spills[i]);
    if (hw.memories[i].spill_to < 0) throw InputError(where, "no memory named '" + spills[i] + "'");
    if (hw.memories[i].spill_to == static_cast<int>(i))
      throw InputError(where, "a memory cannot spill to itself");
  }

  for_each_element(root, "units", [&](const json& u, const std::string& path) {
    PendingUnit pending;
    ConfigObject o(u, source, path);
    Unit unit = read_unit(o, names, pending);
    unit.memory = hw.find_memory(pending.memory);
    if (unit.memory < 0) o.fail("memory", "no memory named '" + pending.memory + "'");
    auto model = std::find_if(hw.models.begin(), hw.models.end(),
                              [&](const ArithmeticModel& m) { return m.name == pending.model; });
    if (model == hw.models.end()) o.fail("model", "no model named '" + pending.model + "' in models");
    unit.model = static_cast<int>(model - hw.models.begin());
    unit.kind->bind(unit, hw.memories[static_cast<std::size_t>(unit.memory)]);
    hw.units.push_back(std::move(unit));
  });
  if (hw.units.empty()) root.fail("units", "a machine needs at least one unit");

  std::set<std::string> link_names;
  if (root.optional("links"))
    for_each_element(root, "links", [&](const json& l, const std::string& path) {
      hw.links.push_back(read_link(ConfigObject(l, source, path), hw, link_names));
    });

  if (root.optional("latency_hiding")) hw.latency_hiding = root.boolean("latency_hiding");
  set_latency_hiding(hw, hw.latency_hiding);
  check_prefetch_fits(hw, source);

  auto placement = root.object("placement");
  hw.placement.inputs_unit = resolve_unit(placement, "inputs", hw);
  if (placement.string("params") == "any")
    hw.placement.params_unit = -1;
  else
    hw.placement.params_unit = resolve_unit(placement, "params", hw);
  if (placement.optional("state")) {
    const std::string state = placement.string("state");
    hw.placement.state_unit = state == "inputs" ? Placement::kStateWithInputs
                              : state == "any"  ? -1
                                                : resolve_unit(placement, "state", hw);
  }
  placement.finish();
  root.optional("compiler"); // the fusion pass's section: ir/fusion/compiler_config.h reads it
  if (root.optional("collectives")) {
    auto collectives = root.object("collectives");
    collective_fields().read_all(collectives, hw.collectives);
  }
  root.finish();

  // Fused attention is tiled to a unit's on-chip memory (ir/cost/unit_work.h): a model that runs it must
  // belong to units that have one (a GPU's shared memory, a PHU's local buffer).
  for (std::size_t u = 0; u < hw.units.size(); ++u) {
    const Unit& unit = hw.units[u];
    if (!hw.model_of(static_cast<int>(u)).can_run(OpClass::Attention)) continue;
    if (unit.kind->attention_on_chip_bytes(unit) <= 0)
      throw InputError(
          source + ": " + index_path("units", u),
          "model '" + hw.models[static_cast<std::size_t>(unit.model)].name +
              "' has an attention entry, which needs a unit with an on-chip memory to tile it to "
              "(a GPU with shared_memory_per_sm_KiB, a PHU with buffers)");
  }

  TransferModel check(hw); // throws when a unit's memory cannot reach another's
  return hw;
}

} // namespace lightsim::ir
