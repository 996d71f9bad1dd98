#include "ir/hardware/arithmetic_model.h"

#include "ir/names.h"

#include <algorithm>
#include <stdexcept>

namespace lightsim::ir {
namespace {

struct FeatureInfo {
  std::string name, doc;
};

std::vector<FeatureInfo>& features() {
  static std::vector<FeatureInfo> all = {
      {"macs", "multiply-accumulates of the op (its GEMM view, or its own count)"},
      {"elements_in", "elements of the op's inputs"},
      {"elements_out", "elements of the op's outputs"},
      {"bytes_in", "bytes of the op's inputs"},
      {"bytes_out", "bytes of the op's outputs"},
      {"max_dim", "the largest dimension of the op's output"},
      {"operand_bytes", "bytes the unit's memory moves for the op (fused attention: FlashAttention's "
                        "traffic; a PHU adds the im2col patches it gathers)"},
      {"elementwise_ops", "element operations besides MACs, the fused tail's included"},
      {"compute_cycles", "unit clock cycles of the compute side, as the unit's kind counts them"},
      {"compute_cycles_per_byte", "compute_cycles / max(operand bytes, 1): compute- or memory-bound"},
      {"fused_ops", "element operations of the ops fused behind the anchor"}};
  return all;
}

const LinearForm& zero_form() {
  static const LinearForm zero;
  return zero;
}

} // namespace

Feature register_feature(std::string_view name, std::string_view doc) {
  if (const std::optional<Feature> known = parse_feature(name)) return *known;
  std::vector<FeatureInfo>& all = features();
  if (all.size() == kMaxFeatures)
    throw std::logic_error("feature '" + std::string(name) + "': more than kMaxFeatures (" +
                           std::to_string(kMaxFeatures) + ") registered; raise it in " +
                           "ir/hardware/arithmetic_model.h");
  all.push_back({std::string(name), std::string(doc)});
  return static_cast<Feature>(all.size() - 1);
}

std::size_t feature_count() {
  return features().size();
}

std::string_view feature_name(Feature f) {
  return features().at(static_cast<std::size_t>(f)).name;
}

std::string_view feature_doc(Feature f) {
  return features().at(static_cast<std::size_t>(f)).doc;
}

std::optional<Feature> parse_feature(std::string_view name) {
  const std::vector<FeatureInfo>& all = features();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].name == name) return static_cast<Feature>(i);
  return std::nullopt;
}

std::string feature_choices() {
  std::vector<std::string_view> names;
  for (const FeatureInfo& f : features())
    names.push_back(f.name);
  return join_names(names);
}

double LinearForm::apply(const FeatureValues& x) const {
  double value = intercept;
  for (std::size_t i = 0; i < kMaxFeatures; ++i)
    if (coef[i] != 0) value += coef[i] * x[i];
  return value;
}

const LinearForm* EnergyForms::find(EnergyComponent c) const {
  for (const auto& [component, form] : parts_)
    if (component == c) return &form;
  return nullptr;
}

bool EnergyForms::has(EnergyComponent c) const {
  const LinearForm* form = find(c);
  return form != nullptr && *form != LinearForm{};
}

LinearForm& EnergyForms::operator[](EnergyComponent c) {
  auto it = std::lower_bound(parts_.begin(), parts_.end(), c,
                             [](const auto& part, EnergyComponent key) { return part.first < key; });
  if (it == parts_.end() || it->first != c) it = parts_.insert(it, {c, LinearForm{}});
  return it->second;
}

const LinearForm& EnergyForms::operator[](EnergyComponent c) const {
  const LinearForm* form = find(c);
  return form ? *form : zero_form();
}

bool operator==(const EnergyForms& a, const EnergyForms& b) {
  // Absent and zero forms are the same form.
  auto covers = [](const EnergyForms& x, const EnergyForms& y) {
    for (const auto& [c, form] : x.parts_)
      if (form != y[c]) return false;
    return true;
  };
  return covers(a, b) && covers(b, a);
}

} // namespace lightsim::ir
