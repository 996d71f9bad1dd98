#include "ir/import_options.h"

#include "ir/error.h"

#include <charconv>

namespace lightsim::ir {

void add_dim_binding(DimBindings& dims, const std::string& argument) {
  const std::size_t eq = argument.rfind('=');
  const std::string where = "--dim " + argument;
  if (eq == std::string::npos || eq == 0)
    throw InputError(where, "expected NAME=VALUE (a symbolic dimension and its size)");
  const std::string name = argument.substr(0, eq);
  const std::string_view text = std::string_view(argument).substr(eq + 1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value <= 0)
    throw InputError(where, "VALUE must be a positive integer, got '" + std::string(text) + "'");
  const auto [at, inserted] = dims.emplace(name, value);
  if (!inserted && at->second != value)
    throw InputError(where, "'" + name + "' is already bound to " + std::to_string(at->second));
}

} // namespace lightsim::ir
