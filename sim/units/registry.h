// register_unit_kinds: registers every unit kind listed in sim/units/kinds.def (its descriptor with
// ir/hardware/unit_kind.h, its SystemC module with sim/hw/unit_modules.h), in that order, once. Every
// program that loads a hardware config calls it first (the tools' main()s, the test and benchmark mains).
//
// It is not a plugin loader: the kinds are linked in; kinds.def is the list.
#pragma once

namespace lightsim {

void register_unit_kinds(); // later calls do nothing

} // namespace lightsim
