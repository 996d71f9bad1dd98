#include "ir/names.h"

namespace lightsim::ir {

std::string join_names(const std::vector<std::string_view>& names, std::string_view last_word) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0 && i + 1 == names.size()) {
      out.append(" ").append(last_word).append(" ");
    } else if (i > 0) {
      out.append(", ");
    }
    out.append(names[i]);
  }
  return out;
}

} // namespace lightsim::ir
