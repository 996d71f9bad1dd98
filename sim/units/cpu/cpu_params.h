// The CPU kind's parameters (config keys of a unit with `kind: cpu`): the struct its work counts and its
// module read, and its field table, which declares each key once (ir/hardware/fields.h). The CPU module
// times an op from these alone; absent optional keys leave a plain roofline: no caches, one core per op,
// one op per core.
//
// It is not the CPU's timing: sim/units/cpu/cpu_work.h counts the work, cpu_module.h times it.
#pragma once

#include "ir/hardware/fields.h"
#include "ir/op_class.h"

#include <array>
#include <string>
#include <vector>

namespace lightsim::units {

// One cache level of a CPU as the CPU module sees it: an op whose working set (its operand bytes) fits in
// `capacity_bytes` streams its operands at `bandwidth_GBps` per core; when `shared_GBps` > 0 the cores
// streaming from this level at once share that total (a shared L3), else each core has its own (an L2).
struct CacheLevel {
  std::string name; // "l2", "l3": for messages and traces
  double capacity_bytes = 0;
  double bandwidth_GBps = 0; // per core
  double shared_GBps = 0;    // 0: private to each core
  friend bool operator==(const CacheLevel&, const CacheLevel&) = default;
};

constexpr std::array<double, ir::kNumOpClasses> per_op_class(double value) {
  std::array<double, ir::kNumOpClasses> a{};
  for (double& x : a)
    x = value;
  return a;
}

struct CpuParams {
  int vector_width = 1; // fp32 lanes per SIMD instruction
  bool fma = true;      // a MAC per lane per cycle (else half)
  double dispatch_ns = 0;
  double memory_port_GBps = 0; // the cores' shared port to their memory (all cores together)
  double core_memory_GBps = 0; // what one core streams from memory (0: memory_port_GBps)
  double gemm_efficiency = 1;  // GEMM micro-kernel MAC rate / (clock x vector_width x (fma ? 1 : 0.5))
  // Vector-lane operations per element of a non-GEMM op, per op class (1: one SIMD instruction per
  // vector_width elements; a transcendental takes tens). Calibrated from measurements.
  std::array<double, ir::kNumOpClasses> elementwise_ops = per_op_class(1.0);
  std::vector<CacheLevel> caches; // innermost first, capacities increasing; beyond the last: memory
  int intra_op_threads = 1;       // cores one GEMM may split over (the runtime's team; at most `cores` used)
  int intra_op_min_rows = 1;      // a split gives each core at least this many rows of m (Eigen: 4)
  double intra_op_min_macs = 0;   // ... and at least this many MACs (Eigen: 50000)
  // Rows of m a split hands out in blocks of this many: every core but the last takes
  // floor(m / cores / block) x block rows, the last the rest (Eigen: 4); 0: an even share of m.
  int intra_op_row_block = 0;
  double intra_op_sync_ns = 0; // fork / join of a GEMM split over more than one core
  int concurrent_ops = 0;      // ops the runtime runs at once (inter-op parallelism); 0: one per core
  double dynamic_power_w = 0;  // per busy core, above static (charged x op duration x cores held)
  friend bool operator==(const CpuParams&, const CpuParams&) = default;
};

const ir::FieldTable<CacheLevel>& cache_level_fields();
const ir::FieldTable<CpuParams>& cpu_fields();

} // namespace lightsim::units
