// A validator for count options (`--tp 4`, `--pp 2`, `--top 20`): a whole number of at least `min`, and a
// bad value is one short line naming it ("--pp: must be a whole number of at least 1, got 0"), where CLI11's
// PositiveNumber prints the whole range of a double.
//
// It is not a parser: CLI11 converts the accepted text to the option's type.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

namespace lightsim {

inline CLI::Validator whole_number_at_least(long long min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        std::size_t used = 0;
        long long value = 0;
        try {
          value = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || value < min)
          return "must be a whole number of at least " + std::to_string(min) + ", got '" + text + "'";
        return {};
      },
      min > 0 ? "POSITIVE" : "NON-NEGATIVE");
}

} // namespace lightsim
