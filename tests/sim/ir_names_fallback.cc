// TEMPORARY (trace branch): ir::op_class_name / unit_kind_name / link_kind_name are declared in the ir
// contract headers but implemented on other branches (importer: ir/op_class.cc, hardware:
// ir/hardware.cc). tests/sim/CMakeLists.txt compiles this file only while those sources are absent;
// delete it once both are merged.
#include "ir/hardware.h"
#include "ir/op_class.h"

#include <array>

namespace lightsim::ir {

#ifndef LIGHTSIM_HAVE_OP_CLASS_CC
std::string_view op_class_name(OpClass c) {
  static constexpr std::array<std::string_view, kNumOpClasses> kNames{
      "input", "nop",         "dense",         "batch_matmul", "conv2d",  "pool",      "layout_transform",
      "add",   "subtract",    "multiply",      "divide",       "power",   "negative",  "sqrt",
      "rsqrt", "exp",         "erf",           "relu",         "sigmoid", "tanh",      "cast",
      "less",  "where",       "mean",          "sum",          "softmax", "transpose", "take",
      "split", "concatenate", "strided_slice", "opaque"};
  return kNames[static_cast<std::size_t>(c)];
}
#endif

#ifndef LIGHTSIM_HAVE_HARDWARE_CC
std::string_view unit_kind_name(UnitKind k) {
  switch (k) {
  case UnitKind::Cpu:
    return "cpu";
  case UnitKind::Gpu:
    return "gpu";
  case UnitKind::Phu:
    return "phu";
  }
  return "?";
}
std::string_view link_kind_name(LinkKind k) {
  return k == LinkKind::Pcie ? "pcie" : "bus";
}
#endif

} // namespace lightsim::ir
