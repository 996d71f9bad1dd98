#include "sim/trace/trace_writer.h"

#include "ir/error.h"
#include "ir/hardware/transfer.h"
#include "sim/check/check.h"
#include "sim/io/atomic_file.h"
#include "sim/trace/energy_tables.h"
#include "sim/trace/graph_table.h"
#include "sim/trace/h5_table.h"
#include "sim/trace/machine_tables.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <openssl/evp.h>
#include <stdexcept>

#ifndef LIGHTSIM_VERSION
#error "LIGHTSIM_VERSION must be defined by the build (sim/CMakeLists.txt)"
#endif
#ifndef LIGHTSIM_GIT_REVISION
#error "LIGHTSIM_GIT_REVISION must be defined by the build (sim/CMakeLists.txt)"
#endif

namespace lightsim::sim {
namespace {
using h5::Column;
using h5::ColumnType;
using h5::RowCursor;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kFormatVersion = 4; // 2: /op_energy and /energy_totals; 3: /op_inputs;
                                           // 4: /collective_sends

// ---- inputs ------------------------------------------------------------------------------------------

void require_schedule(const sched::Schedule& s, const char* what, const ir::Graph& graph,
                      const ir::Hardware& hw) {
  auto fail = [what](const std::string& msg) {
    throw std::invalid_argument(std::string("write_trace: ") + what + " schedule " + msg);
  };
  if (s.ops.size() != graph.ops.size())
    fail("has " + std::to_string(s.ops.size()) + " ops, the graph " + std::to_string(graph.ops.size()));
  if (!s.units.empty() && s.units.size() != hw.units.size())
    fail("has " + std::to_string(s.units.size()) + " unit totals, the hardware " +
         std::to_string(hw.units.size()));
  if (!s.link_bytes.empty() && s.link_bytes.size() != hw.links.size())
    fail("has " + std::to_string(s.link_bytes.size()) + " link byte counts, the hardware " +
         std::to_string(hw.links.size()));
  if (!s.link_busy_s.empty() && s.link_busy_s.size() != hw.links.size())
    fail("has " + std::to_string(s.link_busy_s.size()) + " link busy times, the hardware " +
         std::to_string(hw.links.size()));
}

std::string timestamp_now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string creation_timestamp(const TraceInputs& in) {
  if (!in.created.empty()) return in.created;
  if (const char* env = std::getenv("LIGHTSIM_TRACE_TIMESTAMP"); env && *env) return env;
  return timestamp_now_utc();
}

// ---- the tables --------------------------------------------------------------------------------------

std::uint64_t count_of(double v) {
  return v > 0 ? static_cast<std::uint64_t>(std::llround(v)) : 0;
}

void write_meta(const H5::Group& root, const TraceInputs& in, const std::string& sha256,
                const std::string& created) {
  H5::Group meta = h5::create_group(root, "meta");
  h5::set_attribute(meta, "format", std::string("lightsim-trace"));
  h5::set_attribute(meta, "format_version", kFormatVersion);
  h5::set_attribute(meta, "lightsim_version", std::string(LIGHTSIM_VERSION));
  h5::set_attribute(meta, "git_revision", std::string(LIGHTSIM_GIT_REVISION));
  h5::set_attribute(meta, "hardware_name", in.hardware->name);
  h5::set_attribute(meta, "hardware_config", in.hardware_config_json);
  h5::set_attribute(meta, "graph_path", in.graph->source);
  h5::set_attribute(meta, "graph_sha256", sha256);
  h5::set_attribute(meta, "objective", in.objective);
  h5::set_attribute(meta, "time_unit", std::string("s"));
  h5::set_attribute(meta, "energy_unit", std::string("J"));
  h5::set_attribute(meta, "simulated", static_cast<std::int64_t>(in.simulated != nullptr));
  h5::set_attribute(meta, "created", created);
}

void write_ops(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  const ir::Graph& g = *in.graph;
  const ir::Hardware& hw = *in.hardware;
  const sched::Schedule& pred = *in.predicted;
  const sched::Schedule* sim = in.simulated;
  const std::size_t n = g.ops.size();
  std::vector<Column> cols = {
      {"op", ColumnType::I32},
      {"name", ColumnType::String,
       h5::string_width(n, [&](std::size_t i) -> std::string_view { return g.ops[i].name; })},
      {"op_class", ColumnType::String,
       h5::string_width(
           n, [&](std::size_t i) -> std::string_view { return ir::op_class_name(g.ops[i].op_class); })},
      {"unit", ColumnType::String,
       h5::string_width(n,
                        [&](std::size_t i) -> std::string_view { return hw.unit_name(pred.ops[i].unit); })},
      {"lane", ColumnType::I32},
      {"predicted_start_s", ColumnType::F64},
      {"predicted_end_s", ColumnType::F64},
      {"predicted_energy_j", ColumnType::F64},
      {"simulated_lane", ColumnType::I32},
      {"simulated_start_s", ColumnType::F64},
      {"simulated_end_s", ColumnType::F64},
      {"simulated_energy_j", ColumnType::F64},
      {"macs", ColumnType::U64},
      {"bytes_in", ColumnType::U64},
      {"bytes_out", ColumnType::U64},
      {"load_bytes", ColumnType::U64},
      {"predicted_load_start_s", ColumnType::F64},
      {"predicted_load_end_s", ColumnType::F64},
      {"simulated_load_start_s", ColumnType::F64},
      {"simulated_load_end_s", ColumnType::F64},
      {"gap_s", ColumnType::F64},
  };
  h5::Table table(root, "ops", std::move(cols), n, io);
  table.write([&](std::size_t i, RowCursor& row) {
    const ir::Op& op = g.ops[i];
    const sched::ScheduledOp& p = pred.ops[i];
    row.i32(static_cast<std::int32_t>(i));
    row.str(op.name);
    row.str(ir::op_class_name(op.op_class));
    row.str(hw.unit_name(p.unit));
    row.i32(p.lane);
    row.f64(p.start_s);
    row.f64(p.end_s);
    row.f64(p.energy_j);
    if (sim) {
      const sched::ScheduledOp& s = sim->ops[i];
      row.i32(s.lane);
      row.f64(s.start_s);
      row.f64(s.end_s);
      row.f64(s.energy_j);
    } else {
      row.i32(-1);
      row.f64(kNaN);
      row.f64(kNaN);
      row.f64(kNaN);
    }
    row.u64(count_of(op.features.macs));
    row.u64(count_of(op.features.bytes_in));
    row.u64(count_of(op.features.bytes_out));
    row.u64(count_of(p.load_bytes));
    for (const sched::ScheduledOp* x : {&p, sim ? &sim->ops[i] : nullptr}) {
      const bool loaded = x && x->load_bytes > 0;
      row.f64(loaded ? x->load_start_s : kNaN);
      row.f64(loaded ? x->load_end_s : kNaN);
    }
    // The idle gap inside the op's time on its unit: end - start - gap_s is the unit's work.
    double gap_s = 0;
    if (op.op_class != ir::OpClass::Input && !ir::is_collective(op.op_class) && p.unit >= 0) {
      const ir::Unit& unit = hw.units[static_cast<std::size_t>(p.unit)];
      gap_s = std::min(p.end_s - p.start_s, unit.kind->op_gap_ns(unit, op) * 1e-9);
    }
    row.f64(gap_s);
  });
}

// Predicted and simulated transfers are paired by (tensor, destination memory, and for a load its op),
// which identifies a transfer in both. Rows: the predicted transfers in order, then simulated ones without
// a partner.
std::vector<std::pair<int, int>> pair_transfers(const sched::Schedule& pred, const sched::Schedule* sim) {
  std::vector<std::pair<int, int>> rows;
  rows.reserve(pred.transfers.size());
  if (!sim) {
    for (std::size_t i = 0; i < pred.transfers.size(); ++i)
      rows.emplace_back(static_cast<int>(i), -1);
    return rows;
  }
  auto key = [](const sched::ScheduledTransfer& t) {
    return std::tuple(t.tensor, t.dst_memory, t.load ? t.dst_op : -1);
  };
  std::vector<int> order(sim->transfers.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return key(sim->transfers[a]) < key(sim->transfers[b]); });
  std::vector<bool> used(order.size(), false);
  for (std::size_t i = 0; i < pred.transfers.size(); ++i) {
    const auto k = key(pred.transfers[i]);
    auto it = std::lower_bound(order.begin(), order.end(), k,
                               [&](int s, const auto& kk) { return key(sim->transfers[s]) < kk; });
    while (it != order.end() && key(sim->transfers[*it]) == k && used[*it])
      ++it;
    int match = -1;
    if (it != order.end() && key(sim->transfers[*it]) == k) {
      match = *it;
      used[*it] = true;
    }
    rows.emplace_back(static_cast<int>(i), match);
  }
  for (std::size_t s = 0; s < used.size(); ++s)
    if (!used[s]) rows.emplace_back(-1, static_cast<int>(s));
  return rows;
}

std::string route_text(const ir::Hardware& hw, const std::vector<int>& links) {
  std::string text;
  for (int l : links) {
    if (!text.empty()) text += '>';
    text += l >= 0 && static_cast<std::size_t>(l) < hw.links.size() ? hw.links[l].name : "?";
  }
  return text;
}

void write_transfers(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  const ir::Hardware& hw = *in.hardware;
  const sched::Schedule& pred = *in.predicted;
  const sched::Schedule* sim = in.simulated;
  const std::vector<std::pair<int, int>> rows = pair_transfers(pred, sim);
  auto either = [&](std::size_t r) -> const sched::ScheduledTransfer& {
    return rows[r].first >= 0 ? pred.transfers[rows[r].first] : sim->transfers[rows[r].second];
  };
  std::vector<std::string> routes(rows.size()); // short strings, one per transfer
  for (std::size_t r = 0; r < rows.size(); ++r)
    routes[r] = route_text(hw, either(r).links);
  std::vector<Column> cols = {
      {"tensor", ColumnType::I32},
      {"src_op", ColumnType::I32},
      {"dst_op", ColumnType::I32},
      {"src_memory", ColumnType::String,
       h5::string_width(
           rows.size(),
           [&](std::size_t r) -> std::string_view { return hw.memory_name(either(r).src_memory); })},
      {"dst_memory", ColumnType::String,
       h5::string_width(
           rows.size(),
           [&](std::size_t r) -> std::string_view { return hw.memory_name(either(r).dst_memory); })},
      {"route", ColumnType::String,
       h5::string_width(rows.size(), [&](std::size_t r) -> std::string_view { return routes[r]; })},
      {"hops", ColumnType::I32},
      {"bytes", ColumnType::U64},
      {"predicted_start_s", ColumnType::F64},
      {"predicted_end_s", ColumnType::F64},
      {"predicted_energy_j", ColumnType::F64},
      {"simulated_start_s", ColumnType::F64},
      {"simulated_end_s", ColumnType::F64},
      {"simulated_energy_j", ColumnType::F64},
      {"load", ColumnType::U8},
  };
  h5::Table table(root, "transfers", std::move(cols), rows.size(), io);
  table.write([&](std::size_t r, RowCursor& row) {
    const sched::ScheduledTransfer& t = either(r);
    row.i32(t.tensor);
    row.i32(t.src_op);
    row.i32(t.dst_op);
    row.str(hw.memory_name(t.src_memory));
    row.str(hw.memory_name(t.dst_memory));
    row.str(routes[r]);
    row.i32(static_cast<std::int32_t>(t.links.size()));
    row.u64(t.bytes);
    auto times = [&row](const sched::ScheduledTransfer* x) {
      row.f64(x ? x->start_s : kNaN);
      row.f64(x ? x->end_s : kNaN);
      row.f64(x ? x->energy_j : kNaN);
    };
    times(rows[r].first >= 0 ? &pred.transfers[rows[r].first] : nullptr);
    times(rows[r].second >= 0 ? &sim->transfers[rows[r].second] : nullptr);
    row.u8(t.load ? 1 : 0);
  });
}

// The replay's collective sends (empty when the graph has none or was not simulated).
void write_collective_sends(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  const ir::Hardware& hw = *in.hardware;
  static const std::vector<sched::CollectiveSend> kNone;
  const std::vector<sched::CollectiveSend>& sends = in.simulated ? in.simulated->collective_sends : kNone;
  const ir::TransferModel routes(hw);
  std::map<std::pair<int, int>, std::string> route_of; // the few (src, dst) pairs of the groups
  for (const sched::CollectiveSend& s : sends)
    if (!route_of.contains({s.src_memory, s.dst_memory}))
      route_of[{s.src_memory, s.dst_memory}] = route_text(hw, routes.route(s.src_memory, s.dst_memory).links);
  const auto route = [&](std::size_t r) -> std::string_view {
    return route_of.at({sends[r].src_memory, sends[r].dst_memory});
  };
  std::vector<Column> cols = {
      {"op", ColumnType::I32},
      {"src_memory", ColumnType::String,
       h5::string_width(
           sends.size(),
           [&](std::size_t r) -> std::string_view { return hw.memory_name(sends[r].src_memory); })},
      {"dst_memory", ColumnType::String,
       h5::string_width(
           sends.size(),
           [&](std::size_t r) -> std::string_view { return hw.memory_name(sends[r].dst_memory); })},
      {"route", ColumnType::String, h5::string_width(sends.size(), route)},
      {"bytes", ColumnType::F64},
      {"simulated_start_s", ColumnType::F64},
      {"simulated_end_s", ColumnType::F64},
  };
  h5::Table table(root, "collective_sends", std::move(cols), sends.size(), io);
  table.write([&](std::size_t r, RowCursor& row) {
    const sched::CollectiveSend& s = sends[r];
    row.i32(s.op);
    row.str(hw.memory_name(s.src_memory));
    row.str(hw.memory_name(s.dst_memory));
    row.str(route(r));
    row.f64(s.bytes);
    row.f64(s.start_s);
    row.f64(s.end_s);
  });
}

void write_check(const H5::Group& root, const TraceInputs& in, const h5::IoStatus* io) {
  CheckReport report;
  report.makespan_s = {in.predicted->makespan_s, kNaN, kNaN};
  report.energy_j = {in.predicted->energy_j, kNaN, kNaN};
  if (in.simulated) report = check_schedules(*in.graph, *in.hardware, *in.predicted, *in.simulated);
  const std::vector<CheckRow>& rows = report.rows;
  std::vector<Column> cols = {
      {"unit", ColumnType::String,
       h5::string_width(rows.size(), [&](std::size_t r) -> std::string_view { return rows[r].unit_name; })},
      {"op_class", ColumnType::String,
       h5::string_width(
           rows.size(),
           [&](std::size_t r) -> std::string_view { return ir::op_class_name(rows[r].op_class); })},
      {"count", ColumnType::U64},
      {"zero_simulated", ColumnType::U64},
      {"median_abs_error", ColumnType::F64},
      {"max_abs_error", ColumnType::F64},
      {"predicted_s", ColumnType::F64},
      {"simulated_s", ColumnType::F64},
  };
  h5::Table table(root, "check", std::move(cols), rows.size(), io);
  table.write([&](std::size_t r, RowCursor& row) {
    row.str(rows[r].unit_name);
    row.str(ir::op_class_name(rows[r].op_class));
    row.u64(rows[r].count);
    row.u64(rows[r].zero_simulated);
    row.f64(rows[r].median_abs_error);
    row.f64(rows[r].max_abs_error);
    row.f64(rows[r].predicted_s);
    row.f64(rows[r].simulated_s);
  });
  const H5::DataSet& ds = table.dataset();
  h5::set_attribute(ds, "ops_compared", static_cast<std::int64_t>(report.ops_compared));
  h5::set_attribute(ds, "makespan_predicted_s", report.makespan_s.predicted);
  h5::set_attribute(ds, "makespan_simulated_s", report.makespan_s.simulated);
  h5::set_attribute(ds, "makespan_error", report.makespan_s.error);
  h5::set_attribute(ds, "energy_predicted_j", report.energy_j.predicted);
  h5::set_attribute(ds, "energy_simulated_j", report.energy_j.simulated);
  h5::set_attribute(ds, "energy_error", report.energy_j.error);
}

// Writes the whole file; returns with it closed. I/O failures end up in `io` (see h5_posix_driver.h).
void write_file(const std::string& tmp, const TraceInputs& in, const std::string& sha256,
                const std::string& created, h5::IoStatus& io) {
  H5::FileCreatPropList fcpl;
  H5Pset_obj_track_times(fcpl.getId(), false); // the root group
  H5::H5File file(tmp, H5F_ACC_TRUNC, fcpl, h5::posix_driver_fapl(&io));
  const H5::Group root = file.openGroup("/");
  write_meta(root, in, sha256, created);
  write_ops(root, in, &io);
  write_transfers(root, in, &io);
  write_units(root, in, &io);
  write_links(root, in, &io);
  write_collective_sends(root, in, &io);
  write_check(root, in, &io);
  write_energy_tables(root, in, &io);
  write_op_inputs(root, *in.graph, &io);
  H5::Group model = h5::create_group(root, "model");
  if (in.model)
    in.model(model, &io);
  else
    h5::set_attribute(model, "note", std::string("reserved: written by retrain"));
  file.close();
}

} // namespace

std::string sha256_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, "cannot read the graph file for its sha256");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256: OpenSSL init failed");
  std::vector<char> buf(1 << 20);
  while (file) {
    file.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (file.gcount() > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<std::size_t>(file.gcount()));
  }
  if (file.bad()) throw InputError(path, "read error while computing its sha256");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

void write_trace(const std::string& path, const TraceInputs& in) {
  if (!in.graph || !in.hardware || !in.predicted)
    throw std::invalid_argument("write_trace: graph, hardware and predicted schedule are required");
  require_schedule(*in.predicted, "predicted", *in.graph, *in.hardware);
  if (in.simulated) require_schedule(*in.simulated, "simulated", *in.graph, *in.hardware);

  const std::string sha256 = in.graph->source.empty() ? std::string() : sha256_file(in.graph->source);
  const std::string created = creation_timestamp(in);

  H5::Exception::dontPrint(); // errors become InputError below, not HDF5's stack dump on stderr
  AtomicOutput output(path, "trace");
  h5::IoStatus io;
  auto io_error = [&] { return output.error(io.operation + " failed: " + std::strerror(io.error)); };
  try {
    write_file(output.temp_path(), in, sha256, created, io);
  } catch (const h5::IoFailed&) {
    throw io_error();
  } catch (const H5::Exception& e) {
    if (io.failed()) throw io_error();
    throw output.error(e.getFuncName() + ": " + e.getDetailMsg());
  }
  if (io.failed()) throw io_error();
  output.commit();
}

} // namespace lightsim::sim
