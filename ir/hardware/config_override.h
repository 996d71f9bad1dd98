// Config overrides: `--set KEY=VALUE` edits of a hardware config's JSON, applied before validation, so a
// design-space sweep needs no copies of a config. KEY addresses one field:
//   <unit name>.<field>[.<subfield>...]   a unit, found by name            phu0.wdm_channels=16
//   units.<name>.<field>...               the same, explicitly             units.gpu0.sms=64
//   memories.<name>.<field>...            a memory, found by name          memories.sram0.capacity_MiB=64
//   links.<name>.<field>...               a link, found by name            links.pcie-phu.lanes=8
//   placement.<field>                     where inputs / weights live      placement.params=phu0
//   models.<model>.<op class>.<...>       model coefficients               models.m.dense.time_s.macs=1e-12
//   latency_hiding                        the machine-wide switch          latency_hiding=false
// Inside arrays a segment may be an index (models.m.dense.pieces.0.time_s.intercept=0). VALUE is parsed as
// JSON (16, 2.5e9, true, "x"); text that is not valid JSON is taken as a string (placement.params=phu0).
// Every segment but the last must exist; the last may name an existing field (the value must then have
// its type) or a new one, which the strict loader accepts only where the config format allows it.
//
// A bad override is one InputError line that names the `--set` argument. It is not a config format:
// the result is validated by ir::hardware_from_json exactly like a file.
#pragma once

#include "ir/hardware/hardware.h"

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace lightsim::ir {

struct ConfigOverride {
  std::string argument; // as typed, "phu0.wdm_channels=16" (for messages)
  std::string key;      // "phu0.wdm_channels"
  std::string value;    // "16"
};

// Splits "KEY=VALUE" at the first '='; throws InputError when there is no '=' or the key is empty.
ConfigOverride parse_override(const std::string& argument);

// Applies one override to a config's JSON in place; throws InputError "--set ARG: what is wrong".
void apply_override(nlohmann::json& config, const ConfigOverride& override_);

// Checks a whole config's JSON; throws InputError naming `source` when it is not valid.
using ConfigValidator = std::function<void(const nlohmann::json& config, const std::string& source)>;

// Applies every override in order to `config` and returns the result, which `validate` accepts. When the
// base config is valid but the result is not, the message names an override after which the config stops
// being valid (the overrides before it give a valid config, those up to it do not; found by bisection, so
// that a long list costs log2(n) validations). With one bad override, that is the one.
nlohmann::json config_with_overrides(const nlohmann::json& config, const std::string& source,
                                     const std::vector<std::string>& overrides,
                                     const ConfigValidator& validate);

// The same, validated and loaded by hardware_from_json.
Hardware hardware_with_overrides(const nlohmann::json& config, const std::string& source,
                                 const std::vector<std::string>& overrides);

// Reads the config file at `path` (InputError when missing or not JSON) and does the above. With no
// overrides, the same as load_hardware(path).
Hardware load_hardware(const std::string& path, const std::vector<std::string>& overrides);

} // namespace lightsim::ir
