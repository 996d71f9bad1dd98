// Pieces of the hand-made machines and graphs the scheduler's tests work out on paper: a model piece of
// constant time and energy, an accelerator unit, an op with one output tensor.
//
// They are not fixtures: each test builds its own machine and graph from them.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/hardware.h"
#include "sim/units/phu/phu_kind.h"

#include <cstdint>
#include <vector>

namespace lightsim::sched::testing {

inline ir::ModelPiece constant_time(double seconds, double joules) {
  ir::ModelPiece p;
  p.time_s.intercept = seconds;
  p.energy_j[ir::EnergyComponent::Compute].intercept = joules;
  return p;
}

// A photonic accelerator with the kind's default parameters, on `memory`, timed by model `model`.
inline ir::Unit accelerator(const char* name, int memory, int model) {
  ir::Unit acc;
  acc.name = name;
  acc.kind = &units::phu_kind();
  acc.params = units::phu_kind().default_params();
  acc.memory = memory;
  acc.model = model;
  return acc;
}

// Appends op `name` of class c reading `inputs`, with one output of 1000 elements and `bytes` bytes;
// returns that output.
inline ir::TensorId add_op(ir::Graph& g, const char* name, ir::OpClass c, std::vector<ir::TensorId> inputs,
                           std::uint64_t bytes = 4000) {
  ir::Op o;
  o.name = name;
  o.op_class = c;
  o.inputs = std::move(inputs);
  g.ops.push_back(o);
  ir::Tensor t;
  t.shape = {1000};
  t.elements = 1000;
  t.bytes = bytes;
  t.producer = static_cast<ir::OpId>(g.ops.size() - 1);
  g.tensors.push_back(t);
  g.ops.back().outputs = {static_cast<ir::TensorId>(g.tensors.size() - 1)};
  return g.ops.back().outputs[0];
}

} // namespace lightsim::sched::testing
