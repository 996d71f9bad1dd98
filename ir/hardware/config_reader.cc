#include "ir/hardware/config_reader.h"

#include "ir/error.h"

#include <cmath>
#include <limits>

namespace lightsim::ir::detail {

namespace {

std::string type_name(const nlohmann::json& v) {
  if (v.is_number()) return "a number";
  return std::string("a ") + v.type_name();
}

} // namespace

ConfigObject::ConfigObject(const nlohmann::json& value, std::string source, std::string path)
    : value_(value), source_(std::move(source)), path_(std::move(path)) {
  if (!value_.is_object()) fail_here("expected an object, found " + type_name(value_));
}

std::string ConfigObject::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void ConfigObject::fail(const std::string& key, const std::string& what) const {
  throw InputError(source_ + ": " + key_path(key), what + context_);
}

void ConfigObject::fail_here(const std::string& what) const {
  throw InputError(source_ + ": " + (path_.empty() ? std::string("(top level)") : path_), what + context_);
}

const nlohmann::json& ConfigObject::required(const std::string& key) {
  known_.insert(key);
  auto it = value_.find(key);
  if (it == value_.end()) fail(key, "missing required field");
  return *it;
}

const nlohmann::json* ConfigObject::optional(const std::string& key) {
  known_.insert(key);
  auto it = value_.find(key);
  return it == value_.end() ? nullptr : &*it;
}

std::string ConfigObject::string(const std::string& key) {
  const auto& v = required(key);
  if (!v.is_string()) fail(key, "expected a string, found " + type_name(v));
  auto s = v.get<std::string>();
  if (s.empty()) fail(key, "must not be empty");
  return s;
}

bool ConfigObject::boolean(const std::string& key) {
  const auto& v = required(key);
  if (!v.is_boolean()) fail(key, "expected true or false, found " + type_name(v));
  return v.get<bool>();
}

double ConfigObject::finite_number(const std::string& key) {
  const auto& v = required(key);
  if (!v.is_number()) fail(key, "expected a number, found " + type_name(v));
  double d = v.get<double>();
  if (!std::isfinite(d)) fail(key, "must be finite");
  return d;
}

double ConfigObject::number(const std::string& key) {
  return finite_number(key);
}

double ConfigObject::rate(const std::string& key) {
  double d = finite_number(key);
  if (d <= 0) fail(key, "must be positive, got " + value_.at(key).dump());
  return d;
}

double ConfigObject::non_negative(const std::string& key) {
  double d = finite_number(key);
  if (d < 0) fail(key, "must not be negative, got " + value_.at(key).dump());
  return d;
}

double ConfigObject::non_negative_or(const std::string& key, double fallback) {
  known_.insert(key);
  return has(key) ? non_negative(key) : fallback;
}

double ConfigObject::fraction(const std::string& key) {
  double d = finite_number(key);
  if (!(d > 0 && d <= 1)) fail(key, "must be in (0, 1], got " + value_.at(key).dump());
  return d;
}

int ConfigObject::integer_in(const std::string& key, int lo, int hi) {
  const auto& v = required(key);
  if (!v.is_number_integer()) fail(key, "expected an integer, found " + v.dump());
  // Compare as 64-bit values so that huge integers are reported, not wrapped. JSON text parses a
  // non-negative integer as unsigned: it must be checked against both bounds too.
  const bool outside = v.is_number_unsigned()
                           ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi) ||
                                 (lo > 0 && v.get<std::uint64_t>() < static_cast<std::uint64_t>(lo))
                           : v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi;
  if (outside)
    fail(key, "must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + v.dump());
  return static_cast<int>(v.get<std::int64_t>());
}

int ConfigObject::count(const std::string& key) {
  const auto& v = required(key);
  if (v.is_number_integer() && v.get<std::int64_t>() <= 0) fail(key, "must be positive, got " + v.dump());
  return integer_in(key, 1, std::numeric_limits<int>::max());
}

int ConfigObject::count_or(const std::string& key, int fallback) {
  known_.insert(key);
  return has(key) ? count(key) : fallback;
}

ConfigObject ConfigObject::object(const std::string& key) {
  ConfigObject sub(required(key), source_, key_path(key));
  sub.context_ = context_;
  return sub;
}

void ConfigObject::finish() const {
  for (const auto& item : value_.items())
    if (!known_.contains(item.key()))
      fail(item.key(), unknown_key_hint_.empty() ? "unknown key" : "unknown key: " + unknown_key_hint_);
}

} // namespace lightsim::ir::detail
