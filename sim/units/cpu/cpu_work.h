// CPU work: how much work an op is for a CPU unit, counted the way its module (cpu_module.h) times it, so
// that the arithmetic model's CPU features (cpu_kind.cc) and calibration (sim/profile) count exactly what
// the module counts: SIMD cycles, the cache level an op's working set streams from, the cores a split GEMM
// holds, and the time of an op alone (cpu_alone_ns), which calibration fits.
//
// A GEMM packs its operands, then computes (Eigen's single-thread GEMM: the time adds); other ops stream
// their operands while they compute (the time is the larger). The operands stream at the rate of the
// innermost cache level that holds the op's working set (its operand bytes), else from memory. A GEMM the
// runtime splits over k cores (cpu_op_cores) computes a share of the rows on each (cpu_split_share: the
// busiest core sets the time) and streams its bytes as k flows, each at most the level's per-core rate,
// together at most its shared rate (the memory port for memory).
//
// It is not a timing model of contention: ops sharing a port are timed by the module and the list
// scheduler (through CpuKind's shared ports).
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "sim/units/cpu/cpu_params.h"

namespace lightsim::units {

// The cores a GEMM splits over: min(intra_op_threads, cores), fewer when the rows or MACs per core would
// fall below intra_op_min_rows / intra_op_min_macs; 1 for other ops.
int cpu_op_cores(const ir::Unit& cpu, const ir::OpFeatures& op);
// The share of a GEMM's MACs on its busiest core when split over `cores`: 1 / cores for an even split;
// with intra_op_row_block b, the last core's rows m - (cores - 1) x floor(m / cores / b) x b, over m
// (Eigen: m = 14 on 2 cores is 4 + 10 rows, so 10/14 of the work on one core). 1 when not split.
double cpu_split_share(const ir::Unit& cpu, const ir::OpFeatures& op, int cores);
// Ops the CPU runs at once: concurrent_ops (at most cores; 0: one per core).
int cpu_ops_in_flight(const ir::Unit& cpu);

struct CpuLevel {
  std::size_t index = 0;  // into CpuParams::caches; caches.size() = memory
  double core_GBps = 0;   // what one core streams from it
  double shared_GBps = 0; // what the cores streaming from it at once share; 0: private to each core
};
CpuLevel cpu_level(const ir::Unit& cpu, double working_set_bytes);
// Every level, caches then memory (the module's and the list scheduler's shared ports).
std::vector<CpuLevel> cpu_levels(const ir::Unit& cpu);

struct CpuWork {
  int cores = 1;
  bool gemm = false;         // pack, then compute: memory + compute; else max(compute, memory)
  double compute_cycles = 0; // on the busiest core, before efficiencies: GEMM macs x cpu_split_share /
                             // (vector_width x (fma ? 1 : 0.5)); other ops elementwise_ops / vector_width (x
                             // the class's ops per element)
  double bytes = 0;          // operand bytes: the working set
  CpuLevel level;
  double memory_ns = 0; // the bytes alone on the op's cores: bytes / min(cores x core_GBps, shared_GBps)
};
// The work of `op` on CPU `cpu` with `operand_bytes` to stream.
CpuWork cpu_work(const ir::Unit& cpu, const ir::OpFeatures& op, double operand_bytes);

// Cycles of op's fused tail on one core of `cpu`: fused_ops shared evenly among the tail's classes (one per
// output element per member for an imported fused function; each member's elements for one the fusion pass
// formed), each share at its class's elementwise_ops per element / vector_width. 0 without a tail.
double cpu_tail_cycles(const ir::Unit& cpu, const ir::OpFeatures& op);
// Compute time of op (anchor and fused tail) on each of its cores: GEMM cycles / (clock x gemm_efficiency)
// plus, per element op, its class's elementwise_ops x elements / (vector_width x clock).
double cpu_compute_ns(const ir::Unit& cpu, const ir::Op& op, const CpuWork& work);
// Fixed time of an op: dispatch_ns, plus intra_op_sync_ns when it is split over cores.
double cpu_fixed_ns(const ir::Unit& cpu, const CpuWork& work);
// The op alone on the CPU: fixed + (GEMM ? memory + compute : max(memory, compute)). Nop (a view): 0 work.
double cpu_alone_ns(const ir::Unit& cpu, const ir::Op& op, double operand_bytes);

} // namespace lightsim::units
