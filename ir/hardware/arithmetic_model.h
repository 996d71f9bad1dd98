// The arithmetic model's data: features (the named inputs of the linear model), linear forms over them,
// piecewise entries per op class and the per-unit model a config carries (configs/README.md, "Models").
//
// Features every unit has are fixed here: shape features from OpFeatures (macs, bytes, ...) and the
// unit-aware ones every kind fills (operand_bytes, compute_cycles, ...). A unit kind adds features of its
// own when it registers (ir/hardware/unit_kind.h: a GPU's tile_pass_waves, a PHU's conversion counts, ...),
// so that adding a kind adds no line here. Feature ids are indices in registration order: the fixed ones,
// then each kind's as the kinds register (sim/units/kinds.def).
//
// It is not the evaluation: ir/cost/cost_model.h computes feature values and applies the forms.
#pragma once

#include "ir/energy.h"
#include "ir/op_class.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lightsim::ir {

// A feature id. The named values are the fixed features; a kind's features take the ids after
// kNumFixedFeatures as it registers them.
enum class Feature : std::uint8_t {
  Macs,
  ElementsIn,
  ElementsOut,
  BytesIn,
  BytesOut,
  MaxDim,
  // Unit-aware: the work as the unit's SystemC module counts it (the unit's kind computes them).
  OperandBytes,   // bytes_read + bytes_out (+ what the unit materialises, e.g. a PHU's im2col
                  // patches): memory traffic (Attention: FlashAttention's traffic for the unit's
                  // on-chip memory, ir/cost/unit_work.h)
  ElementwiseOps, // max(elements_in, elements_out) for non-GEMM ops, 0 for GEMMs; + the fused tail's
  ComputeCycles,  // unit clock cycles of the compute side (the kind's: SIMD, GPU kernel, PHU tiles, ...)
  ComputeCyclesPerByte, // compute_cycles / max(operand_bytes, 1): compute- vs memory-bound
  FusedOps,             // element operations of the ops fused behind the anchor (0 for an unfused op)
};
inline constexpr std::size_t kNumFixedFeatures = 11;
// Room for the kinds' features; registering more is an error that names this constant.
inline constexpr std::size_t kMaxFeatures = 40;

// Registers a feature a unit kind computes (its name is a config key); returns its id. Registering a
// name again returns the same id, so two kinds may share a feature.
Feature register_feature(std::string_view name, std::string_view doc);
std::size_t feature_count();              // registered so far: ids 0 .. count - 1
std::string_view feature_name(Feature f); // "macs", "elements_in", ... (config keys)
std::string_view feature_doc(Feature f);
std::optional<Feature> parse_feature(std::string_view name);
std::string feature_choices(); // "macs, elements_in, ... or row_kernel_cycles", for messages

// Values of every feature for one op on one unit (0 where a feature does not apply).
using FeatureValues = std::array<double, kMaxFeatures>;

// value = intercept + sum_i coef[i] * feature_i
struct LinearForm {
  std::array<double, kMaxFeatures> coef{};
  double intercept = 0;
  double apply(const FeatureValues& x) const;
  friend bool operator==(const LinearForm&, const LinearForm&) = default;
};

// Energy as one linear form per component (ir/energy.h); an op's energy is the sum over components of
// max(0, form). A config's plain `energy_j` form is all `compute`; link and static are never op energy.
// Only the components with a form are stored (absent: a zero form).
class EnergyForms {
public:
  LinearForm& operator[](EnergyComponent c); // adds a zero form when absent
  const LinearForm& operator[](EnergyComponent c) const;
  bool has(EnergyComponent c) const; // a non-zero form
  // (component, form) pairs in component id order.
  const std::vector<std::pair<EnergyComponent, LinearForm>>& parts() const { return parts_; }
  friend bool operator==(const EnergyForms& a, const EnergyForms& b);

private:
  const LinearForm* find(EnergyComponent c) const;
  std::vector<std::pair<EnergyComponent, LinearForm>> parts_;
};

// One piece of a piecewise-linear model: it applies when `when` is unset or
// when_min <= feature(when) < when_max. Pieces are tried in order; the last one has no condition.
struct ModelPiece {
  std::optional<Feature> when;
  double when_min = -std::numeric_limits<double>::infinity();
  double when_max = std::numeric_limits<double>::infinity();
  LinearForm time_s;
  EnergyForms energy_j;
  friend bool operator==(const ModelPiece&, const ModelPiece&) = default;
};

// Provenance of a fitted entry (written by retrain; empty for hand-written entries).
struct FitInfo {
  std::size_t samples = 0;
  double r2 = 0;
  std::array<double, kMaxFeatures> feature_min{}, feature_max{};
  friend bool operator==(const FitInfo&, const FitInfo&) = default;
};

struct OpClassModel {
  std::vector<ModelPiece> pieces; // empty: the unit cannot run this class
  std::optional<FitInfo> fit;
  friend bool operator==(const OpClassModel&, const OpClassModel&) = default;
};

// Per op class; a unit can run exactly the classes whose entry has pieces.
struct ArithmeticModel {
  std::string name;
  std::array<OpClassModel, kNumOpClasses> classes;
  bool can_run(OpClass c) const { return !classes[static_cast<std::size_t>(c)].pieces.empty(); }
  friend bool operator==(const ArithmeticModel&, const ArithmeticModel&) = default;
};

} // namespace lightsim::ir
