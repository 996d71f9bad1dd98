// format(): printf into a std::string of whatever length the result has (the text is measured first, so
// nothing is ever cut off), for the tables and summary lines the tools print.
//
// It is not a formatting library (no std::format, no type-safe placeholders): the printf rules apply, and
// the compiler checks the arguments against a literal format as it does printf's.
#pragma once

#include <string>

namespace lightsim::ir {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace lightsim::ir
