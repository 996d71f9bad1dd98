#include "sim/trace/energy_tables.h"

#include "sim/check/energy_breakdown.h"

#include <limits>
#include <stdexcept>

namespace lightsim::sim {
namespace {

using h5::Column;
using h5::ColumnType;
using h5::RowCursor;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An op's components, and `link`: a collective op's energy is its links' (ir/cost/collectives.h).
std::vector<ir::EnergyComponent> op_components() {
  std::vector<ir::EnergyComponent> out;
  for (ir::EnergyComponent c : ir::energy_components())
    if (ir::is_op_component(c) || c == ir::EnergyComponent::Link) out.push_back(c);
  return out;
}

const std::vector<ir::EnergyComponent>& all_components() {
  return ir::energy_components();
}

// "<which>_<component>_j" for every component, for predicted then simulated.
void add_component_columns(std::vector<Column>& cols, const std::vector<ir::EnergyComponent>& components,
                           bool with_total) {
  for (const char* which : {"predicted", "simulated"}) {
    for (ir::EnergyComponent c : components)
      cols.push_back(
          {std::string(which) + "_" + std::string(ir::energy_component_name(c)) + "_j", ColumnType::F64});
    if (with_total) cols.push_back({std::string(which) + "_total_j", ColumnType::F64});
  }
}

void put_components(RowCursor& row, const ir::EnergyBreakdown* e,
                    const std::vector<ir::EnergyComponent>& components, bool with_total) {
  for (ir::EnergyComponent c : components)
    row.f64(e ? (*e)[c] : kNaN);
  if (with_total) row.f64(e ? e->total() : kNaN);
}

void write_op_energy(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  const ir::Graph& g = *in.graph;
  const ir::Hardware& hw = *in.hardware;
  const std::vector<ir::EnergyComponent> components = op_components();
  auto unit_of = [&](std::size_t i) -> std::string_view {
    const int u = in.predicted->ops[i].unit;
    return u >= 0 && static_cast<std::size_t>(u) < hw.units.size() ? std::string_view(hw.units[u].name)
                                                                   : std::string_view();
  };
  std::vector<Column> cols = {{"op", ColumnType::I32},
                              {"unit", ColumnType::String, h5::string_width(g.ops.size(), unit_of)}};
  add_component_columns(cols, components, false);
  h5::Table table(root, "op_energy", std::move(cols), g.ops.size(), io);
  table.write([&](std::size_t i, RowCursor& row) {
    row.i32(static_cast<std::int32_t>(i));
    row.str(unit_of(i));
    const ir::EnergyBreakdown pred = op_energy_of(*in.predicted, i);
    put_components(row, &pred, components, false);
    if (in.simulated) {
      const ir::EnergyBreakdown sim = op_energy_of(*in.simulated, i);
      put_components(row, &sim, components, false);
    } else {
      put_components(row, nullptr, components, false);
    }
  });
}

void write_energy_totals(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  const std::vector<OwnerEnergy> pred = energy_by_owner(*in.graph, *in.hardware, *in.predicted);
  const std::vector<OwnerEnergy> sim =
      in.simulated ? energy_by_owner(*in.graph, *in.hardware, *in.simulated) : std::vector<OwnerEnergy>{};
  const std::vector<ir::EnergyComponent> components = all_components();
  std::vector<Column> cols = {
      {"kind", ColumnType::String,
       h5::string_width(pred.size(), [&](std::size_t r) { return owner_kind_name(pred[r].kind); })},
      {"owner", ColumnType::String,
       h5::string_width(pred.size(), [&](std::size_t r) -> std::string_view { return pred[r].name; })},
  };
  add_component_columns(cols, components, true);
  h5::Table table(root, "energy_totals", std::move(cols), pred.size(), io);
  table.write([&](std::size_t r, RowCursor& row) {
    row.str(owner_kind_name(pred[r].kind));
    row.str(pred[r].name);
    put_components(row, &pred[r].energy, components, true);
    put_components(row, in.simulated ? &sim[r].energy : nullptr, components, true);
  });
}

} // namespace

void write_energy_tables(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  for (const sched::Schedule* s : {in.predicted, in.simulated})
    if (s && !s->op_energy.empty() && s->op_energy.size() != in.graph->ops.size())
      throw std::invalid_argument("write_trace: a schedule's op energies do not match the graph's ops");
  write_op_energy(root, in, io);
  write_energy_totals(root, in, io);
}

} // namespace lightsim::sim
