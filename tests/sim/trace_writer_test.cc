// The HDF5 trace: round trip through HDF5's C++ API, determinism, bad paths, and h5py reading it.
#include "ir/error.h"
#include "sim/trace/trace_writer.h"
#include "sim/units/gpu/gpu_params.h"
#include "tests/sim/h5_read.h"
#include "tests/sim/trace_fixture.h"
#include "tests/test_support.h"

#include <H5Cpp.h>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

namespace lightsim::sim {
namespace {
namespace fs = std::filesystem;

using namespace test::h5read;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TraceInputs inputs_of(const test::TraceFixture& f, bool simulated) {
  TraceInputs in;
  in.graph = &f.graph;
  in.hardware = &f.hw;
  in.predicted = &f.predicted;
  in.simulated = simulated ? &f.simulated : nullptr;
  in.hardware_config_json = R"({"name": "fixture"})";
  in.objective = "time";
  in.created = "2024-01-02T03:04:05Z";
  return in;
}

// ---- round trip ----------------------------------------------------------------------------------

TEST(TraceWriter, RoundTripWithSimulation) {
  const std::string dir = test::temp_dir();
  test::TraceFixture f = test::make_trace_fixture();
  f.graph.source = dir + "/graph.json";
  std::ofstream(f.graph.source) << "abc";
  f.hw.units[1].as<units::GpuParams>().kernel_gap_ns = 1; // gap_s: the GPU's ops, within their time
  const std::string path = dir + "/run.h5";
  write_trace(path, inputs_of(f, true));
  EXPECT_EQ(dir_entries(dir), (std::vector<std::string>{"graph.json", "run.h5"})); // no temporary left

  H5::H5File file(path, H5F_ACC_RDONLY);
  const H5::Group meta = file.openGroup("meta");
  EXPECT_EQ(string_attr(meta, "format"), "lightsim-trace");
  EXPECT_EQ(int_attr(meta, "format_version"), 4);
  EXPECT_FALSE(string_attr(meta, "lightsim_version").empty());
  EXPECT_FALSE(string_attr(meta, "git_revision").empty());
  EXPECT_EQ(string_attr(meta, "hardware_config"), R"({"name": "fixture"})");
  EXPECT_EQ(string_attr(meta, "graph_path"), f.graph.source);
  EXPECT_EQ(string_attr(meta, "graph_sha256"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(string_attr(meta, "objective"), "time");
  EXPECT_EQ(string_attr(meta, "time_unit"), "s");
  EXPECT_EQ(string_attr(meta, "created"), "2024-01-02T03:04:05Z");
  EXPECT_EQ(int_attr(meta, "simulated"), 1);

  // /ops: one row per op, in OpId order.
  const auto op = column<std::int32_t>(file, "ops", "op");
  ASSERT_EQ(op.size(), f.graph.ops.size());
  const auto names = strings(file, "ops", "name");
  const auto classes = strings(file, "ops", "op_class");
  const auto units = strings(file, "ops", "unit");
  const auto lane = column<std::int32_t>(file, "ops", "lane");
  const auto sim_lane = column<std::int32_t>(file, "ops", "simulated_lane");
  const auto ps = column<double>(file, "ops", "predicted_start_s");
  const auto pe = column<double>(file, "ops", "predicted_end_s");
  const auto ss = column<double>(file, "ops", "simulated_start_s");
  const auto se = column<double>(file, "ops", "simulated_end_s");
  const auto pj = column<double>(file, "ops", "predicted_energy_j");
  const auto sj = column<double>(file, "ops", "simulated_energy_j");
  const auto macs = column<std::uint64_t>(file, "ops", "macs");
  const auto bin = column<std::uint64_t>(file, "ops", "bytes_in");
  const auto bout = column<std::uint64_t>(file, "ops", "bytes_out");
  const auto gap = column<double>(file, "ops", "gap_s");
  for (std::size_t i = 0; i < op.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(op[i], static_cast<std::int32_t>(i));
    EXPECT_EQ(names[i], f.graph.ops[i].name);
    EXPECT_EQ(classes[i], ir::op_class_name(f.graph.ops[i].op_class));
    EXPECT_EQ(units[i], f.hw.units[f.predicted.ops[i].unit].name);
    EXPECT_EQ(lane[i], f.predicted.ops[i].lane);
    EXPECT_EQ(sim_lane[i], f.simulated.ops[i].lane);
    EXPECT_EQ(ps[i], f.predicted.ops[i].start_s);
    EXPECT_EQ(pe[i], f.predicted.ops[i].end_s);
    EXPECT_EQ(ss[i], f.simulated.ops[i].start_s);
    EXPECT_EQ(se[i], f.simulated.ops[i].end_s);
    EXPECT_EQ(pj[i], f.predicted.ops[i].energy_j);
    EXPECT_EQ(sj[i], f.simulated.ops[i].energy_j);
    EXPECT_EQ(macs[i], static_cast<std::uint64_t>(f.graph.ops[i].features.macs));
    EXPECT_EQ(bin[i], static_cast<std::uint64_t>(f.graph.ops[i].features.bytes_in));
    EXPECT_EQ(bout[i], static_cast<std::uint64_t>(f.graph.ops[i].features.bytes_out));
    const bool gpu_op = f.graph.ops[i].op_class != ir::OpClass::Input && f.predicted.ops[i].unit == 1;
    EXPECT_EQ(gap[i], gpu_op ? std::min(pe[i] - ps[i], 1e-9) : 0.0);
  }
  EXPECT_GT(*std::max_element(gap.begin(), gap.end()), 0); // some op runs on the GPU
  EXPECT_EQ(names[7], "dense2");
  EXPECT_EQ(classes[2], "dense");

  // /op_inputs: every input of every op, ops in id order, inputs in argument order, with its producer.
  const auto in_op = column<std::int32_t>(file, "op_inputs", "op");
  const auto in_k = column<std::int32_t>(file, "op_inputs", "input");
  const auto in_tensor = column<std::int32_t>(file, "op_inputs", "tensor");
  const auto in_producer = column<std::int32_t>(file, "op_inputs", "producer");
  std::size_t row = 0;
  for (std::size_t i = 0; i < f.graph.ops.size(); ++i) {
    for (std::size_t k = 0; k < f.graph.ops[i].inputs.size(); ++k, ++row) {
      ASSERT_LT(row, in_op.size());
      const ir::TensorId t = f.graph.ops[i].inputs[k];
      EXPECT_EQ(in_op[row], static_cast<std::int32_t>(i));
      EXPECT_EQ(in_k[row], static_cast<std::int32_t>(k));
      EXPECT_EQ(in_tensor[row], t);
      EXPECT_EQ(in_producer[row], f.graph.tensors[static_cast<std::size_t>(t)].producer);
    }
  }
  EXPECT_EQ(in_op.size(), row);
  EXPECT_GT(row, 0u);

  // /transfers: the two predicted ones paired with their simulated partners, then the extra simulated one.
  const auto tensor = column<std::int32_t>(file, "transfers", "tensor");
  ASSERT_EQ(tensor, (std::vector<std::int32_t>{0, 3, 5}));
  EXPECT_EQ(strings(file, "transfers", "route"), (std::vector<std::string>{"pcie0", "pcie0", "pcie0"}));
  EXPECT_EQ(strings(file, "transfers", "src_memory"), (std::vector<std::string>{"dram", "hbm", "hbm"}));
  EXPECT_EQ(column<std::int32_t>(file, "transfers", "hops"), (std::vector<std::int32_t>{1, 1, 1}));
  EXPECT_EQ(column<std::uint64_t>(file, "transfers", "bytes"), (std::vector<std::uint64_t>{64, 256, 256}));
  const auto tpe = column<double>(file, "transfers", "predicted_end_s");
  const auto tse = column<double>(file, "transfers", "simulated_end_s");
  EXPECT_EQ(tpe[0], 0.5);
  EXPECT_EQ(tse[0], 0.75);
  EXPECT_EQ(tpe[1], 3.25);
  EXPECT_EQ(tse[1], 3.5);
  EXPECT_TRUE(std::isnan(tpe[2]));
  EXPECT_EQ(tse[2], 3.25); // the extra one is a copy of t1 (see the fixture)

  // /units: utilisation = busy / (lanes x makespan).
  EXPECT_EQ(strings(file, "units", "unit"), (std::vector<std::string>{"cpu0", "gpu0"}));
  EXPECT_EQ(strings(file, "units", "kind"), (std::vector<std::string>{"cpu", "gpu"}));
  const auto util = column<double>(file, "units", "predicted_utilisation");
  EXPECT_DOUBLE_EQ(util[0], 2.0 / (2 * 10));
  EXPECT_DOUBLE_EQ(util[1], 6.625 / (1 * 10));
  EXPECT_DOUBLE_EQ(column<double>(file, "units", "simulated_utilisation")[1], 7.0 / 12.5);
  EXPECT_EQ(column<double>(file, "units", "simulated_static_energy_j")[1], 0.625);

  // /links
  EXPECT_EQ(strings(file, "links", "link"), (std::vector<std::string>{"pcie0"}));
  EXPECT_EQ(column<std::uint64_t>(file, "links", "simulated_bytes")[0], 576u);
  EXPECT_EQ(column<double>(file, "links", "predicted_busy_s")[0], 0.75);

  // /check: the same rows as check_schedules, end-to-end numbers as attributes.
  EXPECT_EQ(strings(file, "check", "op_class"), (std::vector<std::string>{"nop", "add", "relu", "dense"}));
  EXPECT_EQ(column<std::uint64_t>(file, "check", "count"), (std::vector<std::uint64_t>{1, 1, 1, 3}));
  EXPECT_DOUBLE_EQ(column<double>(file, "check", "median_abs_error")[3], 0.2);
  const H5::DataSet check = file.openDataSet("check");
  EXPECT_DOUBLE_EQ(double_attr(check, "makespan_error"), 0.2);
  EXPECT_DOUBLE_EQ(double_attr(check, "energy_error"), -0.5);
  EXPECT_EQ(int_attr(check, "ops_compared"), 6);

  // /op_energy: per op its components, predicted (all compute: the fixture's prediction records no split)
  // and simulated; they sum to /ops' energies.
  EXPECT_EQ(column<std::int32_t>(file, "op_energy", "op").size(), f.graph.ops.size());
  EXPECT_EQ(strings(file, "op_energy", "unit"), units);
  const auto sim_tc = column<double>(file, "op_energy", "simulated_tensor_core_j");
  const auto sim_hbm = column<double>(file, "op_energy", "simulated_hbm_j");
  const auto pred_compute = column<double>(file, "op_energy", "predicted_compute_j");
  EXPECT_EQ(sim_tc[2], 0.5);
  EXPECT_EQ(sim_hbm[2], 0.25);
  EXPECT_EQ(sim_tc[2] + sim_hbm[2], sj[2]);
  for (std::size_t i = 0; i < op.size(); ++i)
    EXPECT_EQ(pred_compute[i], pj[i]) << i;
  EXPECT_EQ(column<double>(file, "op_energy", "simulated_laser_j")[2], 0.0);

  // /energy_totals: units, memories, links; each unit's components are its ops' (plus static power x
  // makespan: 0 here); the link's is its transfers' energy.
  EXPECT_EQ(strings(file, "energy_totals", "owner"),
            (std::vector<std::string>{"cpu0", "gpu0", "dram", "hbm", "pcie0"}));
  EXPECT_EQ(strings(file, "energy_totals", "kind"),
            (std::vector<std::string>{"unit", "unit", "memory", "memory", "link"}));
  const auto tot_tc = column<double>(file, "energy_totals", "simulated_tensor_core_j");
  EXPECT_EQ(tot_tc[1], 2.0);
  EXPECT_EQ(column<double>(file, "energy_totals", "simulated_dram_j")[0], 0.125);
  EXPECT_EQ(column<double>(file, "energy_totals", "simulated_total_j")[1], 2.25);
  EXPECT_DOUBLE_EQ(column<double>(file, "energy_totals", "predicted_link_j")[4], 5e-9);
  EXPECT_DOUBLE_EQ(column<double>(file, "energy_totals", "predicted_compute_j")[1], 1.75);

  EXPECT_EQ(file.openGroup("model").getNumObjs(), 0u); // reserved for retrain
}

TEST(TraceWriter, PredictedOnlyHasNaNSimulatedColumnsAndEmptyCheck) {
  const std::string dir = test::temp_dir();
  const test::TraceFixture f = test::make_trace_fixture();
  const std::string path = dir + "/pred.h5";
  write_trace(path, inputs_of(f, false));
  H5::H5File file(path, H5F_ACC_RDONLY);
  EXPECT_EQ(int_attr(file.openGroup("meta"), "simulated"), 0);
  EXPECT_EQ(string_attr(file.openGroup("meta"), "graph_sha256"), ""); // graph.source empty
  for (double v : column<double>(file, "ops", "simulated_end_s"))
    EXPECT_TRUE(std::isnan(v));
  for (std::int32_t v : column<std::int32_t>(file, "ops", "simulated_lane"))
    EXPECT_EQ(v, -1);
  EXPECT_EQ(column<std::int32_t>(file, "transfers", "tensor").size(), 2u);
  EXPECT_TRUE(column<std::uint64_t>(file, "check", "count").empty());
  for (double v : column<double>(file, "op_energy", "simulated_compute_j"))
    EXPECT_TRUE(std::isnan(v));
  for (double v : column<double>(file, "energy_totals", "simulated_total_j"))
    EXPECT_TRUE(std::isnan(v));
  EXPECT_DOUBLE_EQ(double_attr(file.openDataSet("check"), "makespan_predicted_s"), 10);
  EXPECT_TRUE(std::isnan(double_attr(file.openDataSet("check"), "makespan_error")));
}

TEST(TraceWriter, ManyChunksStreamInOrder) {
  const std::string dir = test::temp_dir();
  const std::size_t n = 3 * 65536 + 17; // several full chunks and a partial one
  const test::TraceFixture f = test::make_large_fixture(n, true);
  const std::string path = dir + "/big.h5";
  write_trace(path, inputs_of(f, true));
  H5::H5File file(path, H5F_ACC_RDONLY);
  const auto op = column<std::int32_t>(file, "ops", "op");
  const auto se = column<double>(file, "ops", "simulated_end_s");
  const auto names = strings(file, "ops", "name");
  ASSERT_EQ(op.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(op[i], static_cast<std::int32_t>(i));
    ASSERT_EQ(se[i], f.simulated.ops[i].end_s);
  }
  EXPECT_EQ(names[n - 1], f.graph.ops[n - 1].name);
  EXPECT_EQ(names[65536], f.graph.ops[65536].name);

  // The partial last chunk is written without fill values: still the same bytes every time.
  write_trace(dir + "/again.h5", inputs_of(f, true));
  EXPECT_TRUE(file_bytes(path) == file_bytes(dir + "/again.h5"));
}

// ---- determinism ---------------------------------------------------------------------------------

TEST(TraceWriter, IdenticalInputsGiveIdenticalBytes) {
  const std::string dir = test::temp_dir();
  const test::TraceFixture f = test::make_trace_fixture();
  write_trace(dir + "/a.h5", inputs_of(f, true));
  // Past a second boundary: HDF5 object timestamps (if any were recorded) would differ.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  write_trace(dir + "/b.h5", inputs_of(f, true));
  const std::string a = file_bytes(dir + "/a.h5"), b = file_bytes(dir + "/b.h5");
  ASSERT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b) << "traces of identical inputs differ";

  TraceInputs other = inputs_of(f, true);
  other.created = "2030-12-31T23:59:59Z"; // same length: only the timestamp bytes may differ
  write_trace(dir + "/c.h5", other);
  const std::string c = file_bytes(dir + "/c.h5");
  ASSERT_EQ(a.size(), c.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    differing += a[i] != c[i];
  EXPECT_GT(differing, 0u);
  EXPECT_LE(differing, std::string("2030-12-31T23:59:59Z").size());
}

TEST(TraceWriter, TimestampFromEnvironmentOrClock) {
  const std::string dir = test::temp_dir();
  const test::TraceFixture f = test::make_trace_fixture();
  TraceInputs in = inputs_of(f, false);
  in.created.clear();
  ::setenv("LIGHTSIM_TRACE_TIMESTAMP", "fixed-by-env", 1);
  write_trace(dir + "/env.h5", in);
  ::unsetenv("LIGHTSIM_TRACE_TIMESTAMP");
  write_trace(dir + "/now.h5", in);
  EXPECT_EQ(string_attr(H5::H5File(dir + "/env.h5", H5F_ACC_RDONLY).openGroup("meta"), "created"),
            "fixed-by-env");
  const std::string now =
      string_attr(H5::H5File(dir + "/now.h5", H5F_ACC_RDONLY).openGroup("meta"), "created");
  ASSERT_EQ(now.size(), 20u) << now; // 2024-01-02T03:04:05Z
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.back(), 'Z');
}

// ---- bad paths (the atomic output itself: tests/sim/atomic_file_test.cc) ---------------------------

// Expects write_trace(path) to throw InputError naming `path` and containing `reason`, and `dir` to hold
// exactly `before` afterwards (no temporary, no partial trace).
void expect_rejected(const std::string& path, const std::string& reason, const std::string& dir,
                     const std::vector<std::string>& before) {
  const test::TraceFixture f = test::make_trace_fixture();
  try {
    write_trace(path, inputs_of(f, true));
    FAIL() << "no error for " << path;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path, 0), 0u) << msg;
    EXPECT_NE(msg.find(reason), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_EQ(dir_entries(dir), before);
}

TEST(TraceWriter, MissingDirectory) {
  const std::string dir = test::temp_dir();
  expect_rejected(dir + "/no/such/dir/run.h5", "does not exist", dir, {});
}

// A failure in the middle of writing (the file-size limit stops HDF5's writes, root included) must
// remove the temporary file and leave nothing under the final name.
TEST(TraceWriter, FailureMidWriteLeavesNoFile) {
  const std::string dir = test::temp_dir();
  const test::TraceFixture f = test::make_large_fixture(100000, false);
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 256 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string path = dir + "/big.h5";
  try {
    write_trace(path, inputs_of(f, false));
    ADD_FAILURE() << "no error although the file-size limit was hit";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path, 0), 0u) << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_EQ(dir_entries(dir), std::vector<std::string>{});
}

TEST(TraceWriter, UnreadableGraphFileCreatesNothing) {
  const std::string dir = test::temp_dir();
  test::TraceFixture f = test::make_trace_fixture();
  f.graph.source = dir + "/missing.json";
  try {
    write_trace(dir + "/run.h5", inputs_of(f, false));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dir_entries(dir), std::vector<std::string>{});
}

TEST(TraceWriter, InconsistentScheduleIsACallerBug) {
  const std::string dir = test::temp_dir();
  test::TraceFixture f = test::make_trace_fixture();
  f.simulated.ops.pop_back();
  EXPECT_THROW(write_trace(dir + "/run.h5", inputs_of(f, true)), std::invalid_argument);
  EXPECT_EQ(dir_entries(dir), std::vector<std::string>{});
}

// ---- h5py ----------------------------------------------------------------------------------------

// Runs the first ```python block of traces/README.md with Debian's python3 on a written trace.
TEST(TraceWriter, ReadmeExampleRunsWithH5py) {
  const char* python = "/usr/bin/python3";
  if (::access(python, X_OK) != 0) GTEST_SKIP() << python << " not found (scripts/setup.sh installs it)";
  if (std::system("/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null") != 0)
    GTEST_SKIP() << "h5py is not importable by /usr/bin/python3 (apt-get install python3-h5py)";

  std::ifstream readme(test::source_path("traces/README.md"));
  ASSERT_TRUE(readme) << "traces/README.md missing";
  std::string line, code;
  bool inside = false, done = false;
  while (!done && std::getline(readme, line)) {
    if (!inside && line == "```python")
      inside = true;
    else if (inside && line == "```")
      done = true;
    else if (inside)
      code += line + '\n';
  }
  ASSERT_TRUE(done) << "no ```python block in traces/README.md";

  const std::string dir = test::temp_dir();
  const test::TraceFixture f = test::make_trace_fixture();
  const std::string trace = dir + "/run.h5";
  write_trace(trace, inputs_of(f, true));
  std::ofstream(dir + "/example.py") << code;
  const std::string out = dir + "/out.txt";
  const std::string cmd = std::string(python) + " " + dir + "/example.py " + trace + " > " + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string printed = file_bytes(out);
  ASSERT_EQ(rc, 0) << printed;
  // The example prints the op count, the slowest simulated op and the check table.
  EXPECT_NE(printed.find("8 ops"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dense2"), std::string::npos) << printed;
  EXPECT_NE(printed.find("gpu0"), std::string::npos) << printed;
}

} // namespace
} // namespace lightsim::sim
