#include "sim/trace/chrome_trace.h"

#include "ir/cost/device_plan.h"
#include "sim/io/atomic_file.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

namespace lightsim {
namespace {

using nlohmann::json;

constexpr double kMicrosecondsPerSecond = 1e6;

// Process ids: units first (1..U), then links (U+1..U+L). Thread ids are lane + 1 (0 is avoided because
// some viewers treat it as "no thread").
int unit_pid(int unit) {
  return unit + 1;
}
int link_pid(const ir::Hardware& hw, int link) {
  return static_cast<int>(hw.units.size()) + link + 1;
}
int lane_tid(int lane) {
  return lane + 1;
}
constexpr int kLinkTid = 1;

std::string lane_name(const ir::Unit& unit, int lane) {
  return std::string(unit.kind->lane_noun()) + " " + std::to_string(lane);
}

class EventWriter {
public:
  explicit EventWriter(std::ostream& out) : out_(out) { out_ << "{\"traceEvents\":[\n"; }

  void add(const json& event) {
    out_ << (first_ ? "" : ",\n") << event.dump();
    first_ = false;
  }

  void metadata(const char* name, int pid, int tid, const json& args) {
    add({{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", args}});
  }

  void finish(const json& other) {
    out_ << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":" << other.dump() << "}\n";
  }

private:
  std::ostream& out_;
  bool first_ = true;
};

double us(double seconds) {
  return seconds * kMicrosecondsPerSecond;
}

void write_metadata(EventWriter& w, const ir::Hardware& hw) {
  for (std::size_t u = 0; u < hw.units.size(); ++u) {
    const ir::Unit& unit = hw.units[u];
    const int pid = unit_pid(static_cast<int>(u));
    w.metadata("process_name", pid, 0, {{"name", unit.name + " (" + std::string(unit.kind_name()) + ")"}});
    w.metadata("process_sort_index", pid, 0, {{"sort_index", pid}});
    for (int lane = 0; lane < unit.cores; ++lane) {
      w.metadata("thread_name", pid, lane_tid(lane), {{"name", lane_name(unit, lane)}});
      w.metadata("thread_sort_index", pid, lane_tid(lane), {{"sort_index", lane}});
    }
  }
  for (std::size_t l = 0; l < hw.links.size(); ++l) {
    const ir::Link& link = hw.links[l];
    const int pid = link_pid(hw, static_cast<int>(l));
    w.metadata("process_name", pid, 0,
               {{"name", "link " + link.name + " (" + std::string(ir::link_kind_name(link.kind)) + ")"}});
    w.metadata("process_sort_index", pid, 0, {{"sort_index", pid}});
    w.metadata("thread_name", pid, kLinkTid, {{"name", "transfers"}});
  }
}

// Each op on its unit's lane, and again on the lanes of the units that run the other shards of its stage
// at once (a parallel plan's peers, ir/cost/device_plan.h), with args.mirrors naming the device.
void write_ops(EventWriter& w, const sched::Schedule& s, const ir::Graph& g, const ir::Hardware& hw) {
  const ir::DevicePlan plan = ir::device_plan(g, hw);
  std::vector<std::vector<int>> peers(hw.units.size());
  for (std::size_t u = 0; u < hw.units.size(); ++u)
    if (const int device = plan.mirrored_device(static_cast<int>(u)); device >= 0)
      peers[static_cast<std::size_t>(device)].push_back(static_cast<int>(u));
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const sched::ScheduledOp& op = s.ops[i];
    if (op.lane < 0) continue; // resident input or weight
    const ir::Op& o = g.ops[i];
    json event = {{"ph", "X"},
                  {"name", o.name},
                  {"cat", std::string(ir::op_class_name(o.op_class))},
                  {"pid", unit_pid(op.unit)},
                  {"tid", lane_tid(op.lane)},
                  {"ts", us(op.start_s)},
                  {"dur", us(op.end_s - op.start_s)},
                  {"args",
                   {{"op", i},
                    {"unit", hw.units[static_cast<std::size_t>(op.unit)].name},
                    {"func_name", o.func_name},
                    {"macs", o.features.macs},
                    {"bytes_in", o.features.bytes_in},
                    {"bytes_out", o.features.bytes_out},
                    {"energy_j", op.energy_j}}}};
    w.add(event);
    for (int peer : peers[static_cast<std::size_t>(op.unit)]) {
      event["pid"] = unit_pid(peer);
      event["args"]["unit"] = hw.units[static_cast<std::size_t>(peer)].name;
      event["args"]["mirrors"] = hw.units[static_cast<std::size_t>(op.unit)].name;
      w.add(event);
    }
  }
}

// A slice per hop of each transfer and a flow from producer through the links to the consumer.
void write_transfers(EventWriter& w, const sched::Schedule& s, const ir::Graph& g, const ir::Hardware& hw) {
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const sched::ScheduledTransfer& t = s.transfers[i];
    const std::size_t flow_id = i + 1;
    const std::string name =
        "tensor " + std::to_string(t.tensor) + " of " + g.ops[static_cast<std::size_t>(t.src_op)].name;
    const json flow_base = {{"name", "transfer"}, {"cat", "transfer"}, {"id", flow_id}};
    const sched::ScheduledOp& src = s.ops[static_cast<std::size_t>(t.src_op)];
    const bool src_has_slice = src.lane >= 0;
    if (src_has_slice) {
      json e = flow_base;
      e.update(
          {{"ph", "s"}, {"pid", unit_pid(src.unit)}, {"tid", lane_tid(src.lane)}, {"ts", us(src.start_s)}});
      w.add(e);
    }
    const bool hops_known = t.hop_start_s.size() == t.links.size() && t.hop_end_s.size() == t.links.size();
    for (std::size_t h = 0; h < t.links.size(); ++h) {
      const int link = t.links[h];
      const double start = hops_known ? t.hop_start_s[h] : t.start_s;
      const double end = hops_known ? t.hop_end_s[h] : t.end_s;
      const int pid = link_pid(hw, link);
      w.add({{"ph", "X"},
             {"name", name},
             {"cat", "transfer"},
             {"pid", pid},
             {"tid", kLinkTid},
             {"ts", us(start)},
             {"dur", us(end - start)},
             {"args",
              {{"transfer", i},
               {"bytes", t.bytes},
               {"hop", h},
               {"from", hw.memories[static_cast<std::size_t>(t.src_memory)].name},
               {"to", hw.memories[static_cast<std::size_t>(t.dst_memory)].name},
               {"src_op", g.ops[static_cast<std::size_t>(t.src_op)].name},
               {"dst_op", g.ops[static_cast<std::size_t>(t.dst_op)].name},
               {"energy_j", t.energy_j}}}});
      json e = flow_base;
      e.update({{"ph", (h == 0 && !src_has_slice) ? "s" : "t"},
                {"pid", pid},
                {"tid", kLinkTid},
                {"ts", us(start)}});
      w.add(e);
    }
    const sched::ScheduledOp& dst = s.ops[static_cast<std::size_t>(t.dst_op)];
    if (dst.lane >= 0 && (src_has_slice || !t.links.empty())) {
      json e = flow_base;
      e.update({{"ph", "f"},
                {"bp", "e"},
                {"pid", unit_pid(dst.unit)},
                {"tid", lane_tid(dst.lane)},
                {"ts", us(dst.start_s)}});
      w.add(e);
    }
  }
}

} // namespace

void write_chrome_trace(std::ostream& out, const sched::Schedule& schedule, const ir::Graph& graph,
                        const ir::Hardware& hw) {
  EventWriter w(out);
  write_metadata(w, hw);
  write_ops(w, schedule, graph, hw);
  write_transfers(w, schedule, graph, hw);
  w.finish({{"graph", graph.source},
            {"hardware", hw.source},
            {"machine", hw.name},
            {"makespan_s", schedule.makespan_s},
            {"energy_j", schedule.energy_j}});
}

void write_chrome_trace_file(const std::string& path, const sched::Schedule& schedule, const ir::Graph& graph,
                             const ir::Hardware& hw) {
  write_file_atomically(path, "Chrome trace",
                        [&](std::ostream& out) { write_chrome_trace(out, schedule, graph, hw); });
}

} // namespace lightsim
