// lightsim-graph's CNNs and encoders (issue 15): resnet18, resnet50, mobilenet-v2, bert-base, bert-large,
// vit-b16, deit-t/s/b. Read back through lightsim's own importer: MACs against the published figures
// (ResNet-50 4.1 G, ResNet-18 1.8 G, MobileNet-v2 300 M multiply-adds at 224x224) within 1% and against the
// closed forms of BERT and ViT exactly; the Relay op kinds and their counts; batch and dtype; bad parameters;
// every shipped config runs them; and on photonic.json with the energy objective ResNet-50's convolutions
// go to the photonic array exactly where the cost model makes that cheapest.
#include "ir/error.h"
#include "ir/graphgen/builder.h"
#include "ir/hardware/config_override.h"
#include "ir/tvm/tvm_import.h"
#include "scheduler/capacity.h"
#include "scheduler/list_scheduler.h"
#include "scheduler/schedule_search.h"
#include "sim/driver/pipeline.h"
#include "tests/graphgen/graphgen_test_util.h"
#include "tests/test_support.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <optional>

namespace lightsim {
namespace {

using namespace ir::graphgen;

ir::Graph import_model(const std::string& name, std::int64_t seq = 0, std::int64_t batch = 1,
                       ir::DType dtype = ir::DType::Float32, std::optional<std::int64_t> layers = {}) {
  GraphRequest r = test::request(name, Phase::Prefill, seq, batch);
  r.dtype = dtype;
  r.layers = layers;
  return ir::import_tvm_graph(test::generate_json(r), name + ".json").graph;
}

double total_macs(const ir::Graph& g) {
  double macs = 0;
  for (const ir::Op& op : g.ops)
    macs += op.features.macs;
  return macs;
}

std::map<std::string, int> func_counts(const ir::Graph& g) {
  std::map<std::string, int> counts;
  for (const ir::Op& op : g.ops) {
    if (op.op_class == ir::OpClass::Input) continue;
    std::string f = op.func_name;
    if (f != "__nop") { // tvmgen_default_fused_<op>[_<variant>]: the Relay op
      f = f.substr(std::string("tvmgen_default_fused_").size());
      while (!f.empty() && (std::isdigit(static_cast<unsigned char>(f.back())) != 0 || f.back() == '_'))
        f.pop_back();
    }
    ++counts[f];
  }
  return counts;
}

int count_class(const ir::Graph& g, ir::OpClass c) {
  int n = 0;
  for (const ir::Op& op : g.ops)
    n += op.op_class == c;
  return n;
}

// Published multiply-adds at 224x224: torchvision's model table (ResNet-50 4.09 G, ResNet-18 1.81 G,
// MobileNet-v2 0.30 G), He et al. 2016 (ResNet-18 1.8 G FLOPs as multiply-adds; ResNet-50 v1.5 moves the
// stride to the 3x3: 4.1 G), Sandler et al. 2018 (MobileNet-v2 300 M).
TEST(CnnEncoderMacs, CnnsMatchPublishedFigures) {
  const struct {
    const char* model;
    double published;
    int convs;
  } cases[] = {{"resnet50", 4.1e9, 53}, {"resnet18", 1.8e9, 20}, {"mobilenet-v2", 300e6, 52}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model);
    const ir::Graph g = import_model(c.model);
    const double macs = total_macs(g);
    EXPECT_NEAR(macs / c.published, 1.0, 0.01) << macs;
    EXPECT_EQ(count_class(g, ir::OpClass::Conv2d), c.convs);
    EXPECT_EQ(count_class(g, ir::OpClass::Dense), 1);
    EXPECT_DOUBLE_EQ(total_macs(import_model(c.model, 0, 3)), 3 * macs); // batch 3
  }
}

// BERT: per layer Q, K, V, O projections 4 S D^2, scores and context 2 S^2 D, FFN 2 S D F; the pooler D^2.
double bert_closed_form(const ModelSpec& m, double B, double S) {
  const double D = static_cast<double>(m.hidden), F = static_cast<double>(m.ffn),
               L = static_cast<double>(m.layers);
  return B * (L * (4 * S * D * D + 2 * S * S * D + 2 * S * D * F) + D * D);
}

TEST(CnnEncoderMacs, BertMatchesItsClosedForm) {
  const ir::Graph base = import_model("bert-base", 128);
  EXPECT_DOUBLE_EQ(total_macs(base), bert_closed_form(builtin_model("bert-base"), 1, 128));
  EXPECT_NEAR(total_macs(base), 11.174e9, 0.001e9); // 11.17 G multiply-adds at 128 tokens
  EXPECT_DOUBLE_EQ(total_macs(import_model("bert-large", 384, 2)),
                   bert_closed_form(builtin_model("bert-large"), 2, 384));
  // Any length: past the 512 learned positions the table grows with the sequence.
  EXPECT_DOUBLE_EQ(total_macs(import_model("bert-base", 1000, 1, ir::DType::Float32, 2)), [] {
    ModelSpec m = builtin_model("bert-base");
    m.layers = 2;
    return bert_closed_form(m, 1, 1000);
  }());
}

// ViT-B/16: 196 patches of 3 x 16 x 16 embedded (768 x 768 per patch), 197 tokens through 12 layers of
// 4 T D^2 + 2 T^2 D + 2 T D F, and the 1000-class head on the class token.
TEST(CnnEncoderMacs, VitMatchesItsClosedForm) {
  const double D = 768, F = 3072, T = 197;
  const double expected = 196 * 768 * D + 12 * (4 * T * D * D + 2 * T * T * D + 2 * T * D * F) + D * 1000;
  EXPECT_DOUBLE_EQ(total_macs(import_model("vit-b16")), expected);
  EXPECT_NEAR(expected, 17.56e9, 0.01e9); // the 17.6 G multiply-adds usually quoted
  EXPECT_DOUBLE_EQ(total_macs(import_model("vit-b16", 0, 2)), 2 * expected);
}

// DeiT-Ti / S / B: the same closed form at their hidden sizes (MLP 4 x hidden, 197 tokens, 1000 classes);
// DeiT-B is ViT-B/16. Touvron et al. 2021 quote 1.3 / 4.6 / 17.6 G (multiply-adds, as "FLOPs").
TEST(CnnEncoderMacs, DeitMatchesItsClosedForm) {
  const auto closed_form = [](double D) {
    const double T = 197, F = 4 * D;
    return 196 * 768 * D + 12 * (4 * T * D * D + 2 * T * T * D + 2 * T * D * F) + D * 1000;
  };
  EXPECT_DOUBLE_EQ(total_macs(import_model("deit-t")), closed_form(192));
  EXPECT_NEAR(closed_form(192), 1.254e9, 0.001e9);
  EXPECT_DOUBLE_EQ(total_macs(import_model("deit-s")), closed_form(384));
  EXPECT_NEAR(closed_form(384) / 4.6e9, 1.0, 0.01);
  EXPECT_DOUBLE_EQ(total_macs(import_model("deit-b")), total_macs(import_model("vit-b16")));
  EXPECT_EQ(builtin_model("deit-t").heads, 3);
}

// The Relay ops TVM's PyTorch front end leaves at opt_level 0, counted per kind (func_name with the
// variant suffix stripped).
TEST(CnnEncoderStructure, Resnet50OpKinds) {
  const ir::Graph g = import_model("resnet50");
  const std::map<std::string, int> expected{
      {"nn_conv2d", 53},    {"rsqrt", 53},      {"negative", 53},      {"multiply", 159}, // 3 per batch norm
      {"add", 53 * 3 + 16}, {"nn_relu", 49},    {"nn_max_pool2d", 1},  {"nn_adaptive_avg_pool2d", 1},
      {"nn_dense", 1},      {"nn_bias_add", 1}, {"__nop", 53 * 2 + 2}, // expand_dims x2 per BN, flatten
  };
  EXPECT_EQ(func_counts(g), expected);
  // 53 convs, 10 ops per batch norm, 16 residual adds, 49 relus, 2 pools, flatten (2), dense, bias_add.
  EXPECT_EQ(g.num_compute_ops(), 53u + 530 + 16 + 49 + 2 + 2 + 2);
  // The image, per conv its weight and its batch norm's var, eps, gamma, mean, beta; the fc's weight, bias.
  EXPECT_EQ(g.ops.size(), g.num_compute_ops() + 1 + 53 * 6 + 2);
}

TEST(CnnEncoderStructure, MobilenetV2OpKinds) {
  const ir::Graph g = import_model("mobilenet-v2");
  const std::map<std::string, int> counts = func_counts(g);
  EXPECT_EQ(counts.at("nn_conv2d"), 52);
  EXPECT_EQ(counts.at("clip"), 35);               // ReLU6 after every conv but the 17 projections
  EXPECT_EQ(counts.at("add"), 52 * 3 + 10);       // 3 per BN, 10 residuals
  EXPECT_EQ(counts.at("__nop"), 52 * 2 + 17 + 2); // BN expand_dims, 17 depthwise weight reshapes, flatten
  // Depthwise convs: one group per channel, a 9-row GEMM per group.
  int depthwise = 0;
  for (const ir::Op& op : g.ops)
    if (op.op_class == ir::OpClass::Conv2d && op.features.gemm_k == 9 && op.features.gemm_n == 1) ++depthwise;
  EXPECT_EQ(depthwise, 17);
}

TEST(CnnEncoderStructure, BertAndVitOpKinds) {
  const ir::Graph bert = import_model("bert-base", 128);
  const std::map<std::string, int> b = func_counts(bert);
  EXPECT_EQ(b.at("nn_batch_matmul"), 12 * 8); // 6 projections + 2 attention matmuls per layer
  EXPECT_EQ(b.at("nn_dense"), 1);             // the pooler (2-D input)
  EXPECT_EQ(b.at("nn_softmax"), 12);
  EXPECT_EQ(b.at("erf"), 12);
  EXPECT_EQ(b.at("variance"), 25); // 2 layer norms per layer + the embeddings'
  EXPECT_EQ(b.at("take"), 4);      // 3 embeddings, the pooler's first token
  EXPECT_EQ(b.at("broadcast_to"), 12 * 16);
  // Parameters and scalar constants: the mask's 1.0 and finfo.min; 3 tables, the position ids and the
  // embeddings' layer norm (eps, gamma, beta); per layer 6 weights + 6 biases, the 1/sqrt(d) divisor, two
  // layer norms, GELU's 3 scalars; the pooler's index, weight and bias.
  EXPECT_EQ(count_class(bert, ir::OpClass::Input) - 3, 2 + 7 + 12 * 22 + 3);
  const ir::Graph vit = import_model("vit-b16");
  const std::map<std::string, int> v = func_counts(vit);
  EXPECT_EQ(v.at("nn_conv2d"), 1);
  EXPECT_EQ(v.at("nn_batch_matmul"), 12 * 5); // in-projection and the MLP's 2 linears (3-D inputs), 2 bmms
  EXPECT_EQ(v.at("nn_dense"), 12 * 1 + 1);    // the out-projection (2-D input), the head
  EXPECT_EQ(v.at("repeat"), 1);
  EXPECT_EQ(v.at("concatenate"), 1);
}

TEST(CnnEncoderStructure, DtypeAndBatchReachEveryTensor) {
  for (const char* model : {"resnet18", "vit-b16"}) {
    const bool vit = std::string(model) == "vit-b16";
    const ir::Graph g =
        import_model(model, 0, 2, ir::DType::Float16, vit ? std::optional<std::int64_t>(1) : std::nullopt);
    for (const ir::Tensor& t : g.tensors)
      if (t.dtype != ir::DType::Int32 && t.dtype != ir::DType::Int64) {
        EXPECT_EQ(t.dtype, ir::DType::Float16);
      }
    EXPECT_EQ(g.tensors[static_cast<std::size_t>(g.ops[0].outputs[0])].shape,
              (std::vector<std::int64_t>{2, 3, 224, 224}));
  }
  const ir::Graph bert = import_model("bert-base", 64, 4, ir::DType::Float16, 1);
  EXPECT_EQ(bert.ops[0].name, "input_ids");
  EXPECT_EQ(bert.tensors[static_cast<std::size_t>(bert.ops[0].outputs[0])].dtype, ir::DType::Int64);
  EXPECT_EQ(bert.tensors[static_cast<std::size_t>(bert.heads[0])].shape,
            (std::vector<std::int64_t>{4, 64, 768}));
  EXPECT_EQ(bert.tensors[static_cast<std::size_t>(bert.heads[1])].shape, (std::vector<std::int64_t>{4, 768}));
}

template <typename F> void expect_input_error(F f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no InputError (expected '" << needle << "')";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(CnnEncoderParams, BadParametersAreOneLineErrors) {
  expect_input_error([] { build_model_graph(test::request("resnet50", Phase::Prefill, 128)); },
                     "--seq does not apply to resnet50 (a 224x224 image model)");
  expect_input_error([] { build_model_graph(test::request("bert-base", Phase::Decode, 128)); },
                     "bert-base is not a decoder");
  expect_input_error([] { build_model_graph(test::request("bert-base", Phase::Prefill, 0)); },
                     "--seq must be positive");
  expect_input_error(
      [] {
        GraphRequest r = test::request("mobilenet-v2", Phase::Prefill, 0);
        r.layers = 3;
        build_model_graph(r);
      },
      "--layers does not apply to mobilenet-v2");
  expect_input_error([] { build_model_graph(test::request("vit-b16", Phase::Prefill, 0, 0)); }, "--batch");
}

// Every shipped config runs every model (each op has a unit able to run it), for both objectives.
TEST(CnnEncoderPipeline, EveryShippedConfigRunsEveryModel) {
  const std::string dir = test::temp_dir();
  const struct {
    const char* model;
    std::int64_t seq;
    std::optional<std::int64_t> layers;
  } models[] = {{"resnet18", 0, {}},  {"resnet50", 0, {}},   {"mobilenet-v2", 0, {}},
                {"bert-base", 32, 2}, {"bert-large", 16, 1}, {"vit-b16", 0, 1}};
  for (const auto& m : models) {
    GraphRequest r = test::request(m.model, Phase::Prefill, m.seq);
    r.layers = m.layers;
    const std::string path = dir + "/" + m.model + ".json";
    { std::ofstream(path) << test::generate_json_text(r); }
    for (const auto& config : std::filesystem::directory_iterator(test::source_path("configs"))) {
      if (config.path().extension() != ".json") continue; // configs/*.json: the shipped configs
      for (sched::Objective objective : {sched::Objective::Time, sched::Objective::Energy}) {
        SCOPED_TRACE(std::string(m.model) + " on " + config.path().string());
        PipelineOptions options;
        options.hardware_path = config.path().string();
        options.graph_path = path;
        options.objective = objective;
        const Pipeline p(options);
        EXPECT_GT(p.schedule().makespan_s, 0);
      }
    }
  }
}

// ResNet-50 on photonic.json under the energy objective (total energy: static power over the makespan
// included). Its exact step solves a linear surrogate: every op and transfer charged its energy plus the
// machine's static power x its time. Any exact solution puts each convolution on the unit where its own
// surrogate cost plus that of moving its tensors to and from its neighbours' units is lowest (neighbours
// fixed). The test computes that choice for every conv from the cost model and checks the surrogate
// solution's count of convs on the photonic array against it; the final placement (the search on the true
// total energy, from the better of the time and surrogate placements) may move a few more and must not cost
// more energy than the surrogate's. Shipped, the card sits behind PCIe gen4: a conv is cheaper there only
// where its neighbours go too (the card's periphery runs the elementwise ops between convs, and fused,
// a conv carries its bias add and activation), so that no activation crosses PCIe; co-packaged on the
// GPU's HBM (phu0.memory=hbm0: no transfers) more of them are.
struct PhuPlacement {
  int convs = 0, expected = 0, surrogate = 0, placed = 0;
  double surrogate_energy_j = 0, placed_energy_j = 0; // total energy of the two placements' schedules
};

PhuPlacement resnet50_convs_on_phu(const std::vector<std::string>& overrides) {
  const std::string path = test::temp_dir() + "/resnet50.json";
  { std::ofstream(path) << test::generate_json_text(test::request("resnet50", Phase::Prefill, 0)); }
  PipelineOptions options;
  options.hardware_path = test::source_path("configs/photonic.json");
  options.graph_path = path;
  options.objective = sched::Objective::Energy;
  const Pipeline p(options, load_machine_config(options.hardware_path, overrides));
  const ir::StackedGraph& sg = p.stacked();
  const sched::LinearCost surrogate{sched::machine_static_power_w(p.hardware()), 1};
  const sched::FlatGraph exact = sched::solve_with_capacity(
      sg, sched::plan_elimination(sg), {surrogate, sched::Objective::Time}, p.capacity());
  const int phu = p.hardware().find_unit("phu0");
  PhuPlacement r;
  for (std::size_t op = 0; op < p.graph().ops.size(); ++op) {
    if (p.graph().ops[op].op_class != ir::OpClass::Conv2d) continue;
    ++r.convs;
    const auto id = static_cast<ir::OpId>(op);
    const auto nodes = sg.nodes(id);
    int best = -1;
    double best_cost = 0;
    for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
      double c = surrogate(nodes[static_cast<std::size_t>(i)].cost);
      for (std::uint32_t e : sg.in_edges(id)) {
        const ir::StackEdge& edge = sg.edges()[e];
        c += surrogate(sg.edge_cost(edge, exact.choice[static_cast<std::size_t>(edge.src)], i));
      }
      for (std::uint32_t e : sg.out_edges(id)) {
        const ir::StackEdge& edge = sg.edges()[e];
        c += surrogate(sg.edge_cost(edge, i, exact.choice[static_cast<std::size_t>(edge.dst)]));
      }
      if (best < 0 || c < best_cost) best = i, best_cost = c;
    }
    r.expected += nodes[static_cast<std::size_t>(best)].unit == phu;
    r.surrogate += exact.unit_of(id) == phu;
    r.placed += p.flat().unit_of(id) == phu;
  }
  r.surrogate_energy_j = sched::list_schedule(exact).energy_j;
  r.placed_energy_j = p.schedule().energy_j;
  return r;
}

TEST(CnnEncoderPipeline, Resnet50ConvsGoToThePhotonicArrayWhereItIsCheaper) {
  const PhuPlacement shipped = resnet50_convs_on_phu({});
  EXPECT_EQ(shipped.convs, 53);
  EXPECT_EQ(shipped.surrogate, shipped.expected);
  EXPECT_LT(shipped.expected, 53); // some activations' transfers over PCIe outweigh the card's gain
  EXPECT_LE(shipped.placed_energy_j, shipped.surrogate_energy_j * (1 + 1e-12));
  const PhuPlacement copackaged = resnet50_convs_on_phu({"phu0.memory=hbm0"});
  EXPECT_EQ(copackaged.surrogate, copackaged.expected);
  EXPECT_GT(copackaged.expected, shipped.expected); // without PCIe transfers more convs are cheaper there
  EXPECT_GT(copackaged.placed, 0);
  EXPECT_LE(copackaged.placed_energy_j, copackaged.surrogate_energy_j * (1 + 1e-12));
  std::printf(
      "ResNet-50, energy objective, convolutions on the photonic array: %d of 53 behind PCIe (the cost "
      "model: %d), %d co-packaged (the cost model: %d)\n",
      shipped.placed, shipped.expected, copackaged.placed, copackaged.expected);
}

} // namespace
} // namespace lightsim
