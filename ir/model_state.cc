#include "ir/model_state.h"

#include <cctype>
#include <string>

namespace lightsim::ir {

bool is_model_state_input(std::string_view name, const std::vector<std::int64_t>& shape) {
  if (shape.size() < 3 || shape.size() > 5) return false;
  for (std::int64_t d : shape)
    if (d <= 0) return false;
  std::string word;
  bool state = false;
  auto end_word = [&] {
    if (word == "past" || word == "cache" || word == "kv" || word.starts_with("kvcache")) state = true;
    word.clear();
  };
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else
      end_word();
  }
  end_word();
  return state;
}

} // namespace lightsim::ir
