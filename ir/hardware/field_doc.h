// FieldDoc: one row of a config reference, and DocSection, one table of them (a struct's keys), as
// `lightsim --describe-config` prints them and the generated tables of configs/README.md show them
// (ir/hardware/fields.h makes them from the field tables).
//
// It is not the field: reading and writing are the table's.
#pragma once

#include <string>
#include <vector>

namespace lightsim::ir {

struct FieldDoc {
  std::string key;
  std::string type;     // "integer >= 1", "number > 0", "true or false", "object (prefetch)", ...
  std::string unit;     // "ns", "GB/s"; empty when it has none
  std::string presence; // "required", "optional, default 4", "optional, default the memory's latency_ns"
  std::string doc;
};

// The keys of one struct (its table's name: "gpu", "cta tile"); a table's nested objects follow it as
// sections of their own.
struct DocSection {
  std::string name;
  std::vector<FieldDoc> rows;
};

} // namespace lightsim::ir
