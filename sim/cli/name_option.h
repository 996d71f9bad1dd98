// An enumeration option whose values are names from an ir::NameTable (`--objective time`, `--fuse tvm`):
// the names are the only values accepted (not the enumerators' numbers, which CLI11's transformers also
// take), and a bad value is one line naming the option, the value and the accepted names.
//
// It is not a parser of config fields: a config's enumerations are read by ir/hardware/fields.h.
#pragma once

#include "ir/names.h"

#include <CLI/CLI.hpp>
#include <string>

namespace lightsim {

// Adds `flag` to `app`; a given name is stored in `target` (an E or a std::optional<E>). `table` must outlive
// the parse (the tables are constexpr globals). The help gets the names and, for a plain E, its default.
template <class T, class E, std::size_t N>
CLI::Option* add_name_option(CLI::App& app, const std::string& flag, T& target,
                             const ir::NameTable<E, N>& table, std::string help) {
  std::string names;
  for (const auto& [value, name] : table.entries())
    names += (names.empty() ? "" : "|") + std::string(name);
  auto* option = app.add_option_function<std::string>(
      flag, [&target, &table](const std::string& text) { target = *table.parse(text); }, std::move(help));
  option->check(CLI::Validator(
      [&table](std::string& text) -> std::string {
        if (table.parse(text)) return {};
        return "'" + text + "' is not one of " + table.choices();
      },
      names));
  if constexpr (std::is_same_v<T, E>) option->default_str(std::string(table.name(target)));
  return option;
}

} // namespace lightsim
