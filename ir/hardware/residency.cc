#include "ir/hardware/residency.h"

namespace lightsim::ir {

bool is_resident_input(const Hardware& hw, const Op& op) {
  if (op.op_class != OpClass::Input) return false;
  return op.is_param || (op.is_state && hw.placement.state_unit != Placement::kStateWithInputs);
}

int fixed_input_unit(const Hardware& hw, const Op& op) {
  if (op.is_param) return hw.placement.params_unit;
  if (op.is_state && hw.placement.state_unit != Placement::kStateWithInputs) return hw.placement.state_unit;
  return hw.placement.inputs_unit;
}

const char* resident_input_noun(const Op& op) {
  return op.is_state ? "model state (KV cache)" : "weight";
}

} // namespace lightsim::ir
