// JsonReader: checked access to a parsed JSON document whose every complaint is an InputError of the
// form "<source>: <json path>: <what is wrong>". Used by the importers in ir/ (TVM graphs); private to
// ir/, so it may include the full nlohmann header.
//
// It is not a schema validator: callers say what they expect, one value at a time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace lightsim::ir {

// Reads a whole file and parses it; a missing or unreadable file or text that is not JSON (truncated,
// garbage) is an InputError naming the file (and the byte offset of a parse error).
nlohmann::json read_json_file(const std::string& path);

class JsonReader {
public:
  explicit JsonReader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  [[noreturn]] void fail(const std::string& place, const std::string& what) const;

  // `obj` must be an object (checked) holding `key`; `path` names `obj`.
  const nlohmann::json& member(const nlohmann::json& obj, std::string_view key,
                               const std::string& path) const;
  // nullptr when absent; `obj` must still be an object.
  const nlohmann::json* find(const nlohmann::json& obj, std::string_view key, const std::string& path) const;

  const nlohmann::json& array(const nlohmann::json& value, const std::string& path) const;
  const nlohmann::json& object(const nlohmann::json& value, const std::string& path) const;
  const std::string& string(const nlohmann::json& value, const std::string& path) const;

  // A JSON integer (not 2.0, not "2") in [min, max].
  std::int64_t integer(const nlohmann::json& value, const std::string& path, std::int64_t min = INT64_MIN,
                       std::int64_t max = INT64_MAX) const;
  // A JSON integer or a string of decimal digits (TVM writes node attrs as strings: "num_outputs": "3").
  std::int64_t integer_or_digits(const nlohmann::json& value, const std::string& path, std::int64_t min,
                                 std::int64_t max) const;

  // TVM's typed list ["<tag>", [items...]] with exactly `length` items; returns the items array.
  const nlohmann::json& typed_list(const nlohmann::json& value, std::string_view tag, std::size_t length,
                                   const std::string& path) const;

private:
  std::string source_;
};

// "path[3]"
inline std::string index_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

} // namespace lightsim::ir
