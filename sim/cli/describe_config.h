// `lightsim --describe-config [WHAT] [--markdown]`: the reference of a hardware config's keys, as sst-info
// lists a component's parameters: every unit kind registered (its summary, lane, keys, the features and
// energy components it adds), the keys every unit has, memories, links and the compiler section, all
// from the field tables that the loader reads through (ir/hardware/fields.h), so the reference cannot
// drift from the loader. --markdown prints the tables configs/README.md carries (scripts/config_docs.py
// splices them in; a test checks they are current).
//
// It is not documentation of values: why a shipped config has its numbers is prose in configs/README.md.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lightsim {

// What can be described: "unit", each registered kind's name, "memory", "link", "compiler".
std::vector<std::string> describable_config_parts();
// Prints `what` (or everything, for "all"); InputError naming the choices for anything else.
void describe_config(std::ostream& out, const std::string& what, bool markdown);

} // namespace lightsim
