#include "ir/cost/unit_work.h"

#include "ir/int_math.h"

#include <algorithm>

namespace lightsim::ir {

bool has_gemm_view(const OpFeatures& op) {
  return op.gemm_batch > 0 && op.gemm_m > 0 && op.gemm_n > 0 && op.gemm_k > 0;
}

double elementwise_ops(const OpFeatures& op) {
  if (op.elementwise_ops > 0) return op.elementwise_ops;
  // Features filled by hand (not by Graph::finalize): the anchor's own rule plus the fused tail.
  return (op.macs > 0 || has_gemm_view(op) ? 0 : std::max(op.elements_read, op.elements_out)) + op.fused_ops;
}

double attention_memory_bytes(const OpFeatures& op, double on_chip_bytes) {
  if (op.attention_value_dim <= 0 || op.attention_element_bytes <= 0 || !has_gemm_view(op)) return 0;
  constexpr double kStatBytes = 4; // l and m are kept in fp32
  const double e = op.attention_element_bytes;
  const std::int64_t d = op.gemm_k, dv = op.attention_value_dim;
  const auto on_chip_elements = static_cast<std::int64_t>(on_chip_bytes / e);
  const std::int64_t bc = std::max<std::int64_t>(1, ceil_div(on_chip_elements, 4 * d));
  const auto tc = static_cast<double>(ceil_div(op.gemm_n, bc));
  const auto m = static_cast<double>(op.gemm_m), n = static_cast<double>(op.gemm_n);
  const double per_head = e * (n * static_cast<double>(d + dv) + m * static_cast<double>(dv) +
                               tc * m * static_cast<double>(d + 2 * dv)) +
                          kStatBytes * (2 * m + 4 * tc * m);
  return static_cast<double>(op.gemm_batch) * per_head + op.attention_mask_bytes;
}

double operand_bytes(const Unit& unit, const OpFeatures& op) {
  if (op.attention_value_dim > 0) return attention_memory_bytes(op, unit.kind->attention_on_chip_bytes(unit));
  return op.bytes_read + op.bytes_out + unit.kind->materialised_bytes(unit, op);
}

} // namespace lightsim::ir
