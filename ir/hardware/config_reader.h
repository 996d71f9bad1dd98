// ConfigObject: strict reading of one JSON object of a config file. Every accessor checks the type and
// range of a field and throws InputError "<file>: <json path>: <what>" when it is wrong; finish() rejects
// every key that no accessor asked for, so a typo in a config never passes silently.
//
// A context ("(unit 'gpu0')") may be set; every message ends with it, and objects read from this one
// inherit it. The field tables (ir/hardware/fields.h) read through it.
//
// It is not a schema language: ir/hardware/fields.h declares what a struct's keys are.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace lightsim::ir::detail {

class ConfigObject {
public:
  // Throws unless `value` is a JSON object. `path` is its JSON path ("units[0]"), "" for the root.
  ConfigObject(const nlohmann::json& value, std::string source, std::string path);

  const std::string& path() const { return path_; }
  const nlohmann::json& raw() const { return value_; }
  std::string key_path(const std::string& key) const; // path of one field
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  [[noreturn]] void fail_here(const std::string& what) const;

  bool has(const std::string& key) const { return value_.contains(key); }
  // The raw field (marks it as known); throws when missing.
  const nlohmann::json& required(const std::string& key);
  // nullptr when absent (marks it as known).
  const nlohmann::json* optional(const std::string& key);

  std::string string(const std::string& key);
  bool boolean(const std::string& key);
  double number(const std::string& key);       // any finite number
  double rate(const std::string& key);         // finite, > 0
  double non_negative(const std::string& key); // finite, >= 0
  double non_negative_or(const std::string& key, double fallback);
  double fraction(const std::string& key); // finite, in (0, 1]
  int count(const std::string& key);       // integer >= 1
  int count_or(const std::string& key, int fallback);
  int integer_in(const std::string& key, int lo, int hi);
  ConfigObject object(const std::string& key);

  // Throws on the first key (in sorted order) that no accessor read.
  void finish() const;

  const std::string& source() const { return source_; }
  const std::string& context() const { return context_; }
  void set_context(std::string context) { context_ = std::move(context); }
  // Said after "unknown key" (where the keys such an object may have are listed).
  void set_unknown_key_hint(std::string hint) { unknown_key_hint_ = std::move(hint); }

private:
  double finite_number(const std::string& key);

  const nlohmann::json& value_;
  std::string source_;
  std::string path_;
  std::string context_; // appended to every message: " (unit 'gpu0')"
  std::string unknown_key_hint_;
  std::set<std::string> known_;
};

} // namespace lightsim::ir::detail
