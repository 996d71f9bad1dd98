#include "ir/json_reader.h"

#include "ir/error.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace lightsim::ir {
namespace {

std::string kind_of(const nlohmann::json& v) {
  if (v.is_number_float()) return "number " + v.dump();
  if (v.is_number()) return "integer " + v.dump();
  if (v.is_string()) return "string " + v.dump();
  return v.type_name();
}

// nlohmann's messages start "[json.exception.parse_error.101] parse error at line 1, column 9: ...".
std::string parse_error_text(std::string text) {
  if (const std::size_t pos = text.find("] "); pos != std::string::npos) text.erase(0, pos + 2);
  for (char& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return text;
}

} // namespace

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, "no such file");
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory, not a JSON file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) throw InputError(path, "read error");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  in.read(text.data(), size);
  if (in.gcount() != size) throw InputError(path, "read error");
  return text;
}

InputError json_syntax_error(const std::string& path, std::size_t size, std::size_t byte,
                             const std::string& what) {
  // nlohmann counts bytes from 1; report the 0-based offset of the byte where parsing failed.
  const std::size_t offset = byte > 0 ? byte - 1 : 0;
  const bool at_end = offset >= size;
  return InputError(path, "byte offset " + std::to_string(offset) + ": not valid JSON" +
                              (at_end ? " (the file ends early: truncated?)" : "") + ": " +
                              parse_error_text(what));
}

InputError json_too_deep_error(const std::string& path) {
  return InputError(path, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
}

namespace {

// True when arrays and objects in `text` nest deeper than kMaxJsonDepth (strings skipped). Checked before
// parsing, in one pass, because nlohmann's DOM parser has no depth limit and its callback parser, which
// could stop at a depth, rescans an array at the end of each of its elements (quadratic time). For text
// that is JSON up to some byte, the depth seen up to there is the parser's; after it the parse fails anyway.
bool nests_too_deep(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

} // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& path) {
  if (nests_too_deep(text)) throw json_too_deep_error(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw json_syntax_error(path, text.size(), e.byte, e.what());
  } catch (const nlohmann::json::exception& e) { // a number beyond double's range
    throw InputError(path, "not valid JSON: " + parse_error_text(e.what()));
  }
}

std::optional<nlohmann::json> try_parse_json_text(std::string_view text) {
  if (nests_too_deep(text)) return std::nullopt;
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

void JsonReader::fail(const std::string& place, const std::string& what) const {
  throw InputError(place.empty() ? source_ : source_ + ": " + place, what);
}

void JsonReader::missing(const std::string& path, std::string_view key) const {
  fail(path.empty() ? "(top level)" : path, "missing '" + std::string(key) + "'");
}

void JsonReader::out_of_range(std::int64_t value, const std::string& path, std::int64_t min,
                              std::int64_t max) const {
  const std::string text = std::to_string(value);
  if (value < min) fail(path, text + (min == 0 ? " is negative" : " is below " + std::to_string(min)));
  fail(path, text + " is above " + std::to_string(max));
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
  return in_range(
      value.get<std::int64_t>(), [&] { return path; }, min, max);
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

} // namespace lightsim::ir
