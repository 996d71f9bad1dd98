// Op coverage (issue 15): every op kind TVM's Relay front ends emit for CNNs and encoders that lightsim
// added, each on a hand-written TVM snippet in its unfused form (one op, `tvmgen_default_fused_<op>`) and a
// fused form (the op with other ops in one function name): the class it gets, the fused tail, its output
// shapes, MACs and bytes against hand counts; then that every shipped config can run it and that a fused
// op costs its anchor plus each tail op on the anchor's output. (A whole fused export: fused_export_test.cc.)
#include "ir/cost/cost_model.h"
#include "ir/cost/stacked_graph.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/transfer.h"
#include "ir/tvm/tvm_import.h"
#include "tests/ir/op_coverage_cases.h"
#include "tests/ir/tvm_snippet.h"
#include "tests/test_support.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <iomanip>

namespace lightsim::ir {
namespace {

using test::TvmSnippet;
using test_cases::In;
using test_cases::Kind;
using test_cases::kinds;
using test_cases::OpCase;

Graph import_case(const OpCase& c) {
  TvmSnippet s;
  std::vector<std::pair<int, int>> refs;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    std::string name = "p";
    name += std::to_string(i);
    refs.push_back({s.input(name, c.inputs[i].shape, c.inputs[i].dtype), 0});
  }
  s.op("op", c.func, refs, c.outputs, c.attrs);
  return import_tvm_graph(s.to_json(), "snippet.json").graph;
}

void check(const OpCase& c, const std::string& form) {
  SCOPED_TRACE(form + " " + c.func);
  const Graph g = import_case(c);
  const Op& op = g.ops.back();
  EXPECT_EQ(op_class_name(op.op_class), op_class_name(c.anchor));
  std::vector<std::string_view> tail, want;
  for (OpClass t : op.features.fused_tail)
    tail.push_back(op_class_name(t));
  for (OpClass t : c.tail)
    want.push_back(op_class_name(t));
  EXPECT_EQ(tail, want);
  ASSERT_EQ(op.outputs.size(), c.outputs.size());
  for (std::size_t k = 0; k < op.outputs.size(); ++k)
    EXPECT_EQ(g.tensors[static_cast<std::size_t>(op.outputs[k])].shape, c.outputs[k].shape);
  EXPECT_DOUBLE_EQ(op.features.macs, c.macs);
  EXPECT_DOUBLE_EQ(op.features.bytes_in, c.bytes_in);
  EXPECT_DOUBLE_EQ(op.features.bytes_out, c.bytes_out);
}

TEST(OpCoverage, EveryKindImportsUnfusedAndFused) {
  for (const Kind& k : kinds()) {
    SCOPED_TRACE(k.name);
    check(k.unfused, "unfused");
    check(k.fused, "fused");
  }
}

// configs/*.json: every config the project ships (configs/measured/ holds calibrated ones, not shipped).
const std::vector<std::string>& shipped_configs() {
  static const std::vector<std::string> files = [] {
    std::vector<std::string> f;
    for (const auto& e : std::filesystem::directory_iterator(test::source_path("configs")))
      if (e.path().extension() == ".json") f.push_back(e.path().filename().string());
    std::sort(f.begin(), f.end());
    return f;
  }();
  return files;
}

// Every shipped config has some unit able to run each form (anchor and every tail class).
TEST(OpCoverage, EveryShippedConfigRunsEveryKind) {
  ASSERT_GE(shipped_configs().size(), 5u);
  for (const std::string& file : shipped_configs()) {
    const Hardware hw = load_hardware(test::source_path("configs/" + file));
    const TransferModel transfers(hw);
    for (const Kind& k : kinds())
      for (const OpCase* c : {&k.unfused, &k.fused}) {
        SCOPED_TRACE(file + " " + c->func);
        const Graph g = import_case(*c);
        EXPECT_NO_THROW(build_stacked_graph(g, hw, transfers));
      }
  }
}

// A fused op is one op (issue 13): its anchor's entry on its own features, whose element operations hold
// the tail's (fused_ops). On every unit that runs it, it costs that, and no less than the anchor without
// its tail (not always more: a memory-bound op's tail hides behind its memory time, max(memory, compute)
// in the CPU module, and the configs' entries are fitted to the modules).
TEST(OpCoverage, FusedOpCostsItsAnchorEntryWithItsTail) {
  const Hardware hw = load_hardware(test::source_path("configs/photonic.json"));
  for (const Kind& k : kinds()) {
    const Graph g = import_case(k.fused);
    const Op& op = g.ops.back();
    if (op.features.fused_tail.empty()) continue;
    EXPECT_GT(op.features.fused_ops, 0) << k.fused.func;
    OpFeatures bare = op.features;
    bare.elementwise_ops -= bare.fused_ops;
    bare.fused_ops = 0;
    bare.fused_tail.clear();
    for (int u = 0; u < static_cast<int>(hw.units.size()); ++u) {
      if (!can_run(hw, u, op)) continue;
      SCOPED_TRACE(k.fused.func + " on " + hw.units[static_cast<std::size_t>(u)].name);
      const OpClassModel& entry = hw.model_of(u).classes[static_cast<std::size_t>(op.op_class)];
      const Cost expected = evaluate(entry, op.features, hw.units[u]);
      const Cost got = op_cost(hw, u, op);
      EXPECT_DOUBLE_EQ(got.time_s, expected.time_s);
      EXPECT_DOUBLE_EQ(got.energy_j, expected.energy_j);
      EXPECT_GT(got.time_s, 0);
      const Cost without_tail = evaluate(entry, bare, hw.units[u]);
      // Equal where the tail hides; the two pieces of a fitted roofline entry meet at its turn to ~1e-6.
      EXPECT_GE(got.time_s, without_tail.time_s * (1 - 1e-6))
          << std::setprecision(17) << got.time_s << " vs " << without_tail.time_s;
    }
  }
}

} // namespace
} // namespace lightsim::ir
