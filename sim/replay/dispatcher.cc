#include "sim/replay/dispatcher.h"

#include "ir/cost/collectives.h"
#include "ir/cost/unit_work.h"
#include "sim/hw/sim_time.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lightsim::sim::detail {

Dispatcher::Dispatcher(sc_core::sc_module_name name, const ir::Graph& graph,
                       const std::vector<int>& unit_of_op, const ir::TransferModel& tm,
                       const ReplayOptions& options, sched::Schedule& out)
    : sc_core::sc_module(name), op_done_target("op_done_target"), hop_done_target("hop_done_target"),
      units("units"), links("links"), graph_(graph), hw_(tm.hardware()), tm_(tm), unit_of_(unit_of_op),
      options_(options), out_(out) {
  op_done_target.bind(*this);
  hop_done_target.bind(*this);
  const std::size_t n = graph.ops.size(), nt = graph.tensors.size();
  if (unit_of_op.size() != n) throw std::invalid_argument("replay: unit_of_op has the wrong size");
  op_mem_.resize(n);
  op_lanes_.assign(n, 1);
  out_.ops.assign(n, {});
  out_.op_energy.assign(n, {});
  for (std::size_t op = 0; op < n; ++op) {
    const int u = unit_of_op[op];
    if (u < 0 || static_cast<std::size_t>(u) >= hw_.units.size())
      throw std::invalid_argument("replay: op " + std::to_string(op) + " has no unit");
    const ir::Unit& unit = hw_.units[u];
    op_mem_[op] = unit.memory;
    op_lanes_[op] = unit.kind->op_lanes(unit, graph.ops[op].features);
    out_.ops[op].op = static_cast<ir::OpId>(op);
    out_.ops[op].unit = u;
  }
  add_collective_engines();
  loads_ = sched::plan_loads(graph, hw_, unit_of_op);
  // Producers, distinct inputs per op, consumers per tensor (in op order).
  producer_.assign(nt, -1);
  std::size_t edges = 0;
  for (const ir::Op& o : graph.ops)
    edges += o.inputs.size();
  inputs_.begin.assign(n + 1, 0);
  inputs_.data.reserve(edges);
  std::vector<std::uint32_t> uses(nt + 1, 0);
  for (std::size_t op = 0; op < n; ++op) {
    for (ir::TensorId t : graph.ops[op].outputs)
      producer_[t] = static_cast<ir::OpId>(op);
    const auto first = static_cast<std::ptrdiff_t>(inputs_.data.size());
    inputs_.data.insert(inputs_.data.end(), graph.ops[op].inputs.begin(), graph.ops[op].inputs.end());
    if (graph.ops[op].inputs.size() > 1) {
      std::sort(inputs_.data.begin() + first, inputs_.data.end());
      inputs_.data.erase(std::unique(inputs_.data.begin() + first, inputs_.data.end()), inputs_.data.end());
    }
    for (auto it = inputs_.data.begin() + first; it != inputs_.data.end(); ++it)
      ++uses[*it + 1];
    inputs_.begin[op + 1] = static_cast<std::uint32_t>(inputs_.data.size());
  }
  // Consumers per tensor, in op order (counting sort).
  for (std::size_t t = 0; t < nt; ++t)
    uses[t + 1] += uses[t];
  consumers_.data.resize(inputs_.data.size());
  {
    std::vector<std::uint32_t> fill(uses.begin(), uses.end() - 1);
    for (std::size_t op = 0; op < n; ++op)
      for (ir::TensorId t : inputs_.row(op))
        consumers_.data[fill[t]++] = static_cast<ir::OpId>(op);
  }
  consumers_.begin = std::move(uses);
  // One transfer per (tensor, consumer memory other than the producer's).
  home_.resize(nt);
  xfers_of_.begin.assign(nt + 1, 0);
  for (std::size_t t = 0; t < nt; ++t) {
    if (producer_[t] < 0)
      throw std::invalid_argument("replay: tensor " + std::to_string(t) + " has no producer");
    const int src = op_mem_[producer_[t]];
    home_[t].memory = src;
    for (const ir::OpId c : consumers_.row(t)) {
      const int dst = op_mem_[c];
      if (loads_.fetches(c, static_cast<ir::TensorId>(t))) {
        ++home_[t].refs; // c's load reads the home copy
        continue;
      }
      if (dst == src) {
        ++home_[t].refs;
        continue;
      }
      auto first = xfer_res_.begin() + xfers_of_.begin[t]; // this tensor's transfers so far
      auto it = std::find_if(first, xfer_res_.end(), [dst](const Residency& r) { return r.memory == dst; });
      if (it != xfer_res_.end()) {
        ++it->refs;
        continue;
      }
      xfers_of_.data.push_back(static_cast<std::int32_t>(transfers.size()));
      transfers.push_back({static_cast<ir::TensorId>(t), dst, c, &tm.route(src, dst)});
      xfer_res_.push_back({dst, -1, 1});
      ++home_[t].refs; // the transfer reads the producer's copy
    }
    xfers_of_.begin[t + 1] = static_cast<std::uint32_t>(xfers_of_.data.size());
  }
  for (ir::TensorId h : graph.heads)
    ++home_[h].refs; // graph outputs stay resident
  // Which copy each op reads (rows shaped as inputs_).
  in_res_.begin = inputs_.begin;
  in_res_.data.resize(inputs_.data.size());
  pending_.resize(n);
  for (std::size_t op = 0; op < n; ++op) {
    // The inputs its load fetches come with the load.
    pending_[op] = static_cast<int>(inputs_.row(op).size() - loads_.tensors[op].size());
    for (std::uint32_t i = inputs_.begin[op]; i < inputs_.begin[op + 1]; ++i) {
      const ir::TensorId t = inputs_.data[i];
      std::int32_t r = t;
      if (loads_.fetches(static_cast<ir::OpId>(op), t))
        r = kInBuffer;
      else if (op_mem_[op] != home_[t].memory)
        for (std::int32_t x : xfers_of_.row(t))
          if (transfers[x].dst_memory == op_mem_[op]) r = static_cast<std::int32_t>(nt) + x;
      in_res_.data[i] = r;
    }
  }
  ready_.resize(hw_.units.size());
  free_lanes_.resize(hw_.units.size());
  in_flight_.assign(hw_.units.size(), 0);
  max_in_flight_.resize(hw_.units.size());
  for (std::size_t u = 0; u < hw_.units.size(); ++u) {
    const ir::Unit& unit = hw_.units[u];
    for (int lane = 0; lane < unit.cores; ++lane)
      free_lanes_[u].push(lane);
    max_in_flight_[u] = options_.ops_alone ? 1 : unit.kind->ops_in_flight(unit);
  }
  extra_lanes_.resize(n);
  dirty_.assign(hw_.units.size(), 0);
  init_load_stages();
  SC_METHOD(kickoff);
}

void Dispatcher::bind(Machine& machine) {
  machine_ = &machine;
  for (std::size_t u = 0; u < machine.num_units(); ++u)
    units.bind(machine.unit(static_cast<int>(u)).target);
  for (std::size_t l = 0; l < machine.num_links(); ++l)
    links.bind(machine.link(static_cast<int>(l)).target);
}

void Dispatcher::add_collective_engines() {
  collective_of_.assign(graph_.ops.size(), -1);
  for (std::size_t op = 0; op < graph_.ops.size(); ++op) {
    const ir::Op& o = graph_.ops[op];
    if (!ir::is_collective(o.op_class)) continue;
    const std::string where = graph_.source + ": op " + std::to_string(op) + " '" + o.name + "'";
    ir::CollectiveRequest request = ir::collective_request(hw_, unit_of_[op], o);
    const ir::CollectiveCost chosen = ir::collective_cost(tm_, hw_.collectives, request, where);
    request.algorithm = chosen.algorithm; // the one the model chose (Auto: the cheapest)
    request.protocol = chosen.protocol;
    const std::uint64_t base = kCollectiveToken + (std::uint64_t{collectives_.size()} << 32);
    collective_of_[op] = static_cast<std::int32_t>(collectives_.size());
    collectives_.push_back(std::make_unique<CollectiveEngine>(
        ("collective_" + std::to_string(op)).c_str(), tm_, hw_.collectives, request, where, link_if_, base));
  }
}

void Dispatcher::collect_collective_sends(std::vector<sched::CollectiveSend>& out) const {
  for (std::size_t op = 0; op < collective_of_.size(); ++op)
    if (const std::int32_t c = collective_of_[op]; c >= 0)
      for (const CollectiveSendRecord& r : collectives_[static_cast<std::size_t>(c)]->send_records())
        out.push_back({static_cast<ir::OpId>(op), r.src_memory, r.dst_memory, r.bytes, r.start_s, r.end_s});
}

void Dispatcher::end_of_elaboration() {
  for (int u = 0; u < units.size(); ++u)
    unit_if_.push_back(units[u]);
  for (int l = 0; l < links.size(); ++l)
    link_if_.push_back(links[l]);
}

void Dispatcher::kickoff() {
  reserve_prefetch_buffers();
  for (std::size_t op = 0; op < graph_.ops.size(); ++op) {
    if (graph_.ops[op].op_class != ir::OpClass::Input) continue;
    for (ir::TensorId t : graph_.ops[op].outputs)
      home_[t].placed =
          machine_->memory(home_[t].memory).allocate(static_cast<double>(graph_.tensors[t].bytes));
    produce(static_cast<ir::OpId>(op));
  }
  // Ops with data inputs became ready as those arrived, ops with a load become ready when it arrives.
  for (std::size_t op = 0; op < graph_.ops.size(); ++op)
    if (graph_.ops[op].op_class != ir::OpClass::Input && inputs_.row(op).empty() && !load_pending_[op])
      make_ready(static_cast<ir::OpId>(op));
  for (std::size_t u = 0; u < hw_.units.size(); ++u) {
    pump(static_cast<int>(u));
    request_dispatch(static_cast<int>(u));
  }
}

void Dispatcher::request_dispatch(int unit) {
  if (dirty_[unit]) return;
  dirty_[unit] = 1;
  if (dirty_units_.empty()) update_hook_.request();
  dirty_units_.push_back(unit);
}

void Dispatcher::dispatch_pending() {
  std::sort(dirty_units_.begin(), dirty_units_.end());
  for (int unit : dirty_units_) {
    dirty_[unit] = 0;
    dispatch(unit);
  }
  dirty_units_.clear();
}

void Dispatcher::make_ready(ir::OpId op) {
  const double key = options_.predicted ? options_.predicted->ops[op].start_s : static_cast<double>(op);
  ready_[unit_of_[op]].emplace(key, op);
}

void Dispatcher::dispatch(int unit) {
  auto& ready = ready_[unit];
  auto& lanes = free_lanes_[unit];
  // An op split over k cores waits for k free lanes; the ops behind it wait too (no overtaking).
  while (!ready.empty() && in_flight_[unit] < max_in_flight_[unit] &&
         static_cast<int>(lanes.size()) >= op_lanes_[ready.top().second]) {
    const ir::OpId op = ready.top().second;
    ready.pop();
    const int lane = lanes.top();
    lanes.pop();
    for (int k = 1; k < op_lanes_[op]; ++k) {
      extra_lanes_[op].push_back(lanes.top());
      lanes.pop();
    }
    ++in_flight_[unit];
    start_op(op, lane);
  }
}

void Dispatcher::start_op(ir::OpId op, int lane) {
  const ir::Op& desc = graph_.ops[op];
  out_.ops[op].lane = lane;
  out_.ops[op].start_s = ps_to_s(now_ps());
  OpWork work;
  work.op = op;
  work.lane = lane;
  work.desc = &desc;
  const bool view = desc.op_class == ir::OpClass::Nop;
  auto account = [&](const Residency& r, double bytes) {
    if (view) return;
    if (r.placed == r.memory) {
      work.home_bytes += bytes;
    } else {
      work.spill_bytes += bytes;
      work.spill = &hw_.memories[r.placed];
    }
  };
  const auto ins = inputs_.row(op);
  for (std::size_t k = 0; k < ins.size(); ++k) {
    const auto bytes = static_cast<double>(ir::bytes_read_from(graph_, desc, ins[k]));
    if (in_buffer(op, k))
      work.home_bytes += view ? 0.0 : bytes; // in the op's prefetch buffers, in its memory
    else
      account(residency_of_input(op, k), bytes);
  }
  for (ir::TensorId t : desc.outputs) {
    const double bytes = view ? 0.0 : static_cast<double>(graph_.tensors[t].bytes);
    home_[t].placed = machine_->memory(home_[t].memory).allocate(bytes);
    account(home_[t], bytes);
  }
  out_.ops[op].spilled_bytes = work.spill_bytes;
  if (const std::int32_t c = collective_of_[op]; c >= 0) { // its chunks on the links; the lane waits
    collectives_[static_cast<std::size_t>(c)]->start([this, op, lane](const CollectiveReplay& r) {
      ir::EnergyBreakdown energy;
      energy[ir::EnergyComponent::Link] = r.energy_j;
      op_done(op, lane, energy);
    });
    return;
  }
  unit_if_[unit_of_[op]]->start(work);
}

void Dispatcher::op_done(ir::OpId op, int lane, const ir::EnergyBreakdown& energy) {
  out_.ops[op].end_s = ps_to_s(now_ps());
  out_.ops[op].energy_j = energy.total();
  out_.op_energy[op] = energy;
  const auto ins = inputs_.row(op);
  for (std::size_t k = 0; k < ins.size(); ++k) {
    if (in_res_.data[in_res_.begin[op] + k] == kInBuffer) continue; // a loaded weight: no copy to release
    Residency& r = residency_of_input(op, k);
    if (--r.refs == 0) release(r, ins[k]);
  }
  release_buffers(op);
  produce(op);
  const int unit = unit_of_[op];
  free_lanes_[unit].push(lane);
  for (int extra : extra_lanes_[op])
    free_lanes_[unit].push(extra);
  extra_lanes_[op].clear();
  --in_flight_[unit];
  request_dispatch(unit);
}

void Dispatcher::release(Residency& r, ir::TensorId t) {
  const bool view = graph_.ops[producer_[t]].op_class == ir::OpClass::Nop && &r == &home_[t];
  machine_->memory(r.memory).release(r.placed, view ? 0.0 : static_cast<double>(graph_.tensors[t].bytes));
}

void Dispatcher::produce(ir::OpId op) {
  for (ir::TensorId t : graph_.ops[op].outputs) {
    if (home_[t].refs == 0) release(home_[t], t);
    arrive(t, home_[t]);
    for (std::int32_t x : xfers_of_.row(t)) {
      Transfer& tr = transfers[x];
      xfer_res_[x].placed =
          machine_->memory(tr.dst_memory).allocate(static_cast<double>(graph_.tensors[t].bytes));
      tr.start_ps = now_ps();
      tr.hop = 0;
      send_hop(static_cast<std::uint64_t>(x));
    }
  }
}

void Dispatcher::send_hop(std::uint64_t token) {
  const Transfer& tr = transfers[token];
  const int link = tr.route->links[tr.hop];
  link_if_[link]->send(token, graph_.tensors[tr.tensor].bytes,
                       ir::link_port(hw_.links[link], tr.route->memories[tr.hop]), tr.route->copies[tr.hop]);
  ++hops;
}

void Dispatcher::hop_done(std::uint64_t token, double energy_j) {
  if (token & kCollectiveToken) {
    collectives_[static_cast<std::size_t>((token - kCollectiveToken) >> 32)]->hop_done(token, energy_j);
    return;
  }
  Transfer& tr = transfers[token];
  tr.energy_j += energy_j;
  if (++tr.hop < tr.route->links.size()) {
    send_hop(token);
    return;
  }
  tr.end_ps = now_ps();
  if (--home_[tr.tensor].refs == 0) release(home_[tr.tensor], tr.tensor);
  if (tr.load) {
    send_load(tr.first_consumer);
    return;
  }
  arrive(tr.tensor, xfer_res_[token]);
}

void Dispatcher::arrive(ir::TensorId t, const Residency& copy) {
  const int memory = copy.memory;
  const bool spilled = copy.placed >= 0 && copy.placed != copy.memory;
  for (ir::OpId c : consumers_.row(t)) {
    if (op_mem_[c] != memory || loads_.fetches(c, t)) continue;
    if (--pending_[c] > 0) {
      if (spilled) request_spill_fetch(c, t);
      continue;
    }
    out_.ops[c].inputs_ready_s = ps_to_s(now_ps());
    if (!ready_to_issue(c)) continue; // its load or a spill fetch is still on the way
    make_ready(c);
    request_dispatch(unit_of_[c]);
  }
}

} // namespace lightsim::sim::detail
