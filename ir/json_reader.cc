#include "ir/json_reader.h"

#include "ir/error.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace lightsim::ir {
namespace {

std::string kind_of(const nlohmann::json& v) {
  if (v.is_number_float()) return "number " + v.dump();
  if (v.is_number()) return "integer " + v.dump();
  if (v.is_string()) return "string " + v.dump();
  return v.type_name();
}

// nlohmann's messages start "[json.exception.parse_error.101] parse error at line 1, column 9: ...".
std::string parse_error_text(const nlohmann::json::parse_error& e) {
  std::string text = e.what();
  if (const std::size_t pos = text.find("] "); pos != std::string::npos) text.erase(0, pos + 2);
  for (char& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return text;
}

} // namespace

nlohmann::json read_json_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, "no such file");
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory, not a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, "read error");
  const std::string content = std::move(text).str();
  try {
    return nlohmann::json::parse(content);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann counts bytes from 1; report the 0-based offset of the byte where parsing failed.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    const bool at_end = offset >= content.size();
    throw InputError(path, "byte offset " + std::to_string(offset) + ": not valid JSON" +
                               (at_end ? " (the file ends early: truncated?)" : "") + ": " +
                               parse_error_text(e));
  }
}

void JsonReader::fail(const std::string& place, const std::string& what) const {
  throw InputError(place.empty() ? source_ : source_ + ": " + place, what);
}

const nlohmann::json* JsonReader::find(const nlohmann::json& obj, std::string_view key,
                                       const std::string& path) const {
  object(obj, path);
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const nlohmann::json& JsonReader::member(const nlohmann::json& obj, std::string_view key,
                                         const std::string& path) const {
  const nlohmann::json* value = find(obj, key, path);
  if (!value) fail(path.empty() ? "(top level)" : path, "missing '" + std::string(key) + "'");
  return *value;
}

const nlohmann::json& JsonReader::array(const nlohmann::json& value, const std::string& path) const {
  if (!value.is_array()) fail(path, "expected an array, found " + kind_of(value));
  return value;
}

const nlohmann::json& JsonReader::object(const nlohmann::json& value, const std::string& path) const {
  if (!value.is_object())
    fail(path.empty() ? "(top level)" : path, "expected an object, found " + kind_of(value));
  return value;
}

const std::string& JsonReader::string(const nlohmann::json& value, const std::string& path) const {
  if (!value.is_string()) fail(path, "expected a string, found " + kind_of(value));
  return value.get_ref<const std::string&>();
}

std::int64_t JsonReader::integer(const nlohmann::json& value, const std::string& path, std::int64_t min,
                                 std::int64_t max) const {
  if (!value.is_number_integer()) fail(path, "expected an integer, found " + kind_of(value));
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    fail(path, value.dump() + " is too large");
  const auto v = value.get<std::int64_t>();
  if (v < min) fail(path, value.dump() + (min == 0 ? " is negative" : " is below " + std::to_string(min)));
  if (v > max) fail(path, value.dump() + " is above " + std::to_string(max));
  return v;
}

std::int64_t JsonReader::integer_or_digits(const nlohmann::json& value, const std::string& path,
                                           std::int64_t min, std::int64_t max) const {
  if (!value.is_string()) return integer(value, path, min, max);
  const std::string& text = value.get_ref<const std::string&>();
  const bool digits =
      !text.empty() && text.size() <= 18 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) fail(path, "expected a non-negative integer, found string " + value.dump());
  return integer(nlohmann::json(std::stoll(text)), path, min, max);
}

const nlohmann::json& JsonReader::typed_list(const nlohmann::json& value, std::string_view tag,
                                             std::size_t length, const std::string& path) const {
  if (!value.is_array() || value.size() != 2 || !value[0].is_string() || !value[1].is_array())
    fail(path, "expected [\"" + std::string(tag) + "\", [...]]");
  if (value[0].get_ref<const std::string&>() != tag)
    fail(index_path(path, 0), "expected \"" + std::string(tag) + "\", found " + value[0].dump());
  const nlohmann::json& items = value[1];
  if (items.size() != length)
    fail(index_path(path, 1), "has " + std::to_string(items.size()) + " elements, expected one per entry (" +
                                  std::to_string(length) + ")");
  return items;
}

} // namespace lightsim::ir
