#include "scheduler/memory_use.h"

#include "ir/hardware/residency.h"

#include <algorithm>
#include <utility>

namespace lightsim::sched {

std::vector<MemoryUse> memory_use(const FlatGraph& flat, const Schedule& schedule) {
  const ir::StackedGraph& sg = *flat.stacked;
  const ir::Graph& g = sg.graph();
  const ir::Hardware& hw = sg.hardware();
  std::vector<MemoryUse> use(hw.memories.size());
  for (std::size_t m = 0; m < hw.memories.size(); ++m)
    use[m].capacity_bytes = hw.memories[m].capacity_bytes;
  auto memory_of = [&](ir::OpId op) { return hw.units[flat.unit_of(op)].memory; };

  // (time, +bytes at allocation / -bytes at release) per memory: activations, streamed weights.
  using Events = std::vector<std::vector<std::pair<double, double>>>;
  Events events(hw.memories.size()), streamed(hw.memories.size());
  std::vector<bool> head(g.tensors.size(), false);
  for (ir::TensorId t : g.heads)
    head[t] = true;
  std::vector<double> sent_until(g.tensors.size(), 0.0); // the transfers read the home copy until then
  for (const ScheduledTransfer& tr : schedule.transfers)
    sent_until[tr.tensor] = std::max(sent_until[tr.tensor], tr.end_s);
  // When tensor t's last reader in memory m ends (the end of the run for graph outputs).
  auto last_read = [&](ir::TensorId t, int m, double from) {
    double end = head[t] ? schedule.makespan_s : from;
    for (ir::OpId c : g.consumers[t])
      if (memory_of(c) == m) end = std::max(end, schedule.ops[c].end_s);
    return end;
  };
  for (std::size_t p = 0; p < g.ops.size(); ++p) {
    const ir::Op& op = g.ops[p];
    const auto producer = static_cast<ir::OpId>(p);
    const int m = memory_of(producer);
    if (ir::is_resident_input(hw, op)) {
      for (ir::TensorId t : op.outputs)
        (op.is_param ? use[m].resident_weight_bytes : use[m].resident_state_bytes) +=
            static_cast<double>(g.tensors[t].bytes);
      continue;
    }
    if (op.op_class == ir::OpClass::Nop) continue; // a view of its input
    const double start = op.op_class == ir::OpClass::Input ? 0.0 : schedule.ops[p].start_s;
    for (ir::TensorId t : op.outputs) {
      const double end = std::max(last_read(t, m, start), sent_until[t]);
      const auto bytes = static_cast<double>(g.tensors[t].bytes);
      events[m].push_back({start, bytes});
      events[m].push_back({end, -bytes});
    }
  }
  for (const ScheduledTransfer& tr : schedule.transfers) {
    const auto bytes = static_cast<double>(tr.bytes);
    const ir::Op& producer = g.ops[tr.src_op];
    const bool weight = ir::is_resident_input(hw, producer);
    if (weight) use[tr.dst_memory].streamed_weight_bytes += bytes;
    auto& list = (weight ? streamed : events)[tr.dst_memory];
    list.push_back({tr.start_s, bytes});
    // A load's copy sits in its consumer's prefetch buffers until that consumer ends.
    const double end = tr.load ? std::max(tr.end_s, schedule.ops[tr.dst_op].end_s)
                               : last_read(tr.tensor, tr.dst_memory, tr.end_s);
    list.push_back({end, -bytes});
  }
  auto peak = [](std::vector<std::pair<double, double>>& list) {
    std::sort(list.begin(), list.end()); // at equal times releases (negative) come first
    double live = 0, most = 0;
    for (const auto& [time, bytes] : list) {
      live += bytes;
      most = std::max(most, live);
    }
    return most;
  };
  for (std::size_t m = 0; m < use.size(); ++m) {
    use[m].peak_live_bytes = peak(events[m]);
    use[m].peak_streamed_bytes = peak(streamed[m]);
  }
  return use;
}

} // namespace lightsim::sched
