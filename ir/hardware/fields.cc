#include "ir/hardware/fields.h"

#include <cmath>

namespace lightsim::ir::detail {

std::string number_text(double value) {
  // Whole numbers as integers ("128", not "128.0"); others as JSON writes them (shortest round trip).
  if (std::isfinite(value) && value == std::trunc(value) && std::abs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  return nlohmann::json(value).dump();
}

} // namespace lightsim::ir::detail
