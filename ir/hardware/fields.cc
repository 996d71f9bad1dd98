#include "ir/hardware/fields.h"

namespace lightsim::ir::detail {

std::string number_text(double value) {
  return nlohmann::json(value).dump();
}

} // namespace lightsim::ir::detail
