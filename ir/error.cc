#include "ir/error.h"

namespace lightsim {

InputError::InputError(const std::string& where, const std::string& what)
    : std::runtime_error(where.empty() ? what : where + ": " + what) {}

} // namespace lightsim
