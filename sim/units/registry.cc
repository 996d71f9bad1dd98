#include "sim/units/registry.h"

namespace lightsim {

#define LIGHTSIM_UNIT_KIND(name) void register_##name##_kind();
#include "sim/units/kinds.def"
#undef LIGHTSIM_UNIT_KIND

void register_unit_kinds() {
  static const bool registered = [] {
#define LIGHTSIM_UNIT_KIND(name) register_##name##_kind();
#include "sim/units/kinds.def"
#undef LIGHTSIM_UNIT_KIND
    return true;
  }();
  (void)registered;
}

} // namespace lightsim
