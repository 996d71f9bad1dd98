// The field tables of the parts of a machine that are not a unit kind's: what every unit has (its kind's
// keys are the kind's table, sim/units/<kind>/), its load stage, memories and links (ir/hardware/fields.h).
// The loader and the writer read and write through them; `lightsim --describe-config` and the generated
// tables of configs/README.md print them.
//
// It is not the loader: names, kinds and references between parts are resolved in hardware_from_json.cc.
#pragma once

#include "ir/hardware/fields.h"
#include "ir/hardware/hardware.h"
#include "ir/names.h"

namespace lightsim::ir {

inline constexpr NameTable kMemoryKinds{std::array{std::pair{MemoryKind::Sram, std::string_view("sram")},
                                                   std::pair{MemoryKind::Hbm, std::string_view("hbm")},
                                                   std::pair{MemoryKind::Dram, std::string_view("dram")}}};
inline constexpr NameTable kLinkKinds{std::array{std::pair{LinkKind::Pcie, std::string_view("pcie")},
                                                 std::pair{LinkKind::Bus, std::string_view("bus")},
                                                 std::pair{LinkKind::Nvlink, std::string_view("nvlink")}}};

const FieldTable<Unit>& unit_fields(); // every unit, whatever its kind
const FieldTable<PrefetchParams>& prefetch_fields();
const FieldTable<Memory>& memory_fields();
const FieldTable<Link>& link_fields();                   // every link
const FieldTable<Link>& link_kind_fields(LinkKind kind); // a PCIe link's, a bus's or an NVLink's own

} // namespace lightsim::ir
