#include "sim/replay/replay.h"

#include "sim/hw/kernel.h"
#include "sim/hw/machine.h"
#include "sim/hw/sim_time.h"
#include "sim/replay/dispatcher.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <span>
#include <stdexcept>
#include <string>
#include <systemc>
#include <utility>

namespace lightsim::sim {

using detail::Dispatcher;
using detail::Transfer;

sched::Schedule replay_units(const ir::Graph& graph, const std::vector<int>& unit_of_op,
                             const ir::TransferModel& tm, const ReplayOptions& options, ReplayStats* stats) {
  const ir::Hardware& hw = tm.hardware();
  sched::Schedule out;
  fresh_simulation();
  {
    Dispatcher dispatcher("dispatcher", graph, unit_of_op, tm, options, out);
    Machine machine(hw, dispatcher, dispatcher);
    dispatcher.bind(machine);
    sc_core::sc_start();

    double makespan = 0;
    for (std::size_t op = 0; op < graph.ops.size(); ++op) {
      sched::ScheduledOp& s = out.ops[op];
      if (graph.ops[op].op_class == ir::OpClass::Input) continue;
      if (s.lane < 0 || s.end_s < s.start_s)
        throw std::logic_error("replay: op " + std::to_string(op) + " (" + graph.ops[op].name +
                               ") never ran");
      makespan = std::max(makespan, s.end_s);
    }
    out.transfers.reserve(dispatcher.transfers.size());
    for (const Transfer& tr : dispatcher.transfers) {
      sched::ScheduledTransfer st;
      st.tensor = tr.tensor;
      st.src_op = dispatcher.producer(tr.tensor);
      st.dst_op = tr.first_consumer;
      st.src_memory = tr.route->memories.front();
      st.dst_memory = tr.dst_memory;
      st.links = tr.route->links;
      st.bytes = graph.tensors[tr.tensor].bytes;
      st.start_s = ps_to_s(tr.start_ps);
      st.end_s = ps_to_s(tr.end_ps);
      st.energy_j = tr.energy_j;
      st.load = tr.load;
      makespan = std::max(makespan, st.end_s);
      out.transfers.push_back(std::move(st));
    }
    out.makespan_s = makespan;
    out.units.assign(hw.units.size(), {});
    for (std::size_t op = 0; op < graph.ops.size(); ++op) {
      if (graph.ops[op].op_class == ir::OpClass::Input) continue;
      sched::UnitUsage& u = out.units[unit_of_op[op]];
      u.busy_s += out.ops[op].end_s - out.ops[op].start_s;
      u.dynamic_energy_j += out.ops[op].energy_j;
      out.energy_j += out.ops[op].energy_j;
    }
    for (std::size_t u = 0; u < hw.units.size(); ++u) {
      out.units[u].static_energy_j = hw.units[u].static_power_w * makespan;
      out.energy_j += out.units[u].static_energy_j;
    }
    for (const ir::Memory& m : hw.memories)
      out.energy_j += m.static_power_w * makespan;
    for (const sched::ScheduledTransfer& st : out.transfers)
      out.energy_j += st.energy_j;
    sched::summarise_loads(out, hw);
    dispatcher.collect_collective_sends(out.collective_sends);
    out.link_bytes.resize(hw.links.size());
    out.link_busy_s.resize(hw.links.size());
    for (std::size_t l = 0; l < hw.links.size(); ++l) {
      out.link_bytes[l] = machine.link(static_cast<int>(l)).payload_bytes();
      out.link_busy_s[l] = machine.link(static_cast<int>(l)).busy_s();
    }
    if (stats) {
      stats->ops = 0;
      for (const ir::Op& op : graph.ops)
        stats->ops += op.op_class != ir::OpClass::Input;
      stats->transfers = dispatcher.transfers.size();
      stats->hops = dispatcher.hops;
      stats->spilled_bytes = 0;
      for (std::size_t m = 0; m < hw.memories.size(); ++m)
        if (auto* sram = dynamic_cast<Sram*>(&machine.memory(static_cast<int>(m))))
          stats->spilled_bytes += sram->spilled_bytes();
    }
  }
  return out;
}

sched::Schedule replay(const sched::FlatGraph& flat, const ir::Graph& graph, const ir::TransferModel& tm,
                       const ReplayOptions& options, ReplayStats* stats) {
  std::vector<int> units(graph.ops.size());
  for (std::size_t op = 0; op < units.size(); ++op)
    units[op] = flat.unit_of(static_cast<ir::OpId>(op));
  return replay_units(graph, units, tm, options, stats);
}

sched::Schedule replay(const sched::FlatGraph& flat, const ir::TransferModel& tm,
                       const ReplayOptions& options, ReplayStats* stats) {
  return replay(flat, flat.stacked->graph(), tm, options, stats);
}

} // namespace lightsim::sim
