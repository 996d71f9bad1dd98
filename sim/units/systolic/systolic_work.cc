#include "sim/units/systolic/systolic_work.h"

#include "ir/cost/unit_work.h"
#include "ir/int_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lightsim::units {
namespace {

// One fold's traffic: bytes fetched into each scratchpad before it (A's tile, W's tile, partial sums read
// back), written back after it, and what the array reads from and writes to each scratchpad.
struct FoldTraffic {
  double a_in = 0, w_in = 0, psum_in = 0, store = 0;
  double ifmap = 0, filter = 0, ofmap = 0;
  double load() const { return a_in + w_in + psum_in; }
};

} // namespace

SystolicMapping systolic_mapping(Dataflow dataflow, std::int64_t m, std::int64_t n, std::int64_t k) {
  switch (dataflow) {
  case Dataflow::WeightStationary:
    return {k, n, m};
  case Dataflow::OutputStationary:
    return {m, n, k};
  case Dataflow::InputStationary:
    return {k, m, n};
  }
  return {};
}

double systolic_mac_rate(const ir::Unit& unit, const ir::OpFeatures& op) {
  const std::optional<SystolicPrecision> p = systolic_precision(op.gemm_dtype);
  return p ? unit.as<SystolicParams>().macs_per_pe_per_cycle[static_cast<std::size_t>(*p)] : 0.0;
}

double systolic_vector_cycles(const ir::Unit& unit, double ops) {
  return ops / unit.as<SystolicParams>().vector_ops_per_cycle;
}

SystolicGemm systolic_gemm(const ir::Unit& unit, const ir::OpFeatures& op) {
  const double rate = systolic_mac_rate(unit, op);
  if (!ir::has_gemm_view(op) || rate <= 0) return {};
  const double operand = ir::dtype_element_bytes(op.gemm_dtype);
  const double output = op.elements_out > 0 ? op.bytes_out / op.elements_out : operand;
  return systolic_gemm(unit, op.gemm_m, op.gemm_n, op.gemm_k, op.gemm_batch, operand, rate, output);
}

SystolicGemm systolic_gemm(const ir::Unit& unit, std::int64_t m, std::int64_t n, std::int64_t k,
                           std::int64_t batch, double e, double macs_per_pe_per_cycle, double out) {
  const SystolicParams& p = unit.as<SystolicParams>();
  const std::int64_t r = p.rows, c = p.cols;
  const double acc = p.accumulator_bytes;
  const SystolicMapping map = systolic_mapping(p.dataflow, m, n, k);
  SystolicGemm g;
  g.row_folds = ceil_div(map.sr, r);
  g.col_folds = ceil_div(map.sc, c);
  g.folds = batch * g.row_folds * g.col_folds;
  const double streamed = std::ceil(static_cast<double>(map.t) / macs_per_pe_per_cycle);
  g.fold_cycles = static_cast<double>(2 * r + c - 2) + streamed;
  g.compute_cycles = static_cast<double>(g.folds) * g.fold_cycles;
  g.macs =
      static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);

  // What a scratchpad's half holds decides what later folds reuse.
  const double ifmap_half = p.ifmap_sram.size_bytes / 2, filter_half = p.filter_sram.size_bytes / 2,
               ofmap_half = p.ofmap_sram.size_bytes / 2;
  const auto M = static_cast<double>(m), N = static_cast<double>(n), K = static_cast<double>(k);
  const bool a_fits = M * K * e <= ifmap_half, w_fits = K * N * e <= filter_half;
  // The folds of one GEMM of the batch, column fold by column fold, row fold inside.
  std::vector<FoldTraffic> folds;
  folds.reserve(static_cast<std::size_t>(g.row_folds * g.col_folds));
  for (std::int64_t fc = 0; fc < g.col_folds; ++fc) {
    const auto cu = static_cast<double>(std::min(c, map.sc - fc * c)); // columns of the array in use
    for (std::int64_t fr = 0; fr < g.row_folds; ++fr) {
      const auto ru = static_cast<double>(std::min(r, map.sr - fr * r)); // rows in use
      const bool last_row_fold = fr + 1 == g.row_folds;
      FoldTraffic f;
      switch (p.dataflow) {
      case Dataflow::WeightStationary: { // W[ru x cu] in the PEs; A[M x ru] streams; C[M x cu] accumulates
        const bool psums_fit = M * cu * acc <= ofmap_half;
        f.w_in = ru * cu * e;
        f.a_in = a_fits && fc > 0 ? 0 : M * ru * e;
        f.psum_in = !psums_fit && fr > 0 ? M * cu * acc : 0;
        f.store = last_row_fold ? M * cu * out : (psums_fit ? 0 : M * cu * acc);
        f.ifmap = M * ru * e;
        f.filter = ru * cu * e;
        f.ofmap = M * cu * acc * (fr > 0 ? 2 : 1);
        break;
      }
      case Dataflow::OutputStationary: { // C[ru x cu] accumulates in the PEs; A[ru x K] and W[K x cu] stream
        const bool w_block_fits = K * cu * e <= filter_half;
        f.a_in = a_fits && fc > 0 ? 0 : ru * K * e;
        f.w_in = w_block_fits && fr > 0 ? 0 : K * cu * e;
        f.store = ru * cu * out;
        f.ifmap = ru * K * e;
        f.filter = K * cu * e;
        f.ofmap = ru * cu * acc;
        break;
      }
      case Dataflow::InputStationary: { // A^T[ru x cu] in the PEs; W[ru x N] streams; C[cu x N] accumulates
        const bool psums_fit = cu * N * acc <= ofmap_half;
        f.a_in = ru * cu * e;
        f.w_in = w_fits && fc > 0 ? 0 : ru * N * e;
        f.psum_in = !psums_fit && fr > 0 ? cu * N * acc : 0;
        f.store = last_row_fold ? cu * N * out : (psums_fit ? 0 : cu * N * acc);
        f.ifmap = ru * cu * e;
        f.filter = ru * N * e;
        f.ofmap = cu * N * acc * (fr > 0 ? 2 : 1);
        break;
      }
      }
      folds.push_back(f);
    }
  }

  // Per GEMM of the batch, then times the batch (its GEMMs are alike). Fills and drains pass through the
  // scratchpads too.
  FoldTraffic sum;
  for (const FoldTraffic& f : folds) {
    sum.a_in += f.a_in;
    sum.w_in += f.w_in;
    sum.psum_in += f.psum_in;
    sum.store += f.store;
    sum.ifmap += f.ifmap;
    sum.filter += f.filter;
    sum.ofmap += f.ofmap;
  }
  const auto b = static_cast<double>(batch);
  g.memory_bytes = b * (sum.load() + sum.store);
  g.ifmap_sram_bytes = b * (sum.ifmap + sum.a_in);
  g.filter_sram_bytes = b * (sum.filter + sum.w_in);
  g.ofmap_sram_bytes = b * (sum.ofmap + sum.psum_in + sum.store);

  // Double-buffered scratchpads: fold f computes while f+1's tiles arrive and f-1's outputs leave.
  const double beta = p.memory_bandwidth_GBps > 0
                          ? p.memory_bandwidth_GBps * p.memory_efficiency / unit.clock_ghz
                          : std::numeric_limits<double>::infinity();
  const std::size_t n_folds = folds.size();
  // Steps of one GEMM of the batch; the fold before its first is the previous GEMM's last (when there is
  // one), the fold after its last the next GEMM's first.
  auto steps = [&](bool has_prev, bool has_next) {
    double cycles = 0;
    for (std::size_t i = 0; i < n_folds; ++i) {
      const double next = i + 1 < n_folds ? folds[i + 1].load() : (has_next ? folds.front().load() : 0);
      const double prev = i > 0 ? folds[i - 1].store : (has_prev ? folds.back().store : 0);
      cycles += std::max(g.fold_cycles, (next + prev) / beta);
    }
    return cycles;
  };
  double total = folds.front().load() / beta + folds.back().store / beta;
  if (batch == 1)
    total += steps(false, false);
  else
    total += steps(false, true) + static_cast<double>(batch - 2) * steps(true, true) + steps(true, false);
  g.stall_cycles = std::max(0.0, total - g.compute_cycles);
  return g;
}

} // namespace lightsim::units
