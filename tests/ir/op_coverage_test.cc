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
#include "tests/ir/tvm_snippet.h"
#include "tests/test_support.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <iomanip>

namespace lightsim::ir {
namespace {

using test::TvmSnippet;
using Shape = std::vector<std::int64_t>;

struct In {
  Shape shape;
  std::string dtype = "float32";
};

// One op node reading fresh inputs, as a snippet.
struct OpCase {
  std::string func;
  std::vector<In> inputs;
  std::vector<TvmSnippet::Out> outputs;
  OpClass anchor;
  std::vector<OpClass> tail;
  double macs, bytes_in, bytes_out; // hand counts
  nlohmann::json attrs = nlohmann::json::object();
};

struct Kind {
  std::string name; // as the issue lists it
  OpCase unfused, fused;
};

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

const std::vector<Kind>& kinds() {
  using C = OpClass;
  static const std::vector<Kind> k{
      {"nn_log_softmax",
       {"tvmgen_default_fused_nn_log_softmax", {{{2, 10}}}, {{{2, 10}}}, C::LogSoftmax, {}, 0, 80, 80},
       {"tvmgen_default_fused_subtract_nn_log_softmax_1",
        {{{2, 10}}, {{2, 1}}},
        {{{2, 10}}},
        C::LogSoftmax,
        {C::Subtract},
        0,
        88,
        80}},
      {"nn_batch_norm",
       {"tvmgen_default_fused_nn_batch_norm",
        {{{1, 4, 5, 5}}, {{4}}, {{4}}, {{4}}, {{4}}},
        {{{1, 4, 5, 5}}, {{4}}, {{4}}},
        C::BatchNorm,
        {},
        0,
        464,
        432},
       {"tvmgen_default_fused_nn_batch_norm_nn_relu",
        {{{1, 4, 5, 5}}, {{4}}, {{4}}, {{4}}, {{4}}},
        {{{1, 4, 5, 5}}},
        C::BatchNorm,
        {C::Relu},
        0,
        464,
        400}},
      {"nn_layer_norm",
       {"tvmgen_default_fused_nn_layer_norm",
        {{{2, 3, 8}}, {{8}}, {{8}}},
        {{{2, 3, 8}}},
        C::LayerNorm,
        {},
        0,
        256,
        192},
       {"tvmgen_default_fused_add_nn_layer_norm",
        {{{2, 3, 8}}, {{2, 3, 8}}, {{8}}, {{8}}},
        {{{2, 3, 8}}},
        C::LayerNorm,
        {C::Add},
        0,
        448,
        192}},
      // Transposed conv: 16 input pixels x 8 in-channels, each scattering 3 out-channels x 3 x 3 taps.
      {"nn_conv2d_transpose",
       {"tvmgen_default_fused_nn_conv2d_transpose",
        {{{1, 8, 4, 4}}, {{8, 3, 3, 3}}},
        {{{1, 3, 9, 9}}},
        C::Conv2dTranspose,
        {},
        16 * 8 * 27,
        (128 + 216) * 4,
        243 * 4,
        {{"strides", "[2, 2]"}}},
       {"tvmgen_default_fused_nn_conv2d_transpose_add_nn_relu",
        {{{1, 8, 4, 4}}, {{8, 3, 3, 3}}, {{3, 1, 1}}},
        {{{1, 3, 9, 9}}},
        C::Conv2dTranspose,
        {C::Add, C::Relu},
        16 * 8 * 27,
        (128 + 216 + 3) * 4,
        243 * 4}},
      {"nn_pad",
       {"tvmgen_default_fused_nn_pad", {{{1, 3, 4, 4}}}, {{{1, 3, 6, 6}}}, C::Pad, {}, 0, 192, 432},
       // pad 1 then a 3x3 conv: 16 output pixels x 2 out-channels x 27 taps.
       {"tvmgen_default_fused_nn_pad_nn_conv2d",
        {{{1, 3, 4, 4}}, {{2, 3, 3, 3}}},
        {{{1, 2, 4, 4}}},
        C::Conv2d,
        {C::Pad},
        16 * 2 * 27,
        (48 + 54) * 4,
        128}},
      {"clip",
       {"tvmgen_default_fused_clip", {{{1, 8}}}, {{{1, 8}}}, C::Clip, {}, 0, 32, 32},
       {"tvmgen_default_fused_nn_conv2d_add_clip",
        {{{1, 3, 4, 4}}, {{8, 3, 1, 1}}, {{8, 1, 1}}},
        {{{1, 8, 4, 4}}},
        C::Conv2d,
        {C::Add, C::Clip},
        16 * 8 * 3,
        (48 + 24 + 8) * 4,
        512}},
      {"image_resize2d",
       {"tvmgen_default_fused_image_resize2d",
        {{{1, 3, 4, 4}}},
        {{{1, 3, 8, 8}}},
        C::Resize,
        {},
        0,
        192,
        768},
       {"tvmgen_default_fused_image_resize2d_add",
        {{{1, 3, 4, 4}}, {{1, 3, 8, 8}}},
        {{{1, 3, 8, 8}}},
        C::Resize,
        {C::Add},
        0,
        960,
        768}},
      {"max",
       {"tvmgen_default_fused_max", {{{2, 5}}}, {{{2}}}, C::Max, {}, 0, 40, 8},
       {"tvmgen_default_fused_multiply_max", {{{2, 5}}, {{}}}, {{{2}}}, C::Max, {C::Multiply}, 0, 44, 8}},
      {"min",
       {"tvmgen_default_fused_min_1", {{{2, 5}}}, {{{2, 1}}}, C::Max, {}, 0, 40, 8},
       {"tvmgen_default_fused_negative_min", {{{2, 5}}}, {{{2, 1}}}, C::Max, {C::Negative}, 0, 40, 8}},
      {"argmax",
       {"tvmgen_default_fused_argmax", {{{2, 5}}}, {{{2}, "int32"}}, C::Max, {}, 0, 40, 8},
       {"tvmgen_default_fused_argmax_cast", {{{2, 5}}}, {{{2}, "int64"}}, C::Max, {C::Cast}, 0, 40, 16}},
      {"argmin",
       {"tvmgen_default_fused_argmin", {{{2, 5}}}, {{{2}, "int32"}}, C::Max, {}, 0, 40, 8},
       {"tvmgen_default_fused_argmin_cast_2", {{{2, 5}}}, {{{2}, "int64"}}, C::Max, {C::Cast}, 0, 40, 16}},
      {"one_hot",
       {"tvmgen_default_fused_one_hot",
        {{{4}, "int32"}, {{}, "int32"}, {{}, "int32"}},
        {{{4, 10}, "int32"}},
        C::Fill,
        {},
        0,
        24,
        160},
       {"tvmgen_default_fused_one_hot_cast",
        {{{4}, "int32"}, {{}, "int32"}, {{}, "int32"}},
        {{{4, 10}}},
        C::Fill,
        {C::Cast},
        0,
        24,
        160}},
      {"full",
       {"tvmgen_default_fused_full", {{{}}}, {{{2, 3}}}, C::Fill, {}, 0, 4, 24},
       {"tvmgen_default_fused_full_multiply",
        {{{}}, {{2, 3}}},
        {{{2, 3}}},
        C::Fill,
        {C::Multiply},
        0,
        28,
        24}},
      {"zeros",
       {"tvmgen_default_fused_zeros", {}, {{{2, 3}}}, C::Fill, {}, 0, 0, 24},
       {"tvmgen_default_fused_zeros_cast", {}, {{{2, 3}, "int64"}}, C::Fill, {C::Cast}, 0, 0, 48}},
      {"ones",
       {"tvmgen_default_fused_ones", {}, {{{2, 3}}}, C::Fill, {}, 0, 0, 24},
       {"tvmgen_default_fused_ones_cast", {}, {{{2, 3}, "int64"}}, C::Fill, {C::Cast}, 0, 0, 48}},
      {"cumsum",
       {"tvmgen_default_fused_cumsum", {{{2, 5}}}, {{{2, 5}}}, C::Cumsum, {}, 0, 40, 40},
       {"tvmgen_default_fused_cumsum_subtract",
        {{{2, 5}}, {{2, 5}}},
        {{{2, 5}}},
        C::Cumsum,
        {C::Subtract},
        0,
        80,
        40}},
      // PyTorch's exact GELU: x * (0.5 + erf(x * 0.7071) * 0.5), its constants inside the function.
      {"gelu erf chain",
       {"tvmgen_default_fused_erf", {{{2, 8}}}, {{{2, 8}}}, C::Erf, {}, 0, 64, 64},
       {"tvmgen_default_fused_multiply_erf_multiply_add_multiply",
        {{{2, 8}}},
        {{{2, 8}}},
        C::Multiply,
        {C::Erf, C::Multiply, C::Add, C::Multiply},
        0,
        64,
        64}},
      // Dropout is the identity at inference: a view (its mask output is never read).
      {"nn_dropout",
       {"tvmgen_default_fused_nn_dropout", {{{2, 8}}}, {{{2, 8}}, {{2, 8}}}, C::Nop, {}, 0, 64, 128},
       {"tvmgen_default_fused_add_nn_dropout", {{{2, 8}}, {{2, 8}}}, {{{2, 8}}}, C::Add, {}, 0, 128, 64}},
      {"nn_upsampling",
       {"tvmgen_default_fused_nn_upsampling", {{{1, 3, 4, 4}}}, {{{1, 3, 8, 8}}}, C::Resize, {}, 0, 192, 768},
       {"tvmgen_default_fused_nn_upsampling_nn_relu",
        {{{1, 3, 4, 4}}},
        {{{1, 3, 8, 8}}},
        C::Resize,
        {C::Relu},
        0,
        192,
        768}},
      {"nn_depth_to_space",
       {"tvmgen_default_fused_nn_depth_to_space",
        {{{1, 8, 2, 2}}},
        {{{1, 2, 4, 4}}},
        C::Transpose,
        {},
        0,
        128,
        128},
       {"tvmgen_default_fused_nn_depth_to_space_add",
        {{{1, 8, 2, 2}}, {{1, 2, 4, 4}}},
        {{{1, 2, 4, 4}}},
        C::Transpose,
        {C::Add},
        0,
        256,
        128}},
      {"nn_lrn",
       {"tvmgen_default_fused_nn_lrn", {{{1, 8, 4, 4}}}, {{{1, 8, 4, 4}}}, C::Lrn, {}, 0, 512, 512},
       {"tvmgen_default_fused_nn_lrn_nn_relu",
        {{{1, 8, 4, 4}}},
        {{{1, 8, 4, 4}}},
        C::Lrn,
        {C::Relu},
        0,
        512,
        512}},
      {"nn_max_pool2d",
       {"tvmgen_default_fused_nn_max_pool2d",
        {{{1, 2, 4, 4}}},
        {{{1, 2, 2, 2}}},
        C::Pool,
        {},
        0,
        128,
        32,
        {{"pool_size", "[2, 2]"}, {"strides", "[2, 2]"}}},
       {"tvmgen_default_fused_nn_max_pool2d_add",
        {{{1, 2, 4, 4}}, {{1, 2, 2, 2}}},
        {{{1, 2, 2, 2}}},
        C::Pool,
        {C::Add},
        0,
        160,
        32}},
      {"nn_avg_pool3d",
       {"tvmgen_default_fused_nn_avg_pool3d",
        {{{1, 2, 4, 4, 4}}},
        {{{1, 2, 2, 2, 2}}},
        C::Pool,
        {},
        0,
        512,
        64},
       {"tvmgen_default_fused_nn_avg_pool3d_cast",
        {{{1, 2, 4, 4, 4}}},
        {{{1, 2, 2, 2, 2}, "float16"}},
        C::Pool,
        {C::Cast},
        0,
        512,
        32}},
      {"nn_max_pool1d",
       {"tvmgen_default_fused_nn_max_pool1d", {{{1, 2, 8}}}, {{{1, 2, 4}}}, C::Pool, {}, 0, 64, 32},
       {"tvmgen_default_fused_nn_max_pool1d_nn_relu",
        {{{1, 2, 8}}},
        {{{1, 2, 4}}},
        C::Pool,
        {C::Relu},
        0,
        64,
        32}},
      {"nn_global_avg_pool2d",
       {"tvmgen_default_fused_nn_global_avg_pool2d",
        {{{1, 2, 4, 4}}},
        {{{1, 2, 1, 1}}},
        C::Pool,
        {},
        0,
        128,
        8},
       {"tvmgen_default_fused_nn_global_avg_pool2d_squeeze",
        {{{1, 2, 4, 4}}},
        {{{1, 2}}},
        C::Pool,
        {},
        0,
        128,
        8}},
      {"nn_adaptive_avg_pool2d",
       {"tvmgen_default_fused_nn_adaptive_avg_pool2d",
        {{{1, 2, 4, 4}}},
        {{{1, 2, 2, 2}}},
        C::Pool,
        {},
        0,
        128,
        32},
       {"tvmgen_default_fused_nn_adaptive_avg_pool2d_multiply",
        {{{1, 2, 4, 4}}},
        {{{1, 2, 2, 2}}},
        C::Pool,
        {C::Multiply},
        0,
        128,
        32}},
      // What ResNet / MobileNet / BERT / ViT lower to besides the above.
      {"variance",
       {"tvmgen_default_fused_variance",
        {{{2, 3, 8}}, {{2, 3, 1}}},
        {{{2, 3, 1}}},
        C::Variance,
        {},
        0,
        216,
        24},
       {"tvmgen_default_fused_variance_add_rsqrt",
        {{{2, 3, 8}}, {{2, 3, 1}}},
        {{{2, 3, 1}}},
        C::Variance,
        {C::Add, C::Rsqrt},
        0,
        216,
        24}},
      {"broadcast_to",
       {"tvmgen_default_fused_broadcast_to", {{{8, 4}}}, {{{3, 8, 4}}}, C::Copy, {}, 0, 128, 384},
       {"tvmgen_default_fused_transpose_broadcast_to",
        {{{4, 8}}},
        {{{3, 8, 4}}},
        C::Transpose,
        {C::Copy},
        0,
        128,
        384}},
      {"repeat",
       {"tvmgen_default_fused_repeat", {{{1, 1, 8}}}, {{{2, 1, 8}}}, C::Copy, {}, 0, 32, 64},
       {"tvmgen_default_fused_repeat_concatenate",
        {{{1, 1, 8}}, {{2, 3, 8}}},
        {{{2, 4, 8}}},
        C::Copy,
        {C::Concatenate},
        0,
        224,
        256}},
      {"maximum",
       {"tvmgen_default_fused_maximum", {{{2, 4}}, {{}}}, {{{2, 4}}}, C::Maximum, {}, 0, 36, 32},
       {"tvmgen_default_fused_sum_maximum_sqrt",
        {{{2, 4}}, {{}}},
        {{{2, 1}}},
        C::Sum,
        {C::Maximum, C::Sqrt},
        0,
        36,
        8}},
      {"log",
       {"tvmgen_default_fused_log", {{{2, 4}}}, {{{2, 4}}}, C::Transcendental, {}, 0, 32, 32},
       {"tvmgen_default_fused_exp_add_log",
        {{{2, 4}}},
        {{{2, 4}}},
        C::Exp,
        {C::Add, C::Transcendental},
        0,
        32,
        32}},
      {"greater",
       {"tvmgen_default_fused_greater",
        {{{2, 4}}, {{2, 4}}},
        {{{2, 4}, "bool"}},
        C::Elementwise,
        {},
        0,
        64,
        8},
       {"tvmgen_default_fused_greater_where",
        {{{2, 4}}, {{2, 4}}},
        {{{2, 4}}},
        C::Elementwise,
        {C::Where},
        0,
        64,
        32}},
  };
  return k;
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
