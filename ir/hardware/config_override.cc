#include "ir/hardware/config_override.h"

#include "ir/error.h"
#include "ir/json_reader.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

namespace lightsim::ir {
namespace {

using nlohmann::json;

// Where the walk through the config stands: the JSON node, its path for messages ("units[2].dac") and the
// part of the key not yet consumed.
struct Cursor {
  json* node;
  std::string path;
  std::string rest;
};

[[noreturn]] void fail(const ConfigOverride& o, const std::string& what) {
  throw InputError("--set " + o.argument, what);
}

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// True when `rest` is `name` or starts with `name` followed by '.'.
bool names_prefix(const std::string& rest, const std::string& name) {
  return rest.size() >= name.size() && rest.compare(0, name.size(), name) == 0 &&
         (rest.size() == name.size() || rest[name.size()] == '.');
}

std::string after(const std::string& rest, const std::string& name) {
  return rest.size() == name.size() ? std::string() : rest.substr(name.size() + 1);
}

std::string first_segment(const std::string& rest) {
  return rest.substr(0, rest.find('.'));
}

std::string list_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// The element of the array config[section] whose "name" is the longest prefix of `key`.
Cursor find_named(json& config, const std::string& section, const std::string& what, const std::string& key,
                  const ConfigOverride& o) {
  json* array = config.is_object() && config.contains(section) ? &config[section] : nullptr;
  if (array == nullptr || !array->is_array()) fail(o, "the config has no " + section + " array");
  auto name_of = [&](std::size_t i) -> const std::string* {
    const json& e = (*array)[i];
    const auto it = e.is_object() ? e.find("name") : e.end();
    return e.is_object() && it != e.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
  };
  std::size_t best = array->size(), best_size = 0;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string* name = name_of(i);
    if (name && (best == array->size() || name->size() > best_size) && names_prefix(key, *name)) {
      best = i;
      best_size = name->size();
    }
  }
  if (best == array->size()) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < array->size(); ++i)
      if (const std::string* name = name_of(i)) names.push_back(*name);
    std::string hint = section == "units" ? " (memories, links, placement and models need their prefix, "
                                            "e.g. memories.NAME.FIELD)"
                                          : "";
    fail(o,
         "no " + what + " named '" + first_segment(key) + "'; " + section + ": " + list_names(names) + hint);
  }
  const std::string name = (*array)[best]["name"].get<std::string>();
  return {&(*array)[best], section + "[" + std::to_string(best) + "]", after(key, name)};
}

// Where the key starts: a section element found by name, placement, models, or a bare unit name.
Cursor start(json& config, const ConfigOverride& o) {
  const std::string& key = o.key;
  if (names_prefix(key, "units") && key != "units")
    return find_named(config, "units", "unit", after(key, "units"), o);
  if (names_prefix(key, "memories") && key != "memories")
    return find_named(config, "memories", "memory", after(key, "memories"), o);
  if (names_prefix(key, "links") && key != "links")
    return find_named(config, "links", "link", after(key, "links"), o);
  if (key == "latency_hiding") return {&config, "", key}; // the machine-wide switch
  for (const char* section : {"placement", "models", "compiler"})
    if (names_prefix(key, section)) {
      if (!config.is_object() || !config.contains(section))
        fail(o, std::string("the config has no ") + section);
      return {&config[section], section, after(key, section)};
    }
  return find_named(config, "units", "unit", key, o);
}

std::vector<std::string> field_names(const json& object) {
  std::vector<std::string> names;
  for (const auto& item : object.items())
    names.push_back(item.key());
  return names;
}

// Walks `c` down to the parent of the field to set; returns that parent and leaves the field's name in
// c.rest.
Cursor descend(Cursor c, const ConfigOverride& o) {
  while (true) {
    if (c.rest.empty()) fail(o, c.path + " is not a single field; name one of its fields");
    if (c.node->is_object()) {
      if (c.node->contains(c.rest)) return c; // the longest key that can prefix rest is rest itself
      std::string best; // longest existing key that prefixes rest (keys may contain '.')
      for (const auto& item : c.node->items())
        if (names_prefix(c.rest, item.key()) && item.key().size() > best.size()) best = item.key();
      if (best.empty() || best == c.rest) {
        if (best.empty() && c.rest.find('.') != std::string::npos)
          fail(o, "no field '" + first_segment(c.rest) + "' in " + c.path +
                      " (fields: " + list_names(field_names(*c.node)) + ")");
        return c; // the field exists, or is a new leaf for the loader to judge
      }
      c = {&(*c.node)[best], join_path(c.path, best), after(c.rest, best)};
    } else if (c.node->is_array()) {
      const std::string index_text = first_segment(c.rest);
      std::size_t index = 0;
      bool digits = !index_text.empty() && index_text.size() < 10;
      for (char ch : index_text)
        digits = digits && ch >= '0' && ch <= '9';
      if (digits) index = std::stoul(index_text);
      if (!digits || index >= c.node->size())
        fail(o, c.path + " is an array of " + std::to_string(c.node->size()) + "; '" + index_text +
                    "' is not an index in it");
      if (index_text == c.rest) return c;
      c = {&(*c.node)[index], c.path + "[" + index_text + "]", after(c.rest, index_text)};
    } else {
      fail(o, c.path + " is a " + c.node->type_name() + "; it has no field '" + first_segment(c.rest) + "'");
    }
  }
}

// The override's value as JSON, checked against the type of the field it replaces (if any).
json typed_value(const json* existing, const std::string& path, const ConfigOverride& o) {
  std::optional<json> parsed = try_parse_json_text(o.value);
  json value = parsed ? std::move(*parsed) : json(o.value); // unquoted text is a string
  if (existing == nullptr || existing->is_null()) return value;
  if (existing->is_string()) return value.is_string() ? value : json(o.value);
  const bool same =
      (existing->is_number() && value.is_number()) || (existing->is_boolean() && value.is_boolean()) ||
      (existing->is_object() && value.is_object()) || (existing->is_array() && value.is_array());
  if (!same) {
    std::string expected = existing->is_number()    ? "a number"
                           : existing->is_boolean() ? "true or false"
                                                    : std::string("a JSON ") + existing->type_name();
    fail(o, path + " expects " + expected + ", got '" + o.value + "'");
  }
  return value;
}

} // namespace

ConfigOverride parse_override(const std::string& argument) {
  ConfigOverride o;
  o.argument = argument;
  const std::size_t eq = argument.find('=');
  if (eq == std::string::npos) fail(o, "expected KEY=VALUE (e.g. phu0.wdm_channels=16)");
  o.key = argument.substr(0, eq);
  o.value = argument.substr(eq + 1);
  if (o.key.empty()) fail(o, "the key before '=' is empty");
  return o;
}

namespace {

// What one applied override changed, kept so that it can be taken back and applied again while the blame
// for an invalid result is searched. It holds the container, not the json value that holds it: moving json
// values around moves only their pointers, so every container outlives any order of toggles.
struct Change {
  json::object_t* object = nullptr; // the field's object, or
  json::array_t* array = nullptr;   // the element's array
  std::string key;
  std::size_t index = 0;
  bool existed = true; // the field was in the object before the override
  json other;          // the value the field does not hold now
};

// Where keys already applied lead (the parent of the field they set), while the config keeps its shape: an
// override that puts a scalar where a scalar or null was moves no node, so every key resolves as before; one
// that adds a field or puts or removes an object or array may change any resolution, and clears the map.
// A long list of --set arguments is then walked once per distinct key.
using ResolvedKeys = std::unordered_map<std::string, Cursor>;

bool structured(const json& value) {
  return value.is_object() || value.is_array();
}

Change apply_change(json& config, const ConfigOverride& o, ResolvedKeys* resolved = nullptr) {
  const auto known = resolved ? resolved->find(o.key) : ResolvedKeys::iterator();
  const Cursor parent = resolved && known != resolved->end() ? known->second : descend(start(config, o), o);
  Change c;
  const json* placed = nullptr;
  if (parent.node->is_array()) {
    c.array = parent.node->get_ptr<json::array_t*>();
    c.index = std::stoul(parent.rest);
    json& element = (*c.array)[c.index];
    c.other = typed_value(&element, parent.path + "[" + parent.rest + "]", o);
    std::swap(element, c.other);
    placed = &element;
  } else {
    c.object = parent.node->get_ptr<json::object_t*>();
    c.key = parent.rest;
    const auto it = c.object->find(c.key);
    c.existed = it != c.object->end();
    c.other = typed_value(c.existed ? &it->second : nullptr, join_path(parent.path, parent.rest), o);
    if (c.existed) {
      std::swap(it->second, c.other);
      placed = &it->second;
    } else {
      c.object->emplace(c.key, std::move(c.other));
    }
  }
  if (resolved) {
    if (placed == nullptr || structured(*placed) || structured(c.other))
      resolved->clear();
    else
      resolved->try_emplace(o.key, parent);
  }
  return c;
}

// Takes the change back if it is in the config, applies it again if not.
void toggle(Change& c) {
  if (c.array) {
    std::swap((*c.array)[c.index], c.other);
  } else if (c.existed) {
    std::swap(c.object->at(c.key), c.other);
  } else if (const auto it = c.object->find(c.key); it != c.object->end()) {
    c.other = std::move(it->second);
    c.object->erase(it);
  } else {
    c.object->emplace(c.key, std::move(c.other));
  }
}

} // namespace

void apply_override(json& config, const ConfigOverride& o) {
  apply_change(config, o);
}

json config_with_overrides(const json& config, const std::string& source,
                           const std::vector<std::string>& overrides, const ConfigValidator& validate) {
  std::vector<ConfigOverride> parsed;
  std::vector<Change> changes;
  json edited = config;
  parsed.reserve(overrides.size());
  changes.reserve(overrides.size());
  ResolvedKeys resolved;
  for (const std::string& argument : overrides) {
    parsed.push_back(parse_override(argument));
    changes.push_back(apply_change(edited, parsed.back(), &resolved));
  }
  std::string why;
  try {
    validate(edited, source);
    return edited;
  } catch (const InputError& e) {
    if (parsed.empty()) throw;
    why = e.what();
  }
  validate(config, source); // a fault of the file itself is reported as such
  // Blame an override after which the config stops being valid: bisect for k with the first k - 1
  // overrides valid and the first k not (the whole list is not), validating log2(n) prefixes, each reached
  // from the last by taking back or applying again the changes between them (2n toggles in all).
  std::size_t applied = changes.size(), valid = 0, invalid = changes.size();
  while (invalid - valid > 1) {
    const std::size_t mid = valid + (invalid - valid) / 2;
    while (applied > mid)
      toggle(changes[--applied]);
    while (applied < mid)
      toggle(changes[applied++]);
    try {
      validate(edited, source);
      valid = mid;
    } catch (const InputError& e) {
      invalid = mid;
      why = e.what();
    }
  }
  fail(parsed[invalid - 1], why);
}

Hardware hardware_with_overrides(const json& config, const std::string& source,
                                 const std::vector<std::string>& overrides) {
  // Validating is loading: keep what the last validation built, which on return is the edited config's
  // (a sweep point pays for one load, not two).
  std::optional<Hardware> built;
  config_with_overrides(config, source, overrides,
                        [&built](const json& c, const std::string& s) { built = hardware_from_json(c, s); });
  return std::move(*built);
}

Hardware load_hardware(const std::string& path, const std::vector<std::string>& overrides) {
  if (overrides.empty()) return load_hardware(path);
  return hardware_with_overrides(read_hardware_config(path), path, overrides);
}

} // namespace lightsim::ir
