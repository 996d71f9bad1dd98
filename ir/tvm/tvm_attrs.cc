#include "ir/tvm/tvm_attrs.h"

#include "ir/error.h"

#include <algorithm>

namespace lightsim::ir {
namespace {

// "[1, 1]", "(2, 2)", "3", "1, 1", "[]", "(3,)": integers as TVM's Array or a Python tuple prints them, read
// as a JSON array once the tuple's parentheses and trailing comma are made JSON.
bool parse_int_list(std::string_view text, std::vector<std::int64_t>& out) {
  std::string json_text(text);
  std::replace(json_text.begin(), json_text.end(), '(', '[');
  std::replace(json_text.begin(), json_text.end(), ')', ']');
  if (json_text.find('[') == std::string::npos) json_text = "[" + json_text + "]";
  if (const std::size_t close = json_text.rfind(']'); close != std::string::npos) {
    std::size_t last = json_text.find_last_not_of(" \t", close - 1);
    if (last != std::string::npos && json_text[last] == ',') json_text.erase(last, 1);
  }
  const nlohmann::json value = nlohmann::json::parse(json_text, nullptr, false);
  if (!value.is_array()) return false;
  out.clear();
  for (const nlohmann::json& v : value) {
    if (!v.is_number_integer()) return false;
    out.push_back(v.get<std::int64_t>());
  }
  return true;
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
  else if (key == "num_workers")
    one_int(attrs.num_workers);
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
