// Latency hiding (issue 13 item 3), each result worked out by hand and checked in both the list scheduler
// (the prediction) and the SystemC replay, which must agree:
//  - the photonic array's weight double-buffering: a GEMM of T weight tiles takes T x (reload + stream)
//    with one weight buffer and one reload + T steps of max(reload, stream) with two (the last tile's step
//    is its stream alone), partial edge tiles included; the arithmetic model's compute_cycles follows;
//  - the load stage (decoupled access/execute): a streamed weight fetched behind an independent op (no
//    stall, all of its load hidden), and one buffer forcing a stall the hand computation predicts, which a
//    second buffer removes; a load larger than one buffer takes two; consecutive loads share a buffer
//    while they fit in it; streamed copies stay within the
//    buffers; a spilled activation fetched while its consumer waits for another input (replay only: the
//    list scheduler models no spills); the trace carries the per-unit and per-op figures.
#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"
#include "ir/hardware/transfer.h"
#include "scheduler/list_scheduler.h"
#include "scheduler/memory_use.h"
#include "sim/hw/kernel.h"
#include "sim/replay/replay.h"
#include "sim/trace/trace_writer.h"
#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"
#include "sim/units/gpu/gpu_module.h"
#include "sim/units/phu/photonic_mac_array.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"
#include "tests/sim/h5_read.h"
#include "tests/sim/sim_fixture.h"
#include "tests/test_support.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <utility>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::sim {
namespace {

using test::GraphBuilder;

// ---- PHU weight double-buffering -------------------------------------------------------------------

ir::Unit phu_unit(int weight_buffers) {
  ir::Unit u = test::sim_machine().units[2]; // 64 x 64, 16 WDM at 10 GHz, 2048 DACs / ADCs at 10 GS/s, 10 ns
  u.as<units::PhuParams>().weight_buffers = weight_buffers;
  u.latency_hiding = true;
  return u;
}

TEST(WeightDoubleBuffering, StreamBoundGemmHidesEveryReloadButTheFirst) {
  // 4096 x 128 by 128 x 128: T = 2 x 2 = 4 tiles. Per tile the optics take ceil(4096 / 16) = 256 cycles
  // = 25.6 ns; DACs 4096 x 64 / 2048 = 128 samples = 12.8 ns, ADCs the same: s = 25.6 ns, r = 10 ns.
  PhotonicMacArray one("stream_one", phu_unit(1)), two("stream_two", phu_unit(2));
  EXPECT_NEAR(one.gemm(4096, 128, 128, 1).busy_ns, 4 * (10 + 25.6), 1e-9); // T (r + s)
  const PhuGemmTiming t = two.gemm(4096, 128, 128, 1);
  EXPECT_NEAR(t.busy_ns, 10 + 4 * 25.6, 1e-9); // r + T max(r, s)
  EXPECT_NEAR(t.hidden_reload_ns, 3 * 10, 1e-9);
  EXPECT_EQ(t.weight_tiles, 4);
}

TEST(WeightDoubleBuffering, PartialEdgeTilesAndReloadBoundSteps) {
  // A converter-bound array (64 DACs, 128 ADCs at 1 GS/s) with a slow reload (800 ns): 1024 x 100 by
  // 100 x 70 has four tiles, n-block by n-block, k-blocks inside: (k 64, n 64), (k 36, n 64), (k 64, n 6),
  // (k 36, n 6). DACs: 1024 x 64 / 64 = 1024 ns, 1024 x 36 / 64 = 576 ns; ADCs: 1024 x 64 / 128 = 512 ns,
  // 1024 x 6 / 128 = 48 ns; optics 6.4 ns: s = 1024, 576, 1024, 576 ns.
  auto unit = [](int buffers) {
    ir::Unit u = phu_unit(buffers);
    u.as<units::PhuParams>().dac = {
        .count = 64, .bit_clock_ghz = 9, .fom_fj_per_step = 0, .bits = {}}; // 1 GS/s at 8 bits
    u.as<units::PhuParams>().adc = {.count = 128, .bit_clock_ghz = 9, .fom_fj_per_step = 0, .bits = {}};
    u.as<units::PhuParams>().weight_reload_ns = 800;
    return u;
  };
  PhotonicMacArray one("edge_one", unit(1)), two("edge_two", unit(2));
  // One buffer: sum (r + s_i) = 4 x 800 + 1024 + 576 + 1024 + 576.
  EXPECT_NEAR(one.gemm(1024, 70, 100, 1).busy_ns, 6400, 1e-9);
  // Two: program tile 1 (800), then each tile streams while the next is programmed: max(1024, 800),
  // max(576, 800), max(1024, 800), and the last tile streams alone (576): 800 + 1024 + 800 + 1024 + 576.
  // (One reload + T x max(reload, stream) would be 800 + 3648 = 4448: it adds a reload after the last tile.)
  EXPECT_NEAR(two.gemm(1024, 70, 100, 1).busy_ns, 4224, 1e-9);
  // Twice the batch: 8 tiles in the same order, one exposed reload, the last tile alone.
  EXPECT_NEAR(two.gemm(1024, 70, 100, 2).busy_ns, 800 + 2 * 3648 - (800 - 576), 1e-9);
  // Latency hiding off: one buffer, whatever the config says.
  ir::Unit off = unit(2);
  off.latency_hiding = false;
  EXPECT_NEAR(PhotonicMacArray("off", off).gemm(1024, 70, 100, 1).busy_ns, 6400, 1e-9);
}

TEST(WeightDoubleBuffering, ArithmeticModelFeatureFollowsTheModule) {
  for (int buffers : {1, 2}) {
    const ir::Unit u = phu_unit(buffers);
    PhotonicMacArray phu(buffers == 1 ? "feature_one" : "feature_two", u);
    ir::OpFeatures f;
    f.gemm_batch = 1;
    f.gemm_m = 16;
    f.gemm_n = 100;
    f.gemm_k = 4000;
    EXPECT_DOUBLE_EQ(ir::feature_value(ir::Feature::ComputeCycles, f, u),
                     phu.gemm(16, 100, 4000, 1).busy_ns * u.clock_ghz);
  }
}

// The PHU of the sim fixture alone, with an arithmetic model that times a GEMM by compute_cycles (the
// unit work, as configs/generate.py derives the PHU's) and an SRAM fast enough that operands cost nothing.
ir::Hardware phu_machine(int weight_buffers) {
  ir::Hardware hw = test::sim_machine();
  hw.memories[2].bandwidth_GBps = 1e6;
  hw.memories[2].latency_ns = 0;
  hw.units[2].cores = 1;
  hw.units[2].as<units::PhuParams>().weight_buffers = weight_buffers;
  hw.units[2].model = 0;
  ir::ModelPiece gemm;
  gemm.time_s.coef[static_cast<std::size_t>(ir::Feature::ComputeCycles)] = 1e-9 / hw.units[2].clock_ghz;
  hw.models[0].name = "phu";
  hw.models[0].classes[static_cast<std::size_t>(ir::OpClass::Dense)].pieces = {gemm};
  hw.placement.inputs_unit = hw.placement.params_unit = 2;
  ir::set_latency_hiding(hw, true);
  return hw;
}

// The placement that puts every op on `unit_of[op]` (inputs: in that unit's memory).
sched::FlatGraph place(const ir::StackedGraph& sg, const std::vector<int>& unit_of) {
  const ir::Hardware& hw = sg.hardware();
  sched::FlatGraph flat;
  flat.stacked = &sg;
  for (ir::OpId op = 0; op < static_cast<ir::OpId>(sg.num_stacks()); ++op) {
    const auto nodes = sg.nodes(op);
    int pick = -1;
    for (std::size_t j = 0; j < nodes.size(); ++j)
      if (hw.units[nodes[j].unit].memory == hw.units[unit_of[op]].memory &&
          (pick < 0 || nodes[j].unit == unit_of[op]))
        pick = static_cast<int>(j);
    EXPECT_GE(pick, 0) << "op " << op;
    flat.choice.push_back(pick);
  }
  return flat;
}

TEST(WeightDoubleBuffering, ListSchedulerAndReplayAgreeWithinTwoPercent) {
  GraphBuilder b;
  const ir::OpId x = b.op(ir::OpClass::Input, {}, {4096, 128});
  const ir::OpId w1 = b.op(ir::OpClass::Input, {}, {128, 128});
  const ir::OpId x2 = b.op(ir::OpClass::Input, {}, {16, 4096});
  const ir::OpId w2 = b.op(ir::OpClass::Input, {}, {64, 4096});
  const ir::OpId d1 = b.op(ir::OpClass::Dense, {b.out(x), b.out(w1)}, {4096, 128});
  const ir::OpId d2 = b.op(ir::OpClass::Dense, {b.out(x2), b.out(w2)}, {16, 64});
  b.g.ops[w1].is_param = b.g.ops[w2].is_param = true;
  b.g.heads = {b.out(d1), b.out(d2)};
  b.g.finalize();
  // d1: stream-bound, 4 tiles of s = 25.6 ns. d2: 16 x 4096 by 4096 x 64: 64 tiles, each streamed in
  // 0.1 ns (one optical cycle; 16 x 64 / 2048 converter samples round up to one at 10 GS/s): reload-bound.
  const double hand[2][2] = {{4 * 35.6, 64 * 10.1},                // one buffer: T (r + s)
                             {10 + 4 * 25.6, 10 + 63 * 10 + 0.1}}; // two: r + ..., the last tile alone
  for (int buffers : {1, 2}) {
    SCOPED_TRACE(buffers);
    const ir::Hardware hw = phu_machine(buffers);
    const ir::TransferModel tm(hw);
    const ir::StackedGraph sg = ir::build_stacked_graph(b.g, hw, tm);
    const sched::FlatGraph flat = place(sg, std::vector<int>(b.g.ops.size(), 2));
    const sched::Schedule predicted = sched::list_schedule(flat);
    const sched::Schedule simulated = replay(flat, b.g, tm, {.predicted = &predicted});
    for (ir::OpId op : {d1, d2}) {
      const double p = predicted.ops[op].end_s - predicted.ops[op].start_s;
      const double s = simulated.ops[op].end_s - simulated.ops[op].start_s;
      EXPECT_NEAR(s, hand[buffers - 1][op == d1 ? 0 : 1] * 1e-9, 1e-12) << "op " << op;
      EXPECT_NEAR(p, s, 0.02 * s) << "op " << op;
    }
    EXPECT_NEAR(predicted.makespan_s, simulated.makespan_s, 0.02 * simulated.makespan_s);
    EXPECT_NEAR(simulated.makespan_s, (hand[buffers - 1][0] + hand[buffers - 1][1]) * 1e-9, 1e-12);
  }
}

// ---- The load stage: prefetching streamed weights ---------------------------------------------------

constexpr double kLoadS =
    (100 + 8192) * 1e-9; // a 64 x 32 fp32 weight over the bus: 100 ns + 8192 B at 1 B/ns

// The sim fixture's GPU with a 100 us launch latency and an HBM fast enough that operands cost ~nothing.
ir::Unit prefetch_gpu() {
  ir::Unit g = test::sim_machine().units[1];
  g.memory = 1;
  g.model = 1;
  g.as<units::GpuParams>().launch_latency_ns = 1e5;
  g.as<units::GpuParams>().memory_bandwidth_GBps = 1e6;
  g.as<units::GpuParams>().memory_latency_ns = 0;
  return g;
}

// The GPU module's own time for `op` with its operands in HBM (sim/hw/gpu.h): the test machine's arithmetic
// model charges exactly that, so that the list scheduler and the replay time every op alike and differ only
// in what the load stages and links do.
double gpu_op_s(const ir::Graph& g, ir::OpId op) {
  static int made = 0;
  fresh_simulation();
  const Gpu gpu(("gpu_timing_" + std::to_string(made++)).c_str(), prefetch_gpu());
  OpWork w;
  w.op = op;
  w.desc = &g.ops[op];
  std::vector<ir::TensorId> inputs = g.ops[op].inputs;
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  for (ir::TensorId t : inputs)
    w.home_bytes += static_cast<double>(ir::bytes_read_from(g, g.ops[op], t));
  for (ir::TensorId t : g.ops[op].outputs)
    w.home_bytes += static_cast<double>(g.tensors[t].bytes);
  return gpu.op_ns(w) * 1e-9;
}

// A host (weights in its DRAM) and a one-stream GPU (inputs in its HBM, prefetch_gpu) joined by a 1 GB/s
// bus with a 100 ns latency. The arithmetic model charges an add add_s and a dense dense_s (gpu_op_s).
ir::Hardware prefetch_machine(int depth, double buffer_bytes, double add_s, double dense_s) {
  ir::Hardware hw;
  hw.name = "prefetch-test";
  hw.source = "prefetch-test.json";
  hw.memories = {
      {.name = "dram0", .kind = ir::MemoryKind::Dram, .capacity_bytes = 1e9, .bandwidth_GBps = 100},
      {.name = "hbm0", .kind = ir::MemoryKind::Hbm, .capacity_bytes = 1e9, .bandwidth_GBps = 1e6}};
  ir::Link bus;
  bus.name = "bus0";
  bus.endpoints = {0, 1};
  bus.bandwidth_GBps = 1;
  bus.latency_ns = 100;
  hw.links = {bus};
  ir::ArithmeticModel host, gpu;
  host.name = "host";
  gpu.name = "gpu";
  for (auto [c, seconds] : {std::pair(ir::OpClass::Add, add_s), std::pair(ir::OpClass::Dense, dense_s)}) {
    ir::ModelPiece p;
    p.time_s.intercept = seconds;
    gpu.classes[static_cast<std::size_t>(c)].pieces = {p};
  }
  hw.models = {host, gpu};
  ir::Unit cpu{
      .name = "cpu0", .kind = &units::cpu_kind(), .cores = 1, .clock_ghz = 3, .memory = 0, .model = 0};
  cpu.params = ir::KindParams(
      units::CpuParams{.vector_width = 16, .fma = true, .dispatch_ns = 0, .memory_port_GBps = 100});
  ir::Unit g = prefetch_gpu();
  g.prefetch = {.depth = depth, .buffer_bytes = buffer_bytes};
  hw.units = {cpu, g};
  hw.placement.inputs_unit = 1; // x in the GPU's HBM
  hw.placement.params_unit = 0; // weights in host DRAM: streamed
  ir::set_latency_hiding(hw, true);
  return hw;
}

struct Planned {
  ir::Hardware hw;
  ir::TransferModel tm;
  ir::StackedGraph sg;
  sched::FlatGraph flat;
  sched::Schedule predicted, simulated;
  Planned(const ir::Graph& g, ir::Hardware hardware)
      : hw(std::move(hardware)), tm(hw), sg(ir::build_stacked_graph(g, hw, tm)) {
    std::vector<int> units(g.ops.size(), 1);
    for (std::size_t op = 0; op < g.ops.size(); ++op)
      if (g.ops[op].is_param) units[op] = 0;
    flat = place(sg, units);
    predicted = sched::list_schedule(flat);
    simulated = replay(flat, g, tm, {.predicted = &predicted});
  }
};

// Both schedules: an op's start within 2% of the expected time (an absolute ns for times near zero).
void expect_start(const Planned& p, ir::OpId op, double seconds) {
  for (const sched::Schedule* s : {&p.predicted, &p.simulated})
    EXPECT_NEAR(s->ops[op].start_s, seconds, 0.02 * seconds + 1e-9)
        << (s == &p.predicted ? "predicted" : "simulated") << ", op " << op;
}
void expect_gpu_loads(const Planned& p, std::size_t loads, double hidden_s, double stall_s) {
  for (const sched::Schedule* s : {&p.predicted, &p.simulated}) {
    SCOPED_TRACE(s == &p.predicted ? "predicted" : "simulated");
    const sched::UnitUsage& gpu = s->units[1];
    EXPECT_EQ(gpu.loads, loads);
    EXPECT_NEAR(gpu.load_hidden_s, hidden_s, 0.02 * hidden_s + 1e-9);
    EXPECT_NEAR(gpu.load_stall_s, stall_s, 0.02 * stall_s + 1e-9);
    EXPECT_EQ(s->units[0].loads, 0u);
  }
}

// x (in HBM) -> a = add(x, x) -> d = dense(a, w): w streams from DRAM while a runs.
TEST(Prefetch, StreamedWeightFetchedBehindAnIndependentOpDoesNotStall) {
  GraphBuilder b;
  const ir::OpId x = b.op(ir::OpClass::Input, {}, {16, 32});
  const ir::OpId w = b.op(ir::OpClass::Input, {}, {64, 32});
  const ir::OpId a = b.op(ir::OpClass::Add, {b.out(x), b.out(x)}, {16, 32});
  const ir::OpId d = b.op(ir::OpClass::Dense, {b.out(a), b.out(w)}, {16, 64});
  b.g.ops[w].is_param = true;
  b.g.heads = {b.out(d)};
  b.g.finalize();
  const double A = gpu_op_s(b.g, a), D = gpu_op_s(b.g, d);
  EXPECT_GT(A, 1e-4); // 100 us of launch and a little kernel
  const Planned p(b.g, prefetch_machine(2, 1 << 20, A, D));
  // The load is issued at t = 0 (a has nothing to load) and arrives at 8.292 us, within a's 100 us.
  for (const sched::Schedule* s : {&p.predicted, &p.simulated}) {
    EXPECT_DOUBLE_EQ(s->ops[d].load_start_s, 0);
    EXPECT_NEAR(s->ops[d].load_end_s, kLoadS, 1e-12);
    EXPECT_EQ(s->ops[d].load_bytes, 8192);
    EXPECT_EQ(s->ops[a].load_bytes, 0);
  }
  expect_start(p, d, A);
  EXPECT_NEAR(p.predicted.makespan_s, A + D, 1e-12);
  expect_gpu_loads(p, 1, kLoadS, 0); // all of it hidden behind a, no stall
  EXPECT_NEAR(p.predicted.makespan_s, p.simulated.makespan_s, 0.02 * p.simulated.makespan_s);
  ASSERT_EQ(p.predicted.transfers.size(), 1u);
  EXPECT_TRUE(p.predicted.transfers[0].load);
  EXPECT_EQ(p.predicted.transfers[0].dst_op, d);
}

// x -> d1 = dense(x, w1) -> d2 = dense(d1, w2) -> d3 = dense(d2, w3), every weight streamed.
struct Chain {
  GraphBuilder b;
  ir::OpId d1, d2, d3;
  Chain() {
    const ir::OpId x = b.op(ir::OpClass::Input, {}, {16, 32});
    std::vector<ir::OpId> w;
    for (int i = 0; i < 3; ++i)
      w.push_back(b.op(ir::OpClass::Input, {}, {32, 32}));
    d1 = b.op(ir::OpClass::Dense, {b.out(x), b.out(w[0])}, {16, 32});
    d2 = b.op(ir::OpClass::Dense, {b.out(d1), b.out(w[1])}, {16, 32});
    d3 = b.op(ir::OpClass::Dense, {b.out(d2), b.out(w[2])}, {16, 32});
    for (ir::OpId id : w)
      b.g.ops[id].is_param = true;
    b.g.heads = {b.out(d3)};
    b.g.finalize();
  }
};
constexpr double kChainLoadS = (100 + 4096) * 1e-9; // a 32 x 32 fp32 weight: 4096 B

TEST(Prefetch, OneBufferForcesAStallThatASecondBufferRemoves) {
  const Chain c;
  // One buffer of one weight (4 KiB): each load waits for the previous dense to end (the buffer is freed
  // then), so every dense stalls for a whole load: d1 at L, d2 at L + T + L, d3 at 3L + 2T (L = 4.196 us,
  // T = gpu_op_s, over 100 us).
  const double L = kChainLoadS, T = gpu_op_s(c.b.g, c.d1);
  EXPECT_EQ(gpu_op_s(c.b.g, c.d2), T);
  const Planned one(c.b.g, prefetch_machine(1, 4096, 0, T));
  expect_start(one, c.d1, L);
  expect_start(one, c.d2, 2 * L + T);
  expect_start(one, c.d3, 3 * L + 2 * T);
  expect_gpu_loads(one, 3, 0, 3 * L); // nothing hidden, each op stalled a whole load
  EXPECT_NEAR(one.predicted.makespan_s, 3 * L + 3 * T, 1e-12);
  EXPECT_NEAR(one.simulated.makespan_s, one.predicted.makespan_s, 0.02 * one.predicted.makespan_s);

  // Two buffers of one weight: w2 loads right after w1 (L..2L), behind d1; w3 once d1 frees its buffer
  // (L + T), behind d2. Only d1 stalls.
  const Planned two(c.b.g, prefetch_machine(2, 4096, 0, T));
  expect_start(two, c.d1, L);
  expect_start(two, c.d2, L + T);
  expect_start(two, c.d3, L + 2 * T);
  expect_gpu_loads(two, 3, 2 * L, L);
  for (const sched::Schedule* s : {&two.predicted, &two.simulated})
    EXPECT_NEAR(s->ops[c.d3].load_start_s, L + T, 0.02 * (L + T)); // issued when d1 ended

  // Two buffers of half a weight each: every load takes both, as with one buffer.
  const Planned halves(c.b.g, prefetch_machine(2, 2048, 0, T));
  expect_start(halves, c.d3, 3 * L + 2 * T);
  expect_gpu_loads(halves, 3, 0, 3 * L);

  // One buffer of three weights (12 KiB): consecutive loads share it, so w2 and w3 load right after w1
  // (L..2L, 2L..3L), behind d1, with no buffer freed; only d1 stalls, as with two buffers of one weight.
  const Planned shared(c.b.g, prefetch_machine(1, 3 * 4096, 0, T));
  expect_start(shared, c.d2, L + T);
  expect_start(shared, c.d3, L + 2 * T);
  expect_gpu_loads(shared, 3, 2 * L, L);
  for (const sched::Schedule* s : {&shared.predicted, &shared.simulated})
    EXPECT_NEAR(s->ops[c.d3].load_start_s, 2 * L, 0.02 * 2 * L); // before any op ended
  // One buffer of 8 KiB: w2 fills the room w1 left; w3 waits until d1 and d2 have both ended.
  const Planned two_in_one(c.b.g, prefetch_machine(1, 2 * 4096, 0, T));
  expect_start(two_in_one, c.d2, L + T);
  expect_start(two_in_one, c.d3, 2 * L + 2 * T);
  expect_gpu_loads(two_in_one, 3, L, 2 * L);
}

TEST(Prefetch, StreamedCopiesStayWithinTheBuffers) {
  const Chain c;
  const double T = gpu_op_s(c.b.g, c.d1);
  const Planned one(c.b.g, prefetch_machine(1, 4096, 0, T));
  // Without latency hiding every weight is sent at t = 0 and all three copies are live at once.
  ir::Hardware off_hw = prefetch_machine(1, 4096, 0, T);
  ir::set_latency_hiding(off_hw, false);
  const Planned off(c.b.g, off_hw);
  const int hbm = 1;
  EXPECT_EQ(sched::memory_use(one.flat, one.predicted)[hbm].peak_streamed_bytes, 4096);
  EXPECT_EQ(sched::memory_use(off.flat, off.predicted)[hbm].peak_streamed_bytes, 3 * 4096);
  EXPECT_EQ(sched::memory_use(one.flat, one.predicted)[hbm].streamed_weight_bytes, 3 * 4096);
  for (const sched::ScheduledTransfer& t : off.predicted.transfers)
    EXPECT_FALSE(t.load);
  EXPECT_EQ(off.predicted.units[1].loads, 0u);
  EXPECT_EQ(off.simulated.units[1].loads, 0u);
}

// The replay alone (the list scheduler models no spills): a spilled activation fetched ahead. On the sim
// fixture's PHU (one array, SRAM spilling to a 100 GB/s, 100 ns DRAM), with 2 prefetch buffers of 64 KiB:
// d1 = dense(x, w1) and d2 = dense(x, w2) (64 x 128 by 128 x 256), then d3 = add(d1, d2). The SRAM is sized
// so that d1's output t1 (64 KiB) spills and nothing else does. t1 is complete when d1 ends while d3 still
// waits for d2: the PHU's load stage fetches t1 from DRAM (100 ns + 65536 B at 100 GB/s = 755.36 ns) while
// d2 runs, and d3 reads it from its buffer at SRAM speed. Without latency hiding d3 reads it from DRAM.
TEST(Prefetch, SpilledActivationFetchedWhileItsConsumerWaitsForAnotherInput) {
  GraphBuilder b;
  const ir::OpId x = b.op(ir::OpClass::Input, {}, {64, 128});
  const ir::OpId w1 = b.op(ir::OpClass::Input, {}, {256, 128});
  const ir::OpId w2 = b.op(ir::OpClass::Input, {}, {256, 128});
  const ir::OpId d1 = b.op(ir::OpClass::Dense, {b.out(x), b.out(w1)}, {64, 256});
  const ir::OpId d2 = b.op(ir::OpClass::Dense, {b.out(x), b.out(w2)}, {64, 256});
  const ir::OpId d3 = b.op(ir::OpClass::Add, {b.out(d1), b.out(d2)}, {64, 256});
  b.g.ops[w1].is_param = b.g.ops[w2].is_param = true;
  b.g.heads = {b.out(d3)};
  b.g.finalize();
  const std::vector<int> on_phu(b.g.ops.size(), 2);
  constexpr double kKiB = 1024;
  // Resident: x 32 KiB, w1 and w2 128 KiB each; 32 KiB of room left when d1 starts.
  auto machine = [&](bool hiding) {
    const double buffers = hiding ? 2 * 64 * kKiB : 0;
    ir::Hardware hw = test::sim_machine(buffers + (32 + 2 * 128 + 32) * kKiB);
    hw.units[2].cores = 1;
    hw.units[2].prefetch = {.depth = 2, .buffer_bytes = 64 * kKiB};
    ir::set_latency_hiding(hw, hiding);
    return hw;
  };
  const ir::Hardware on_hw = machine(true), off_hw = machine(false);
  const ir::TransferModel on_tm(on_hw), off_tm(off_hw);
  ReplayStats on_stats, off_stats;
  const sched::Schedule on = replay_units(b.g, on_phu, on_tm, {}, &on_stats);
  const sched::Schedule off = replay_units(b.g, on_phu, off_tm, {}, &off_stats);
  EXPECT_EQ(on_stats.spilled_bytes, 64 * kKiB); // t1 alone
  EXPECT_EQ(off_stats.spilled_bytes, 64 * kKiB);

  // d1: its 160 KiB of operands in SRAM (5 ns + 163840 B at 2000 GB/s, more than its 8 x 10.4 ns of tiles)
  // and its output written to DRAM (755.36 ns). d2: 224 KiB in SRAM, 119.688 ns.
  const double d1_end = 86.92 + 755.36, fetch = 755.36, d2_time = 5 + 229376 / 2000.0;
  for (const sched::Schedule* s : {&on, &off}) {
    EXPECT_NEAR(s->ops[d1].end_s, d1_end * 1e-9, 1e-12);
    EXPECT_NEAR(s->ops[d2].end_s, (d1_end + d2_time) * 1e-9, 1e-12);
  }
  // On: d3 waits for the fetch, then reads 192 KiB from SRAM (5 + 98.304 ns).
  EXPECT_NEAR(on.ops[d3].load_start_s, d1_end * 1e-9, 1e-12);
  EXPECT_NEAR(on.ops[d3].load_end_s, (d1_end + fetch) * 1e-9, 1e-12);
  EXPECT_EQ(on.ops[d3].load_bytes, 64 * kKiB);
  EXPECT_NEAR(on.ops[d3].start_s, (d1_end + fetch) * 1e-9, 1e-12);
  EXPECT_NEAR(on.ops[d3].end_s, (d1_end + fetch + 5 + 196608 / 2000.0) * 1e-9, 1e-12);
  EXPECT_NEAR(on.units[2].load_hidden_s, d2_time * 1e-9, 1e-12); // behind d2
  EXPECT_NEAR(on.units[2].load_stall_s, (fetch - d2_time) * 1e-9, 1e-12);
  // Off: d3 starts when d2 ends and reads t1 from DRAM as it runs: 5 + 65.536 ns in SRAM + 755.36 ns.
  EXPECT_NEAR(off.ops[d3].start_s, (d1_end + d2_time) * 1e-9, 1e-12);
  EXPECT_NEAR(off.ops[d3].end_s, (d1_end + d2_time + 5 + 65.536 + fetch) * 1e-9, 1e-12);
  EXPECT_EQ(off.ops[d3].load_bytes, 0);
  EXPECT_LT(on.makespan_s, off.makespan_s);
}

TEST(Prefetch, TraceCarriesLoadsPerUnitAndPerOp) {
  const Chain c;
  const Planned two(c.b.g, prefetch_machine(2, 1 << 20, 0, gpu_op_s(c.b.g, c.d1)));
  TraceInputs in;
  in.graph = &c.b.g;
  in.hardware = &two.hw;
  in.predicted = &two.predicted;
  in.simulated = &two.simulated;
  in.hardware_config_json = "{}";
  in.objective = "time";
  const std::string path = test::temp_dir() + "/prefetch.h5";
  write_trace(path, in);
  const H5::H5File file(path, H5F_ACC_RDONLY);
  using test::h5read::column;
  EXPECT_EQ(column<std::int32_t>(file, "units", "prefetch_depth")[1], 2);
  EXPECT_EQ(column<std::uint64_t>(file, "units", "simulated_loads")[1], 3u);
  EXPECT_NEAR(column<double>(file, "units", "predicted_load_stall_s")[1], two.predicted.units[1].load_stall_s,
              1e-15);
  EXPECT_NEAR(column<double>(file, "units", "simulated_load_hidden_s")[1],
              two.simulated.units[1].load_hidden_s, 1e-15);
  EXPECT_EQ(column<std::uint64_t>(file, "ops", "load_bytes")[c.d2], 4096u);
  EXPECT_NEAR(column<double>(file, "ops", "simulated_load_end_s")[c.d2], two.simulated.ops[c.d2].load_end_s,
              1e-15);
  EXPECT_TRUE(std::isnan(column<double>(file, "ops", "predicted_load_start_s")[0])); // x: no load
  const auto load = column<std::uint8_t>(file, "transfers", "load");
  EXPECT_EQ(std::count(load.begin(), load.end(), 1), 3);
}

} // namespace
} // namespace lightsim::sim
