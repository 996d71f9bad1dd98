// NameTable: the one list of an enumeration's names (config keys, trace values, CLI choices), and the
// three things every such list is used for: a value's name, the value a name stands for, and the list of
// names for an error line ("expected none, tvm, flash or vllm").
//
// It is not a reflection library: the table is written by hand next to the enumeration, once.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lightsim::ir {

// "a, b or c": names joined for a message, the last two by `last_word`.
std::string join_names(const std::vector<std::string_view>& names, std::string_view last_word = "or");

template <class E, std::size_t N> class NameTable {
public:
  constexpr explicit NameTable(std::array<std::pair<E, std::string_view>, N> entries) : entries_(entries) {}

  // The value's name; "?" for a value the table does not list.
  constexpr std::string_view name(E value) const {
    for (const auto& [e, n] : entries_)
      if (e == value) return n;
    return "?";
  }
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const auto& [e, n] : entries_)
      if (n == text) return e;
    return std::nullopt;
  }
  // "a, b or c" (in table order), for messages.
  std::string choices(std::string_view last_word = "or") const {
    std::vector<std::string_view> names;
    for (const auto& entry : entries_)
      names.push_back(entry.second);
    return join_names(names, last_word);
  }
  constexpr const auto& entries() const { return entries_; }

private:
  std::array<std::pair<E, std::string_view>, N> entries_;
};

template <class E, std::size_t N> NameTable(std::array<std::pair<E, std::string_view>, N>) -> NameTable<E, N>;

} // namespace lightsim::ir
