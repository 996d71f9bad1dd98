#include "sim/cli/describe_config.h"

#include "ir/cost/collectives.h"
#include "ir/error.h"
#include "ir/fusion/compiler_config.h"
#include "ir/hardware/hardware_fields.h"
#include "ir/hardware/unit_kind.h"
#include "ir/names.h"

namespace lightsim {
namespace {

struct Part {
  std::string name;    // what --describe-config takes
  std::string summary; // one line
  std::vector<ir::DocSection> sections;
  std::vector<std::string> notes; // lines after the tables (a kind's lanes, features, components)
};

// "`name` (doc)".
std::string named(std::string_view name, std::string_view doc) {
  std::string out;
  out.append("`").append(name).append("` (").append(doc).append(")");
  return out;
}

std::string list_of(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items)
    out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

Part kind_part(const ir::UnitKind& kind) {
  Part p{std::string(kind.name()), std::string(kind.summary()), kind.field_docs(), {}};
  p.sections.front().name = std::string(kind.name()) + " unit";
  p.notes.push_back("lanes (its `cores`): " + std::string(kind.lane_noun()) + "s");
  std::vector<std::string> features, components;
  for (ir::Feature f : kind.own_features())
    features.push_back(named(ir::feature_name(f), ir::feature_doc(f)));
  for (ir::EnergyComponent c : kind.own_energy_components())
    components.push_back(named(ir::energy_component_name(c), ir::energy_component_doc(c)));
  p.notes.push_back("arithmetic-model features it adds: " + list_of(features));
  p.notes.push_back("energy components it adds: " + list_of(components));
  return p;
}

std::vector<Part> all_parts() {
  std::vector<Part> parts;
  parts.push_back({"unit",
                   "the keys every unit has, whatever its kind (then its kind's: --describe-config KIND)",
                   ir::unit_fields().sections(),
                   {"kinds: " + ir::unit_kind_choices()}});
  for (const ir::UnitKind* kind : ir::unit_kinds())
    parts.push_back(kind_part(*kind));
  parts.push_back(
      {"memory", "a memory (SRAM, HBM, DRAM) that units read and write", ir::memory_fields().sections(), {}});
  std::vector<ir::DocSection> links = ir::link_fields().sections();
  for (ir::LinkKind k : {ir::LinkKind::Pcie, ir::LinkKind::Bus, ir::LinkKind::Nvlink})
    links.push_back(ir::link_kind_fields(k).sections().front());
  parts.push_back({"link",
                   "a link between two memories, or several through a switch (every link, then a PCIe "
                   "link's, a bus's and an NVLink's own keys)",
                   links,
                   {}});
  parts.push_back({"compiler",
                   "the fusion the graph goes through before it is placed (ir/fusion/fusion.h)",
                   ir::fusion::compiler_fields().sections(),
                   {}});
  parts.push_back({"collectives",
                   "the communication library: what a collective across units costs beyond its links "
                   "(ir/cost/collectives.h)",
                   ir::collective_fields().sections(),
                   {}});
  return parts;
}

void print_markdown(std::ostream& out, const Part& part) {
  bool first = true;
  for (const ir::DocSection& section : part.sections) {
    if (!first) out << "\n";
    if (!first || part.sections.size() > 1) out << "Keys of a " << section.name << ":\n\n";
    first = false;
    out << "| key | type | unit | presence | meaning |\n|---|---|---|---|---|\n";
    for (const ir::FieldDoc& row : section.rows)
      out << "| `" << row.key << "` | " << row.type << " | " << row.unit << " | " << row.presence << " | "
          << row.doc << " |\n";
  }
  for (const std::string& note : part.notes)
    out << "\n" << note << "\n";
}

// sst-info's layout: per key its type, unit and presence, then its meaning on the next line.
void print_text(std::ostream& out, const Part& part) {
  out << part.name << ": " << part.summary << "\n";
  for (const ir::DocSection& section : part.sections) {
    out << "  keys of a " << section.name << ":\n";
    for (const ir::FieldDoc& row : section.rows)
      out << "    " << row.key << " (" << row.type << (row.unit.empty() ? "" : ", " + row.unit) << "; "
          << row.presence << ")\n      " << row.doc << "\n";
  }
  for (const std::string& note : part.notes)
    out << "  " << note << "\n";
}

} // namespace

std::vector<std::string> describable_config_parts() {
  std::vector<std::string> names;
  for (const Part& p : all_parts())
    names.push_back(p.name);
  return names;
}

void describe_config(std::ostream& out, const std::string& what, bool markdown) {
  const std::vector<Part> parts = all_parts();
  bool any = false;
  for (const Part& part : parts) {
    if (what != "all" && part.name != what) continue;
    if (any) out << "\n";
    any = true;
    markdown ? print_markdown(out, part) : print_text(out, part);
  }
  if (!any) {
    std::vector<std::string_view> names{"all"};
    for (const Part& p : parts)
      names.push_back(p.name);
    throw InputError("--describe-config",
                     "no config part '" + what + "' (expected " + ir::join_names(names) + ")");
  }
}

} // namespace lightsim
