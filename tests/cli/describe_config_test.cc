// `lightsim --describe-config` and the generated tables of configs/README.md against the loader: every key
// of every shipped config is documented for its part, every documented required key is required by the
// loader (a config without it is one error line naming it) and every optional one may be left out.
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/hardware_fields.h"
#include "ir/hardware/unit_kind.h"
#include "sim/cli/describe_config.h"
#include "tests/cli/run_command.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace lightsim {
namespace {

using nlohmann::json;

std::vector<std::string> shipped_configs() {
  std::vector<std::string> paths;
  for (const char* folder : {"configs", "configs/published"})
    for (const auto& e : std::filesystem::directory_iterator(test::source_path(folder)))
      if (e.path().extension() == ".json") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::map<std::string, const ir::FieldDoc*> by_key(const std::vector<ir::FieldDoc>& rows) {
  std::map<std::string, const ir::FieldDoc*> out;
  for (const ir::FieldDoc& r : rows)
    out[r.key] = &r;
  return out;
}

// The documented keys of a unit of `kind`: every unit's, then the kind's own.
std::vector<ir::FieldDoc> unit_docs(const ir::UnitKind& kind) {
  std::vector<ir::FieldDoc> rows = ir::unit_fields().docs();
  const std::vector<ir::FieldDoc> own = kind.field_docs().front().rows;
  rows.insert(rows.end(), own.begin(), own.end());
  return rows;
}

std::string load_error(const json& config) {
  try {
    ir::hardware_from_json(config, "doc.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// For object `path` of `config` (a unit, memory or link) documented by `rows`: every key it has is
// documented; each required key left out is an error naming it; each optional one left out still loads.
void check_against_loader(const json& config, const json::json_pointer& path, const std::string& where,
                          const std::vector<ir::FieldDoc>& rows) {
  const std::map<std::string, const ir::FieldDoc*> docs = by_key(rows);
  for (const auto& item : config.at(path).items())
    EXPECT_TRUE(docs.contains(item.key())) << where << ": key '" << item.key() << "' is not documented";
  for (const auto& [key, doc] : docs) {
    if (!config.at(path).contains(key)) continue;
    json without = config;
    without.at(path).erase(key);
    const std::string error = load_error(without);
    if (doc->presence == "required") {
      EXPECT_NE(error.find("." + key + ": "), std::string::npos)
          << where << ": required key '" << key << "' left out: " << (error.empty() ? "accepted" : error);
    } else if (key == "spill_to" ||
               (key == "buffers" && error.find("attention entry") != std::string::npos)) {
      // Optional keys another part of the config may rely on: a spill target (leaving it out may leave a
      // memory unreachable), a PHU's buffer levels (the on-chip memory its model's attention entry needs).
    } else {
      EXPECT_EQ(error, "") << where << ": optional key '" << key << "' left out";
    }
  }
}

TEST(DescribeConfig, EveryShippedKeyIsDocumentedAndTheDocsSayWhatTheLoaderRequires) {
  std::size_t units = 0;
  for (const std::string& path : shipped_configs()) {
    std::ifstream in(path);
    const json config = json::parse(in);
    if (!config.contains("units")) continue; // configs/fitted/ holds models only
    for (std::size_t u = 0; u < config["units"].size(); ++u) {
      const ir::UnitKind* kind = ir::find_unit_kind(config["units"][u]["kind"].get<std::string>());
      ASSERT_NE(kind, nullptr) << path;
      check_against_loader(config, json::json_pointer("/units/" + std::to_string(u)),
                           path + " units[" + std::to_string(u) + "]", unit_docs(*kind));
      ++units;
    }
    for (std::size_t m = 0; m < config["memories"].size(); ++m)
      check_against_loader(config, json::json_pointer("/memories/" + std::to_string(m)),
                           path + " memories[" + std::to_string(m) + "]", ir::memory_fields().docs());
    for (std::size_t l = 0; l < config["links"].size(); ++l) {
      const json& link = config["links"][l];
      std::vector<ir::FieldDoc> rows = ir::link_fields().docs();
      const std::vector<ir::FieldDoc> own =
          ir::link_kind_fields(*ir::kLinkKinds.parse(link["kind"].get<std::string>())).docs();
      rows.insert(rows.end(), own.begin(), own.end());
      check_against_loader(config, json::json_pointer("/links/" + std::to_string(l)),
                           path + " links[" + std::to_string(l) + "]", rows);
    }
  }
  EXPECT_GE(units, 15u);
}

TEST(DescribeConfig, EveryKindAndPartIsDescribed) {
  std::ostringstream all;
  describe_config(all, "all", false);
  for (const ir::UnitKind* kind : ir::unit_kinds()) {
    std::ostringstream one;
    describe_config(one, std::string(kind->name()), false);
    EXPECT_NE(all.str().find(one.str()), std::string::npos) << kind->name();
    const std::vector<ir::DocSection> sections = kind->field_docs();
    for (const ir::FieldDoc& row : sections.front().rows)
      EXPECT_NE(one.str().find("    " + row.key + " ("), std::string::npos) << kind->name() << " " << row.key;
    for (ir::Feature f : kind->own_features())
      EXPECT_NE(one.str().find(std::string(ir::feature_name(f))), std::string::npos);
  }
  for (const std::string& part : describable_config_parts()) {
    std::ostringstream md;
    describe_config(md, part, true);
    EXPECT_NE(md.str().find("| key | type | unit | presence | meaning |"), std::string::npos) << part;
  }
}

TEST(DescribeConfig, TheCommandPrintsAKindAndRefusesAnUnknownPartInOneLine) {
  const test::CommandResult gpu = test::run_command(test::lightsim() + " --describe-config gpu");
  EXPECT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_NE(gpu.out.find("tensor_core_macs_per_cycle_per_sm"), std::string::npos);
  EXPECT_NE(gpu.out.find("keys of a cta tile"), std::string::npos);
  const test::CommandResult all = test::run_command(test::lightsim() + " --describe-config");
  EXPECT_EQ(all.exit_code, 0) << all.err;
  for (const ir::UnitKind* kind : ir::unit_kinds())
    EXPECT_NE(all.out.find(std::string(kind->name()) + ": "), std::string::npos) << kind->name();
  test::expect_bad_input(test::run_command(test::lightsim() + " --describe-config tpu"),
                         {"--describe-config: no config part 'tpu' (expected all, unit, cpu",
                          "memory, link, compiler or collectives)"});
}

} // namespace
} // namespace lightsim
