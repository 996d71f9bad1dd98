#include "scheduler/sram_residency.h"

#include "ir/cost/cost_model.h"
#include "ir/cost/unit_work.h"

#include <algorithm>

namespace lightsim::sched {

SpillCharge spill_charge(const ir::Hardware& hw, int unit, const ir::Op& op, double model_time_s,
                         const OpSpill& spill) {
  if (spill.spill_memory < 0 || spill.spilled_bytes <= 0 || ir::is_collective(op.op_class)) return {};
  const ir::Unit& u = hw.units[static_cast<std::size_t>(unit)];
  const ir::Memory& home = hw.memories[static_cast<std::size_t>(u.memory)];
  const ir::Memory& to = hw.memories[static_cast<std::size_t>(spill.spill_memory)];
  SpillCharge c;
  c.traffic_bytes = spill.spilled_bytes;
  if (op.op_class == ir::OpClass::Attention && spill.operand_bytes > 0) // FlashAttention's traffic, scaled
    c.traffic_bytes = ir::operand_bytes(u, op.features) * spill.spilled_bytes / spill.operand_bytes;
  double ns = to.latency_ns + c.traffic_bytes / to.bandwidth_GBps;
  // A module times a memory-bound op by its home bytes: those that spilled leave that stream.
  const double home_ns = home.latency_ns + ir::operand_bytes(u, op.features) / home.bandwidth_GBps;
  if (home.bandwidth_GBps > 0 && home_ns >= (1 - 1e-6) * model_time_s * 1e9)
    ns -= c.traffic_bytes / home.bandwidth_GBps;
  c.time_s = std::max(0.0, ns) * 1e-9;
  ir::EnergyBreakdown e = ir::op_energy(hw, unit, op);
  const double before = e.total();
  add_spill_energy(hw, unit, spill.spill_memory, c.traffic_bytes, e);
  c.energy_j = e.total() - before;
  return c;
}

void add_spill_energy(const ir::Hardware& hw, int unit, int spill_memory, double traffic_bytes,
                      ir::EnergyBreakdown& energy) {
  if (spill_memory < 0 || traffic_bytes <= 0) return;
  const ir::Memory& home =
      hw.memories[static_cast<std::size_t>(hw.units[static_cast<std::size_t>(unit)].memory)];
  const ir::Memory& to = hw.memories[static_cast<std::size_t>(spill_memory)];
  double& at_home = energy[ir::memory_component(home.kind)];
  at_home -= std::min(traffic_bytes * home.energy_pj_per_byte * 1e-12, std::max(0.0, at_home));
  energy[ir::memory_component(to.kind)] += traffic_bytes * to.energy_pj_per_byte * 1e-12;
}

bool SramResidency::needed(const ir::Hardware& hw) {
  return std::any_of(hw.memories.begin(), hw.memories.end(),
                     [](const ir::Memory& m) { return m.kind == ir::MemoryKind::Sram && m.spill_to >= 0; });
}

SramResidency::SramResidency(const ir::Graph& graph, const ir::Hardware& hw, std::vector<int> memory_of_op,
                             const LoadPlan& loads)
    : graph_(graph), hw_(hw), memory_of_op_(std::move(memory_of_op)), loads_(loads) {
  const std::size_t nt = graph_.tensors.size();
  inputs_.resize(graph_.ops.size());
  consumers_.resize(nt);
  for (std::size_t op = 0; op < graph_.ops.size(); ++op) {
    std::vector<ir::TensorId>& in = inputs_[op];
    in = graph_.ops[op].inputs;
    std::sort(in.begin(), in.end());
    in.erase(std::unique(in.begin(), in.end()), in.end());
    for (ir::TensorId t : in)
      consumers_[static_cast<std::size_t>(t)].push_back(static_cast<ir::OpId>(op));
  }
  home_.resize(nt);
  copies_.resize(nt);
  for (std::size_t t = 0; t < nt; ++t) {
    Copy& home = home_[t];
    home.memory = memory_of_op_[static_cast<std::size_t>(graph_.tensors[t].producer)];
    for (ir::OpId c : consumers_[t]) {
      const int dst = memory_of_op_[static_cast<std::size_t>(c)];
      if (loads_.fetches(c, static_cast<ir::TensorId>(t)) || dst == home.memory) { // reads the home copy
        ++home.refs;
        continue;
      }
      auto it =
          std::find_if(copies_[t].begin(), copies_[t].end(), [&](const Copy& x) { return x.memory == dst; });
      if (it != copies_[t].end()) {
        ++it->refs;
        continue;
      }
      copies_[t].push_back({dst, -1, 1});
      ++home.refs; // the transfer reads the home copy
    }
  }
  for (ir::TensorId h : graph_.heads)
    ++home_[static_cast<std::size_t>(h)].refs; // graph outputs stay
  used_.assign(hw_.memories.size(), 0.0);
}

double SramResidency::bytes_of(ir::TensorId t) const {
  const ir::Tensor& tensor = graph_.tensors[static_cast<std::size_t>(t)];
  return graph_.ops[static_cast<std::size_t>(tensor.producer)].op_class == ir::OpClass::Nop
             ? 0.0
             : static_cast<double>(tensor.bytes);
}

int SramResidency::allocate(int memory, double bytes) {
  const ir::Memory& m = hw_.memories[static_cast<std::size_t>(memory)];
  double& used = used_[static_cast<std::size_t>(memory)];
  if (m.kind == ir::MemoryKind::Sram && !(used + bytes <= m.capacity_bytes) && m.spill_to >= 0) {
    spilled_bytes_ += bytes;
    return allocate(m.spill_to, bytes);
  }
  used += bytes;
  return memory;
}

void SramResidency::release(const Copy& c, double bytes) {
  if (c.placed >= 0) used_[static_cast<std::size_t>(c.placed)] -= bytes;
}

SramResidency::Copy& SramResidency::copy_read(ir::OpId op, ir::TensorId t) {
  Copy& home = home_[static_cast<std::size_t>(t)];
  const int memory = memory_of_op_[static_cast<std::size_t>(op)];
  if (memory == home.memory) return home;
  std::vector<Copy>& copies = copies_[static_cast<std::size_t>(t)];
  return *std::find_if(copies.begin(), copies.end(), [&](const Copy& x) { return x.memory == memory; });
}

void SramResidency::start_run() {
  for (const ir::Unit& u : hw_.units)
    if (ir::has_load_stage(u)) allocate(u.memory, ir::prefetch_reserved_bytes(u));
  for (std::size_t op = 0; op < graph_.ops.size(); ++op) {
    if (graph_.ops[op].op_class != ir::OpClass::Input) continue;
    for (ir::TensorId t : graph_.ops[op].outputs) {
      Copy& home = home_[static_cast<std::size_t>(t)];
      home.placed =
          allocate(home.memory, static_cast<double>(graph_.tensors[static_cast<std::size_t>(t)].bytes));
    }
    produce(static_cast<ir::OpId>(op));
  }
}

OpSpill SramResidency::start(ir::OpId op) {
  OpSpill s;
  const ir::Op& desc = graph_.ops[static_cast<std::size_t>(op)];
  const bool view = desc.op_class == ir::OpClass::Nop;
  auto account = [&](const Copy& c, double bytes) {
    if (view) return;
    s.operand_bytes += bytes;
    if (c.placed == c.memory) return;
    s.spilled_bytes += bytes;
    s.spill_memory = c.placed;
  };
  for (ir::TensorId t : inputs_[static_cast<std::size_t>(op)]) {
    const auto bytes = static_cast<double>(ir::bytes_read_from(graph_, desc, t));
    if (loads_.fetches(op, t))
      s.operand_bytes += view ? 0.0 : bytes; // in the op's prefetch buffers
    else
      account(copy_read(op, t), bytes);
  }
  for (ir::TensorId t : desc.outputs) {
    Copy& home = home_[static_cast<std::size_t>(t)];
    const double bytes = view ? 0.0 : static_cast<double>(graph_.tensors[static_cast<std::size_t>(t)].bytes);
    home.placed = allocate(home.memory, bytes);
    account(home, bytes);
  }
  return s;
}

void SramResidency::end(ir::OpId op) {
  for (ir::TensorId t : inputs_[static_cast<std::size_t>(op)]) {
    if (loads_.fetches(op, t)) continue; // a loaded weight: its buffers are the load stage's
    Copy& c = copy_read(op, t);
    if (--c.refs > 0) continue;
    const bool home = &c == &home_[static_cast<std::size_t>(t)];
    release(c, home ? bytes_of(t) : static_cast<double>(graph_.tensors[static_cast<std::size_t>(t)].bytes));
  }
  produce(op);
}

void SramResidency::produce(ir::OpId op) {
  for (ir::TensorId t : graph_.ops[static_cast<std::size_t>(op)].outputs) {
    Copy& home = home_[static_cast<std::size_t>(t)];
    if (home.refs == 0) release(home, bytes_of(t));
    for (Copy& c : copies_[static_cast<std::size_t>(t)])
      c.placed = allocate(c.memory, static_cast<double>(graph_.tensors[static_cast<std::size_t>(t)].bytes));
  }
}

void SramResidency::transfer_ended(ir::TensorId t) {
  Copy& home = home_[static_cast<std::size_t>(t)];
  if (--home.refs == 0) release(home, bytes_of(t));
}

} // namespace lightsim::sched
