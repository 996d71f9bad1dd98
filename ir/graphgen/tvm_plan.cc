#include "ir/graphgen/tvm_plan.h"

#include <cstdio>

namespace lightsim::ir::graphgen::detail {

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

} // namespace lightsim::ir::graphgen::detail
