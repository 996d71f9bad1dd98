// Reading JSON input files, and JsonReader: checked access to parsed JSON values whose every complaint is
// an InputError of the form "<source>: <json path>: <what is wrong>". The TVM importer uses JsonReader on
// the values it did not expect (ir/tvm/tvm_document.h keeps those whole) so that it can say what it found.
// Private to ir/, so it may include the full nlohmann header.
//
// It is not a schema validator: callers say what they expect, one value at a time.
#pragma once

#include "ir/error.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace lightsim::ir {

// Reads a whole file with one read. A missing file, a directory or an unreadable file is an InputError
// naming the file ("no such file", "is a directory, not a JSON file", "cannot open: <reason>").
std::string read_text_file(const std::string& path);

// The InputError for text of `size` bytes that nlohmann stopped parsing at 1-based byte `byte` with
// message `what`: "<path>: byte offset <0-based>: not valid JSON[ (the file ends early: truncated?)]:
// <nlohmann's message without its id>".
InputError json_syntax_error(const std::string& path, std::size_t size, std::size_t byte,
                             const std::string& what);

// The deepest nesting of arrays and objects lightsim reads. Its files nest a few levels; deeper text is
// refused while it is read, before it is built: a DOM of nested arrays costs ~50 bytes per '[' of input.
inline constexpr std::size_t kMaxJsonDepth = 64;
// "<path>: JSON nested deeper than 64 levels".
InputError json_too_deep_error(const std::string& path);

// Parses JSON text (a config file) into a DOM; InputError naming `path` when it is not JSON (as
// json_syntax_error, or a number beyond double's range) or nests deeper than kMaxJsonDepth.
nlohmann::json parse_json_text(std::string_view text, const std::string& path);
// The same without the error: nullopt when `text` is not JSON or nests too deep.
std::optional<nlohmann::json> try_parse_json_text(std::string_view text);

class JsonReader {
public:
  explicit JsonReader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  [[noreturn]] void fail(const std::string& place, const std::string& what) const;
  // "<path or (top level)>: missing '<key>'"
  [[noreturn]] void missing(const std::string& path, std::string_view key) const;

  const nlohmann::json& array(const nlohmann::json& value, const std::string& path) const;
  const nlohmann::json& object(const nlohmann::json& value, const std::string& path) const;
  const std::string& string(const nlohmann::json& value, const std::string& path) const;

  // A JSON integer (not 2.0, not "2") in [min, max].
  std::int64_t integer(const nlohmann::json& value, const std::string& path, std::int64_t min = INT64_MIN,
                       std::int64_t max = INT64_MAX) const;
  // A JSON integer or a string of decimal digits (TVM writes node attrs as strings: "num_outputs": "3").
  std::int64_t integer_or_digits(const nlohmann::json& value, const std::string& path, std::int64_t min,
                                 std::int64_t max) const;
  // `value` (an integer already read) in [min, max]; `path()` names it, built only for the message.
  template <class PathFn>
  std::int64_t in_range(std::int64_t value, const PathFn& path, std::int64_t min, std::int64_t max) const {
    if (value < min || value > max) out_of_range(value, path(), min, max);
    return value;
  }

private:
  [[noreturn]] void out_of_range(std::int64_t value, const std::string& path, std::int64_t min,
                                 std::int64_t max) const;

  std::string source_;
};

// "path[3]"
inline std::string index_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

} // namespace lightsim::ir
