// The issue's Must show: retrain on generated GPT-2 and Llama-2 prefill graphs at several lengths against
// the SystemC replay, then check on a HELD-OUT length: per (op class, unit) median |error| <= 3% and
// end-to-end makespan |error| <= 2%. The errors before retraining are printed too (whatever they are).
// Also: the loop is deterministic, and the CLI writes a new config (never over its input). With latency
// hiding on (photonic.json), also while the GPU streams most of Llama-2-7B's weights through its load stage.
#include "ir/cost/unit_work.h"
#include "ir/graphgen/builder.h"
#include "ir/graphgen/tvm_lower.h"
#include "ir/graphgen/tvm_writer.h"
#include "ir/tvm/tvm_import.h"
#include "sim/cli/retrain_command.h"
#include "sim/driver/pipeline.h"
#include "sim/io/atomic_file.h"
#include "sim/retrain/retrain_loop.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "tests/test_support.h"

#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <string>
#include <vector>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::fit {
namespace {

RetrainInput generated(const std::string& model, std::int64_t seq,
                       const ir::graphgen::GraphRequest& base = ir::graphgen::GraphRequest{}) {
  ir::graphgen::GraphRequest request = base;
  request.model = ir::graphgen::builtin_model(model);
  request.seq = seq;
  const std::string path = test::temp_dir() + "/" + model + "_prefill_" + std::to_string(seq) + "_" +
                           std::string(ir::dtype_name(request.dtype)) + ".json";
  const ir::graphgen::ExprGraph graph = ir::graphgen::build_model_graph(request);
  const ir::graphgen::TvmGraph lowered = ir::graphgen::lower_to_tvm(graph); // views into `graph`
  write_file_atomically(path, "graph",
                        [&](std::ostream& out) { ir::graphgen::write_tvm_graph(lowered, out); });
  return {model + " prefill " + std::to_string(seq), ir::import_tvm_graph_file(path).graph};
}

const Observer replay = replay_observer();

std::vector<RetrainInput> inputs_at(const std::vector<std::int64_t>& lengths) {
  std::vector<RetrainInput> inputs;
  for (const char* model : {"gpt2", "llama2-7b"})
    for (std::int64_t seq : lengths)
      inputs.push_back(generated(model, seq));
  return inputs;
}

void print(const char* title, const Evaluation& eval, const ir::Hardware& hw) {
  std::cout << title << "\n";
  for (const ClassError& e : eval.classes)
    std::cout << "  " << ir::op_class_name(e.op_class) << " on "
              << hw.units[static_cast<std::size_t>(e.unit)].name << ": " << e.ops << " ops (" << e.contended
              << " overlapped another op on the unit), median |error| " << 100 * e.median_abs
              << "% (ops run alone: " << 100 * e.median_abs_alone << "%), max " << 100 * e.max_abs << "%\n";
  for (const RunCheck& r : eval.runs)
    std::cout << "  " << r.label << ": predicted " << r.predicted_makespan_s << " s, simulated "
              << r.observed_makespan_s << " s, error "
              << 100 * (r.predicted_makespan_s - r.observed_makespan_s) / r.observed_makespan_s << "%\n";
}

// Issue 5's bounds on a held-out length: end-to-end makespan within 2% for every run, and per (op class,
// unit) median |error| of the plan's op times within 3%, overlapping ops included (the fit learns each
// op alone, the list scheduler shares a CPU's memory port among the ops in flight as the replay does).
// Documented exceptions, printed, not hidden: entries with too few samples keep their old coefficients
// (the issue asks for exactly that), so their error is the base config's (take: one op per graph); and an
// entry that learned from samples crowded out of their unit's SRAM (operands spilled to DRAM although they
// would fit: some round put more weights on the 32 MiB photonic card than it holds), or whose ops were
// crowded out here, because memory capacity is in neither the arithmetic model nor the list scheduler yet
// (issue 14; sim/retrain/retrain.h). At most one such row. Rows where ops overlapped are counted, so that
// the test shows it covered them.
TEST(RetrainReplay, HeldOutLengthWithinIssueBounds) {
  const ir::Hardware hw = ir::load_hardware(test::source_path("configs/photonic.json"));
  const std::vector<RetrainInput> train = inputs_at({4, 8, 16, 32});
  const std::vector<RetrainInput> held_out = inputs_at({12});

  const RetrainReport report = retrain(hw, train, replay, {}, &std::cout);
  print_report(std::cout, report);
  const Evaluation before = evaluate(hw, held_out, replay, sched::Objective::Time);
  const Evaluation after = evaluate(report.hardware, held_out, replay, sched::Objective::Time);
  print("held-out length 12, BEFORE retraining (configs/photonic.json):", before, hw);
  print("held-out length 12, AFTER retraining:", after, report.hardware);

  ASSERT_FALSE(report.rounds.empty());
  auto entry = [&](const ClassError& e) -> const EntryFit* {
    const int model = report.hardware.units[static_cast<std::size_t>(e.unit)].model;
    for (const EntryFit& f : report.rounds.back().entries)
      if (f.model == model && f.op_class == e.op_class) return &f;
    return nullptr;
  };
  auto fitted = [&](const ClassError& e) { return entry(e) && entry(e)->status == EntryStatus::Fitted; };
  ASSERT_FALSE(after.classes.empty());
  std::size_t asserted = 0, overlapped_rows = 0, crowded_rows = 0;
  for (const ClassError& e : after.classes) {
    const std::string row = std::string(ir::op_class_name(e.op_class)) + " on " +
                            report.hardware.units[static_cast<std::size_t>(e.unit)].name;
    if (!fitted(e)) {
      std::cout << "not fitted (kept its old coefficients): " << row << ", " << 100 * e.median_abs << "%\n";
      continue;
    }
    if (e.crowded > 0 || entry(e)->crowded > 0) {
      ++crowded_rows;
      std::cout << "crowded out of its memory (" << entry(e)->crowded << " of " << entry(e)->samples
                << " samples, " << e.crowded << " of " << e.ops << " ops here): " << row << ", "
                << 100 * e.median_abs << "%\n";
      continue;
    }
    ++asserted;
    overlapped_rows += e.contended > 0;
    EXPECT_LE(e.median_abs, 0.03) << row << " (" << e.contended << " of " << e.ops << " ops overlapped)";
  }
  EXPECT_GE(asserted, 10u); // the exceptions stay exceptions
  EXPECT_LE(crowded_rows, 1u);
  EXPECT_GE(overlapped_rows, 3u); // CPU ops that shared the memory port are among the asserted rows
  for (const RunCheck& r : after.runs)
    EXPECT_LE(std::abs(r.predicted_makespan_s - r.observed_makespan_s) / r.observed_makespan_s, 0.02)
        << r.label;
}

// The same bounds on the host CPU alone (configs/cpu.json): every GEMM runs on the CPU, those with 8 rows
// or more split over 2-4 cores (they hold that many lanes) while other ops run on the remaining cores and
// share the memory port and the L3 with them.
TEST(RetrainReplay, CpuAloneWithSplitGemmsWithinIssueBounds) {
  const ir::Hardware hw = ir::load_hardware(test::source_path("configs/cpu.json"));
  std::vector<RetrainInput> train, held_out;
  for (std::int64_t seq : {4, 8, 16, 32})
    train.push_back(generated("gpt2", seq));
  held_out.push_back(generated("gpt2", 12));
  const RetrainReport report = retrain(hw, train, replay, {});
  const Evaluation after = evaluate(report.hardware, held_out, replay, sched::Objective::Time);
  print("cpu.json, held-out GPT-2 length 12, AFTER retraining:", after, report.hardware);
  ASSERT_FALSE(report.rounds.empty());
  std::size_t split = 0;
  const ir::Unit& cpu = report.hardware.units[0];
  for (const ir::Op& op : held_out[0].graph.ops)
    split += op.op_class != ir::OpClass::Input && units::cpu_op_cores(cpu, op.features) > 1;
  EXPECT_GT(split, 0u); // the mechanism is exercised
  for (const ClassError& e : after.classes) {
    bool fitted = false;
    for (const EntryFit& f : report.rounds.back().entries)
      fitted |= f.model == cpu.model && f.op_class == e.op_class && f.status == EntryStatus::Fitted;
    if (fitted) {
      EXPECT_LE(e.median_abs, 0.03) << ir::op_class_name(e.op_class);
    }
  }
  for (const RunCheck& r : after.runs)
    EXPECT_LE(std::abs(r.predicted_makespan_s - r.observed_makespan_s) / r.observed_makespan_s, 0.02)
        << r.label;
}

// Issue 5's bounds on the rows of entries the last round fitted (per (op class, unit) median |error| <= 3%)
// and on every run's makespan (<= 2%); returns how many rows it asserted.
std::size_t expect_fitted_rows_within_bounds(const RetrainReport& report, const Evaluation& after) {
  std::size_t asserted = 0;
  for (const ClassError& e : after.classes) {
    const int model = report.hardware.units[static_cast<std::size_t>(e.unit)].model;
    bool fitted = false;
    for (const EntryFit& f : report.rounds.back().entries)
      fitted |= f.model == model && f.op_class == e.op_class && f.status == EntryStatus::Fitted;
    if (!fitted) continue;
    ++asserted;
    EXPECT_LE(e.median_abs, 0.03) << ir::op_class_name(e.op_class) << " on "
                                  << report.hardware.units[static_cast<std::size_t>(e.unit)].name;
  }
  for (const RunCheck& r : after.runs)
    EXPECT_LE(std::abs(r.predicted_makespan_s - r.observed_makespan_s) / r.observed_makespan_s, 0.02)
        << r.label;
  return asserted;
}

// The same bounds with latency hiding at work: photonic.json with its HBM cut to 8 GiB, so that most of
// Llama-2-7B's weights (25 GiB in fp32) stay in host DRAM and the GPU's load stage fetches them, dense by
// dense, into its prefetch buffers over PCIe while it computes.
TEST(RetrainReplay, HeldOutLengthWithinIssueBoundsWhileWeightsStream) {
  ir::Hardware hw = ir::load_hardware(test::source_path("configs/photonic.json"));
  ASSERT_TRUE(hw.latency_hiding);
  const int hbm = hw.find_memory("hbm0"), gpu = hw.find_unit("gpu0");
  hw.memories[hbm].capacity_bytes = 8.0 * 1024 * 1024 * 1024;
  std::vector<RetrainInput> train, held_out;
  for (std::int64_t seq : {4, 8, 16, 32})
    train.push_back(generated("llama2-7b", seq));
  held_out.push_back(generated("llama2-7b", 12));
  const RetrainReport report = retrain(hw, train, replay, {});
  const Evaluation after = evaluate(report.hardware, held_out, replay, sched::Objective::Time);
  print("photonic.json with an 8 GiB HBM, held-out Llama-2-7B length 12, AFTER retraining:", after,
        report.hardware);
  ASSERT_FALSE(report.rounds.empty());
  PipelineOptions options;
  options.graph_path = held_out[0].label;
  const Pipeline plan(options, MachineConfig{report.hardware, {}}, held_out[0].graph);
  EXPECT_GT(plan.schedule().units[gpu].loads, 100u); // the mechanism is exercised
  EXPECT_GT(plan.schedule().units[gpu].load_bytes, 10e9);
  EXPECT_GE(expect_fitted_rows_within_bounds(report, after), 5u);
}

// The same bounds with vLLM's kernels (--fuse vllm) on the A100: Llama-2-7B fp16 with merged projections,
// two layers, whose norms, RoPE and activation are row kernels (waves of access steps, not a stream); the
// fit must keep them apart from the streaming kernels of the same classes.
TEST(RetrainReplay, HeldOutLengthWithinIssueBoundsWithVllmKernels) {
  const ir::Hardware hw = ir::load_hardware(test::source_path("configs/a100.json"));
  const ir::fusion::CompilerConfig vllm{.fuse = ir::fusion::FuseMode::Vllm};
  ir::graphgen::GraphRequest request;
  request.dtype = ir::DType::Float16;
  request.layers = 2;
  request.merge_projections = true;
  auto fused = [&](std::int64_t seq) {
    RetrainInput in = generated("llama2-7b", seq, request);
    in.graph = fuse_for(hw, vllm, std::move(in.graph));
    return in;
  };
  std::vector<RetrainInput> train, held_out;
  for (std::int64_t seq : {32, 128, 512})
    train.push_back(fused(seq));
  held_out.push_back(fused(256));
  std::size_t row_kernels = 0;
  for (const ir::Op& op : held_out[0].graph.ops)
    row_kernels += op.features.row_kernel.rows > 0;
  EXPECT_GE(row_kernels, 2u * 4u); // per layer: two norms, RoPE, the activation
  const RetrainReport report = retrain(hw, train, replay, {});
  const Evaluation after = evaluate(report.hardware, held_out, replay, sched::Objective::Time);
  print("a100.json --fuse vllm, held-out Llama-2-7B fp16 length 256, AFTER retraining:", after,
        report.hardware);
  ASSERT_FALSE(report.rounds.empty());
  EXPECT_GE(expect_fitted_rows_within_bounds(report, after), 4u);
}

TEST(RetrainReplay, TwiceFromSameInputsGivesSameCoefficients) {
  const ir::Hardware hw = ir::load_hardware(test::source_path("configs/photonic.json"));
  const std::vector<RetrainInput> train = inputs_at({4, 8});
  const RetrainReport a = retrain(hw, train, replay);
  const RetrainReport b = retrain(hw, train, replay);
  EXPECT_TRUE(a.hardware.models == b.hardware.models);
  EXPECT_EQ(a.rounds.size(), b.rounds.size());
}

} // namespace
} // namespace lightsim::fit
