#include "tests/sim/trace_fixture.h"

#include "sim/units/cpu/cpu_kind.h"
#include "sim/units/cpu/cpu_work.h"
#include "sim/units/gpu/gpu_kernel.h"
#include "sim/units/gpu/gpu_kind.h"

#include <string>
#include <vector>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::test {
namespace {

ir::Hardware make_hardware() {
  ir::Hardware hw;
  hw.name = "fixture";
  hw.memories.resize(2);
  hw.memories[0].name = "dram";
  hw.memories[1].name = "hbm";
  hw.units.resize(2);
  hw.units[0].name = "cpu0";
  hw.units[0].kind = &units::cpu_kind();
  hw.units[0].params = units::cpu_kind().default_params();
  hw.units[0].cores = 2;
  hw.units[0].memory = 0;
  hw.units[1].name = "gpu0";
  hw.units[1].kind = &units::gpu_kind();
  hw.units[1].params = units::gpu_kind().default_params();
  hw.units[1].cores = 1;
  hw.units[1].memory = 1;
  hw.links.resize(1);
  hw.links[0].name = "pcie0";
  hw.links[0].kind = ir::LinkKind::Pcie;
  hw.links[0].endpoints = {0, 1};
  hw.links[0].bandwidth_GBps = 16;
  return hw;
}

ir::Op make_op(std::string name, ir::OpClass c, double macs = 0, double bytes_in = 0, double bytes_out = 0) {
  ir::Op op;
  op.name = std::move(name);
  op.op_class = c;
  op.features.macs = macs;
  op.features.bytes_in = bytes_in;
  op.features.bytes_out = bytes_out;
  return op;
}

sched::ScheduledOp at(ir::OpId op, int unit, int lane, double start, double end, double energy = 0) {
  return {op, unit, lane, start, end, energy};
}

} // namespace

TraceFixture make_trace_fixture() {
  TraceFixture f;
  f.hw = make_hardware();
  using ir::OpClass;
  f.graph.ops = {make_op("x", OpClass::Input, 0, 0, 64),
                 make_op("w", OpClass::Input, 0, 0, 4096),
                 make_op("dense0", OpClass::Dense, 1024, 4160, 256),
                 make_op("dense1", OpClass::Dense, 2048, 4352, 256),
                 make_op("add0", OpClass::Add, 0, 512, 256),
                 make_op("relu0", OpClass::Relu, 0, 256, 256),
                 make_op("nop0", OpClass::Nop, 0, 256, 256),
                 make_op("dense2", OpClass::Dense, 4096, 4352, 256)};
  f.graph.ops[1].is_param = true;
  // Tensor i is op i's output; the inputs match the transfers below (x -> dense0, t3 -> add0, t5 -> nop0).
  for (std::size_t i = 0; i < f.graph.ops.size(); ++i) {
    ir::Tensor t;
    t.producer = static_cast<ir::OpId>(i);
    f.graph.tensors.push_back(t);
    f.graph.ops[i].outputs = {static_cast<ir::TensorId>(i)};
  }
  const std::vector<std::vector<ir::TensorId>> inputs = {{}, {}, {0, 1}, {2, 1}, {2, 3}, {4}, {5}, {5, 1}};
  for (std::size_t i = 0; i < inputs.size(); ++i)
    f.graph.ops[i].inputs = inputs[i];

  // Durations (predicted -> simulated), relative error (sim - pred) / sim:
  //   gpu0 dense: op 2: 2 -> 2.5 (+0.2), op 3: 0.625 -> 0.5 (-0.25), op 7: 4 -> 4 (0)
  //   cpu0 add: op 4: 1 -> 2 (+0.5); relu: op 5: 0 -> 0 (0); nop: op 6: 1 -> 0 (unbounded)
  f.predicted.ops = {at(0, 0, -1, 0, 0),          at(1, 1, -1, 0, 0),       at(2, 1, 0, 0, 2, 0.5),
                     at(3, 1, 0, 2, 2.625, 0.25), at(4, 0, 0, 3, 4, 0.125), at(5, 0, 1, 4, 4),
                     at(6, 0, 0, 4, 5),           at(7, 1, 0, 3, 7, 1)};
  f.simulated.ops = {at(0, 0, -1, 0, 0),       at(1, 1, -1, 0, 0),          at(2, 1, 0, 0, 2.5, 0.75),
                     at(3, 1, 0, 2.5, 3, 0.5), at(4, 0, 1, 3.5, 5.5, 0.25), at(5, 0, 0, 5.5, 5.5),
                     at(6, 0, 0, 6, 6),        at(7, 1, 0, 3, 7, 1)};
  // The simulated energies by component (the predicted schedule records none: all `compute`).
  using C = ir::EnergyComponent;
  f.simulated.op_energy.resize(f.graph.ops.size());
  f.simulated.op_energy[2][units::gpu_features().tensor_core] = 0.5;
  f.simulated.op_energy[2][C::Hbm] = 0.25;
  f.simulated.op_energy[3][units::gpu_features().tensor_core] = 0.5;
  f.simulated.op_energy[4][C::Compute] = 0.125;
  f.simulated.op_energy[4][C::Dram] = 0.125;
  f.simulated.op_energy[7][units::gpu_features().tensor_core] = 1;
  f.predicted.makespan_s = 10;
  f.simulated.makespan_s = 12.5;
  f.predicted.energy_j = 3;
  f.simulated.energy_j = 2;

  // Transfers: x (tensor 0) dram -> hbm for dense0; dense1's output (tensor 3) hbm -> dram for add0.
  sched::ScheduledTransfer t0{0, 0, 2, 0, 1, {0}, 64, 0, 0.5, 1e-9};
  sched::ScheduledTransfer t1{3, 3, 4, 1, 0, {0}, 256, 3, 3.25, 4e-9};
  f.predicted.transfers = {t0, t1};
  sched::ScheduledTransfer s0 = t0, s1 = t1, extra = t1;
  s0.end_s = 0.75;
  s1.start_s = 3.3;
  s1.end_s = 3.5;
  extra.tensor = 5; // only in the simulation
  extra.src_op = 5;
  extra.dst_op = 6;
  f.simulated.transfers = {s1, extra, s0}; // a different order: rows are matched by (tensor, dst memory)

  f.predicted.units = {{2, 0.125, 1.0}, {6.625, 1.75, 0.5}};
  f.simulated.units = {{2, 0.25, 1.25}, {7, 2.25, 0.625}};
  f.predicted.link_bytes = {320};
  f.predicted.link_busy_s = {0.75};
  f.simulated.link_bytes = {576};
  f.simulated.link_busy_s = {1.0};
  return f;
}

TraceFixture make_large_fixture(std::size_t n, bool simulated) {
  TraceFixture f;
  f.hw = make_hardware();
  f.graph.ops.reserve(n);
  f.predicted.ops.reserve(n);
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool gpu = i % 2 == 0;
    f.graph.ops.push_back(make_op("tvmgen_default_fused_nn_dense_add_" + std::to_string(i),
                                  gpu ? ir::OpClass::Dense : ir::OpClass::Add, gpu ? 4096.0 * 4096 : 0,
                                  4096.0 * 4 * 2, 4096.0 * 4));
    const double d = gpu ? 1e-6 : 2e-7;
    f.predicted.ops.push_back(at(static_cast<ir::OpId>(i), gpu ? 1 : 0, 0, t, t + d, d * 10));
    t += d;
  }
  f.predicted.makespan_s = t;
  f.predicted.units = {{t / 2, 0, 0}, {t / 2, 0, 0}};
  if (simulated) {
    f.simulated = f.predicted;
    for (sched::ScheduledOp& op : f.simulated.ops)
      op.end_s += 1e-8;
  }
  return f;
}

} // namespace lightsim::test
