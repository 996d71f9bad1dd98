// Systolic-array work: a GEMM (or a convolution's implicit GEMM) on a rows x cols array as SCALE-Sim
// (Samajdar et al., "A Systematic Methodology for Characterizing Scalability of DNN Accelerators using
// SCALE-Sim", ISPASS 2020) times it, shared by the array's SystemC module (systolic_module.h) and the
// arithmetic model's systolic features (systolic_kind.cc), so that both count the same cycles and bytes.
//
// Mapping. A GEMM C[M x N] = A[M x K] W[K x N] puts two dimensions on the array and streams the third
// (SCALE-Sim's Sr, Sc and T):
//   ws (weight stationary): Sr = K, Sc = N, T = M      os (output stationary): Sr = M, Sc = N, T = K
//   is (input stationary):  Sr = K, Sc = M, T = N
// Folds. The array covers Sr x Sc in ceil(Sr / R) row folds x ceil(Sc / C) column folds (the last of each
// partial: its PEs idle), run column fold by column fold, row fold inside. One fold takes
//   2R + C + T' - 2 cycles:  R to load the stationary operand (or drain it: os), R + C - 2 for the skewed
// wavefront to fill and drain, T' = ceil(T / MACs per PE per cycle) for the streamed operand (T at one MAC
// per PE per cycle: SCALE-Sim's closed form, its runtime (2R + C + T - 2) ceil(Sr / R) ceil(Sc / C)).
// A batch of B GEMMs runs them one after the other.
//
// Traffic. Each fold needs its tiles of A and W in the ifmap and filter scratchpads and leaves its outputs
// (or partial sums) in the ofmap scratchpad. A tile is fetched from the unit's memory once per fold, except
// where a scratchpad's half holds what later folds reuse: ws and os fetch A's row block only in the first
// column fold when all of A fits; os keeps W's column block across its row folds when it fits; is fetches W's
// row block only in the first column fold when all of W fits. Partial sums (ws, is: the K blocks of one
// column) stay in the ofmap scratchpad when the column's fit, and leave once, at the output's width, after
// the last row fold; otherwise every fold writes them at the accumulators' width and the next reads them
// back. Stalls. The scratchpads are double-buffered: while fold f computes, the memory fetches fold f+1's
// tiles and writes back fold f-1's outputs at beta bytes per cycle (its bandwidth x memory_efficiency /
// clock). So
//   total = load_0 / beta + sum_f max(cycles_f, (load_f+1 + store_f-1) / beta) + store_last / beta,
// and stall_cycles = total - the folds' cycles (the first fill and last drain included).
//
// It is not a cycle-level trace of the PEs: SCALE-Sim's own traces count each access; this counts the same
// folds and tiles in closed form.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "sim/units/systolic/systolic_params.h"

#include <cstdint>

namespace lightsim::units {

struct SystolicMapping {
  std::int64_t sr = 0, sc = 0, t = 0; // SCALE-Sim's spatial rows, spatial columns and temporal dimension
};
SystolicMapping systolic_mapping(Dataflow dataflow, std::int64_t m, std::int64_t n, std::int64_t k);

struct SystolicGemm {
  std::int64_t row_folds = 0, col_folds = 0; // per GEMM of the batch
  std::int64_t folds = 0;                    // batch x row_folds x col_folds
  double fold_cycles = 0;                    // one fold: 2R + C + ceil(T / MACs per PE per cycle) - 2
  double compute_cycles = 0;                 // folds x fold_cycles
  double stall_cycles = 0;                   // waiting for scratchpad fills and drains (total - compute)
  double memory_bytes = 0;                   // read from and written to the unit's memory
  double ifmap_sram_bytes = 0, filter_sram_bytes = 0, ofmap_sram_bytes = 0; // through each scratchpad
  double macs = 0;                                                          // batch x M x N x K
  double total_cycles() const { return compute_cycles + stall_cycles; }
};

// The GEMM of `op` (its GEMM view; zeros without one or when no PE multiplies its dtype) on systolic unit
// `unit`; outputs are written at the op's output width (bytes_out / elements_out).
SystolicGemm systolic_gemm(const ir::Unit& unit, const ir::OpFeatures& op);
// An M x K by K x N GEMM, `batch` times, operands of `operand_bytes` each at `macs_per_pe_per_cycle`, results
// of `output_bytes` each.
SystolicGemm systolic_gemm(const ir::Unit& unit, std::int64_t m, std::int64_t n, std::int64_t k,
                           std::int64_t batch, double operand_bytes, double macs_per_pe_per_cycle,
                           double output_bytes);
// MACs per PE per cycle for the op's GEMM dtype (0: the array cannot multiply it).
double systolic_mac_rate(const ir::Unit& unit, const ir::OpFeatures& op);

// The vector unit: cycles for `ops` element operations.
double systolic_vector_cycles(const ir::Unit& unit, double ops);

} // namespace lightsim::units
