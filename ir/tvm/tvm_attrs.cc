#include "ir/tvm/tvm_attrs.h"

#include "ir/error.h"

#include <cctype>
#include <charconv>

namespace lightsim::ir {
namespace {

// "[1, 1]", "(2, 2)", "3", "1,1", "[]": integers separated by commas, optionally in brackets.
bool parse_int_list(std::string_view text, std::vector<std::int64_t>& out) {
  out.clear();
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
      s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
      s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  if (text.size() >= 2 &&
      ((text.front() == '[' && text.back() == ']') || (text.front() == '(' && text.back() == ')')))
    text = trim(text.substr(1, text.size() - 2));
  if (text.empty()) return true;
  while (true) {
    const std::size_t comma = text.find(',');
    std::string_view item = trim(text.substr(0, comma));
    if (!item.empty() && item.back() == 'L') item.remove_suffix(1); // Python 2 longs
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) return false;
    out.push_back(v);
    if (comma == std::string_view::npos) return true;
    text = text.substr(comma + 1);
    if (trim(text).empty()) return true; // "(3,)"
  }
}

} // namespace

void read_op_attr(const TvmDocument& doc, const OpAttrItem& item, OpAttrs& attrs, const std::string& place) {
  const std::string key(doc.text(item.key));
  const nlohmann::json* value = item.value >= 0 ? &doc.value(item.value) : nullptr;
  const std::string text = value ? value->dump() : std::string(doc.text(item.text));
  const auto fail = [&](const std::string& expected) {
    throw InputError(place, "attrs." + key + " is " + (value ? text : nlohmann::json(text).dump()) +
                                ", expected " + expected);
  };
  const auto ints = [&](std::vector<std::int64_t>& out) {
    out.clear();
    if (!value) {
      if (!parse_int_list(text, out)) fail("integers such as [1, 1]");
    } else if (value->is_number_integer()) {
      out.push_back(value->get<std::int64_t>());
    } else if (value->is_array()) {
      for (const nlohmann::json& v : *value) {
        if (!v.is_number_integer()) fail("an array of integers");
        out.push_back(v.get<std::int64_t>());
      }
    } else {
      fail("integers such as [1, 1]");
    }
    for (std::int64_t v : out)
      if (v < 0) fail("non-negative integers");
  };
  const auto one_int = [&](std::int64_t& out) {
    std::vector<std::int64_t> v;
    ints(v);
    if (v.size() != 1) fail("one integer");
    out = v[0];
  };
  const auto word = [&](std::string& out) {
    if (value && !value->is_string()) fail("a layout name such as \"NCHW\"");
    out = value ? value->get<std::string>() : text;
  };
  if (key == "strides")
    ints(attrs.strides);
  else if (key == "padding")
    ints(attrs.padding);
  else if (key == "dilation")
    ints(attrs.dilation);
  else if (key == "kernel_size")
    ints(attrs.kernel_size);
  else if (key == "pool_size")
    ints(attrs.pool_size);
  else if (key == "output_padding")
    ints(attrs.output_padding);
  else if (key == "groups")
    one_int(attrs.groups);
  else if (key == "channels")
    one_int(attrs.channels);
  else if (key == "data_layout" || key == "layout")
    word(attrs.data_layout);
  else if (key == "kernel_layout")
    word(attrs.kernel_layout);
  else if (key == "ceil_mode") {
    if (value && value->is_boolean()) {
      attrs.ceil_mode = value->get<bool>();
    } else if (value && value->is_number_integer()) {
      attrs.ceil_mode = value->get<std::int64_t>() != 0;
    } else if (!value && (text == "1" || text == "True" || text == "true")) {
      attrs.ceil_mode = true;
    } else if (!value && (text == "0" || text == "False" || text == "false")) {
      attrs.ceil_mode = false;
    } else {
      fail("a boolean");
    }
  }
}

} // namespace lightsim::ir
