#include "sim/trace/machine_tables.h"

#include "ir/cost/device_plan.h"

#include <limits>
#include <string>
#include <vector>

namespace lightsim::sim {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
} // namespace

using h5::Column;
using h5::ColumnType;
using h5::RowCursor;

void write_units(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  const ir::Hardware& hw = *in.hardware;
  const std::size_t n = hw.units.size();
  // A parallel plan's units (ir/cost/device_plan.h): each stage's device and the peers that repeat it.
  const ir::DevicePlan plan = ir::device_plan(*in.graph, hw);
  std::vector<std::string> mirrors(n);
  for (std::size_t u = 0; u < n; ++u)
    if (const int device = plan.mirrored_device(static_cast<int>(u)); device >= 0)
      mirrors[u] = hw.units[static_cast<std::size_t>(device)].name;
  std::vector<Column> cols = {
      {"unit", ColumnType::String,
       h5::string_width(n, [&](std::size_t u) -> std::string_view { return hw.units[u].name; })},
      {"kind", ColumnType::String,
       h5::string_width(n, [&](std::size_t u) -> std::string_view { return hw.units[u].kind_name(); })},
      {"lanes", ColumnType::I32},
      {"memory", ColumnType::String,
       h5::string_width(
           n, [&](std::size_t u) -> std::string_view { return hw.memory_name(hw.units[u].memory); })},
  };
  for (const char* which : {"predicted", "simulated"})
    for (const char* field : {"_busy_s", "_utilisation", "_dynamic_energy_j", "_static_energy_j"})
      cols.push_back({std::string(which) + field, ColumnType::F64});
  cols.push_back({"pipeline_stage", ColumnType::I32});
  cols.push_back({"mirrors", ColumnType::String,
                  h5::string_width(n, [&](std::size_t u) -> std::string_view { return mirrors[u]; })});
  // Latency hiding (scheduler/load_stage.h): the unit's weight buffers in use and load stage, and per
  // schedule what its loads did.
  cols.push_back({"weight_buffers", ColumnType::I32});
  cols.push_back({"prefetch_depth", ColumnType::I32});
  cols.push_back({"prefetch_buffer_bytes", ColumnType::F64});
  for (const char* which : {"predicted", "simulated"}) {
    cols.push_back({std::string(which) + "_loads", ColumnType::U64});
    cols.push_back({std::string(which) + "_load_bytes", ColumnType::F64});
    for (const char* field : {"_load_busy_s", "_load_hidden_s", "_load_stall_s"})
      cols.push_back({std::string(which) + field, ColumnType::F64});
  }
  h5::Table table(root, "units", std::move(cols), n, io);
  table.write([&](std::size_t u, RowCursor& row) {
    const ir::Unit& unit = hw.units[u];
    row.str(unit.name);
    row.str(unit.kind_name());
    row.i32(unit.cores);
    row.str(hw.memory_name(unit.memory));
    for (const sched::Schedule* s : {in.predicted, in.simulated}) {
      if (s && !s->units.empty()) {
        const sched::UnitUsage& use = s->units[u];
        const double capacity_s = unit.cores * s->makespan_s;
        row.f64(use.busy_s);
        row.f64(capacity_s > 0 ? use.busy_s / capacity_s : 0.0);
        row.f64(use.dynamic_energy_j);
        row.f64(use.static_energy_j);
      } else {
        for (int k = 0; k < 4; ++k)
          row.f64(kNaN);
      }
    }
    row.i32(plan.stage_of(static_cast<int>(u)));
    row.str(mirrors[u]);
    const bool stage = ir::has_load_stage(unit);
    row.i32(unit.kind->weight_buffers_in_use(unit));
    row.i32(stage ? unit.prefetch.depth : 0);
    row.f64(stage ? unit.prefetch.buffer_bytes : 0.0);
    for (const sched::Schedule* s : {in.predicted, in.simulated}) {
      const bool have = s && !s->units.empty();
      const sched::UnitUsage* use = have ? &s->units[u] : nullptr;
      row.u64(use ? use->loads : 0);
      row.f64(use ? use->load_bytes : kNaN);
      row.f64(use ? use->load_busy_s : kNaN);
      row.f64(use ? use->load_hidden_s : kNaN);
      row.f64(use ? use->load_stall_s : kNaN);
    }
  });
}

void write_links(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  const ir::Hardware& hw = *in.hardware;
  const std::size_t n = hw.links.size();
  // endpoint_b: the other end, or (a switched link) the other endpoints joined by commas.
  std::vector<std::string> others(n);
  for (std::size_t l = 0; l < n; ++l)
    for (std::size_t e = 1; e < hw.links[l].endpoints.size(); ++e)
      others[l].append(e > 1 ? "," : "").append(hw.memory_name(hw.links[l].endpoints[e]));
  auto endpoint = [&](std::size_t l, int end) -> std::string_view {
    return end == 0 ? hw.memory_name(hw.links[l].endpoints[0]) : std::string_view(others[l]);
  };
  std::vector<Column> cols = {
      {"link", ColumnType::String,
       h5::string_width(n, [&](std::size_t l) -> std::string_view { return hw.links[l].name; })},
      {"kind", ColumnType::String,
       h5::string_width(
           n, [&](std::size_t l) -> std::string_view { return ir::link_kind_name(hw.links[l].kind); })},
      {"endpoint_a", ColumnType::String,
       h5::string_width(n, [&](std::size_t l) -> std::string_view { return endpoint(l, 0); })},
      {"endpoint_b", ColumnType::String,
       h5::string_width(n, [&](std::size_t l) -> std::string_view { return endpoint(l, 1); })},
      {"bandwidth_GBps", ColumnType::F64},
      {"predicted_bytes", ColumnType::U64},
      {"predicted_busy_s", ColumnType::F64},
      {"simulated_bytes", ColumnType::U64},
      {"simulated_busy_s", ColumnType::F64},
  };
  h5::Table table(root, "links", std::move(cols), n, io);
  table.write([&](std::size_t l, RowCursor& row) {
    row.str(hw.links[l].name);
    row.str(ir::link_kind_name(hw.links[l].kind));
    row.str(endpoint(l, 0));
    row.str(endpoint(l, 1));
    row.f64(hw.links[l].bandwidth_GBps);
    for (const sched::Schedule* s : {in.predicted, in.simulated}) {
      row.u64(s && !s->link_bytes.empty() ? s->link_bytes[l] : 0);
      row.f64(s && !s->link_busy_s.empty() ? s->link_busy_s[l] : kNaN);
    }
  });
}

} // namespace lightsim::sim
