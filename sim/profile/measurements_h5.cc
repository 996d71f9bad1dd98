// HDF5 reading and writing of measurement files (layout in sim/profile/README.md).
#include "ir/error.h"
#include "sim/io/atomic_file.h"
#include "sim/profile/measurements.h"

#include <H5Cpp.h>
#include <cstddef>
#include <filesystem>
#include <type_traits>

namespace lightsim::profile {
namespace {

constexpr const char* kFormat = "lightsim-measurements";
constexpr std::int32_t kFormatVersion = 1;

// One row of /ops as it sits in memory for HDF5 (variable-length strings as char*).
struct Row {
  std::int32_t op_id, node_index;
  const char* name;
  const char* func_name;
  const char* op_class;
  const char* fused_tail; // comma-separated class names, "" when none
  const char* input_shapes;
  const char* output_shapes;
  double macs, elements_in, elements_out, bytes_in, bytes_out, bytes_read, elements_read, max_dim;
  std::int64_t gemm_batch, gemm_m, gemm_n, gemm_k;
  std::int32_t samples, batch;
  double median_s, min_s, p90_s, in_graph_median_s, in_graph_min_s;
  std::uint64_t checksum;
};

H5::CompType row_type() {
  const H5::StrType str(H5::PredType::C_S1, H5T_VARIABLE);
  H5::CompType t(sizeof(Row));
  const auto i32 = H5::PredType::NATIVE_INT32, i64 = H5::PredType::NATIVE_INT64;
  const auto f64 = H5::PredType::NATIVE_DOUBLE;
#define LIGHTSIM_FIELD(name, type) t.insertMember(#name, offsetof(Row, name), type)
  LIGHTSIM_FIELD(op_id, i32);
  LIGHTSIM_FIELD(node_index, i32);
  LIGHTSIM_FIELD(name, str);
  LIGHTSIM_FIELD(func_name, str);
  LIGHTSIM_FIELD(op_class, str);
  LIGHTSIM_FIELD(fused_tail, str);
  LIGHTSIM_FIELD(input_shapes, str);
  LIGHTSIM_FIELD(output_shapes, str);
  LIGHTSIM_FIELD(macs, f64);
  LIGHTSIM_FIELD(elements_in, f64);
  LIGHTSIM_FIELD(elements_out, f64);
  LIGHTSIM_FIELD(bytes_in, f64);
  LIGHTSIM_FIELD(bytes_out, f64);
  LIGHTSIM_FIELD(bytes_read, f64);
  LIGHTSIM_FIELD(elements_read, f64);
  LIGHTSIM_FIELD(max_dim, f64);
  LIGHTSIM_FIELD(gemm_batch, i64);
  LIGHTSIM_FIELD(gemm_m, i64);
  LIGHTSIM_FIELD(gemm_n, i64);
  LIGHTSIM_FIELD(gemm_k, i64);
  LIGHTSIM_FIELD(samples, i32);
  LIGHTSIM_FIELD(batch, i32);
  LIGHTSIM_FIELD(median_s, f64);
  LIGHTSIM_FIELD(min_s, f64);
  LIGHTSIM_FIELD(p90_s, f64);
  LIGHTSIM_FIELD(in_graph_median_s, f64);
  LIGHTSIM_FIELD(in_graph_min_s, f64);
  LIGHTSIM_FIELD(checksum, H5::PredType::NATIVE_UINT64);
#undef LIGHTSIM_FIELD
  return t;
}

void put(H5::H5Object& obj, const char* name, const std::string& value) {
  const H5::StrType str(H5::PredType::C_S1, H5T_VARIABLE);
  obj.createAttribute(name, str, H5::DataSpace(H5S_SCALAR)).write(str, value);
}
template <class T> void put(H5::H5Object& obj, const char* name, const H5::PredType& type, T value) {
  obj.createAttribute(name, type, H5::DataSpace(H5S_SCALAR)).write(type, &value);
}

std::string get_string(const H5::H5Object& obj, const char* name) {
  const H5::Attribute a = obj.openAttribute(name);
  std::string value;
  a.read(a.getStrType(), value);
  return value;
}
template <class T> T get(const H5::H5Object& obj, const char* name, const H5::PredType& type) {
  T value{};
  obj.openAttribute(name).read(type, &value);
  return value;
}

std::string join_classes(const std::vector<ir::OpClass>& classes) {
  std::string text;
  for (ir::OpClass c : classes) {
    if (!text.empty()) text += ",";
    text += ir::op_class_name(c);
  }
  return text;
}

ir::OpClass class_from(const std::string& path, const std::string& name) {
  const auto c = ir::parse_op_class(name);
  if (!c) throw InputError(path, "/ops: unknown op class '" + name + "'");
  return *c;
}

// The CPU description and the load report (absent from older files: left at their defaults).
void write_cpu_and_load(H5::H5Object& h5, const MachineInfo& m) {
  const auto f64 = H5::PredType::NATIVE_DOUBLE, i32 = H5::PredType::NATIVE_INT32,
             i64 = H5::PredType::NATIVE_INT64;
  put(h5, "cpu_mhz", f64, m.cpu_mhz);
  put(h5, "simd_fp32_lanes", i32, m.simd_fp32_lanes);
  put(h5, "fma", i32, static_cast<std::int32_t>(m.fma));
  put(h5, "l1d_cache_bytes", i64, m.l1d_cache_bytes);
  put(h5, "l2_cache_bytes", i64, m.l2_cache_bytes);
  put(h5, "l3_cache_bytes", i64, m.l3_cache_bytes);
  put(h5, "threading", m.threading);
  put(h5, "intra_op_min_rows", i32, m.intra_op_min_rows);
  put(h5, "intra_op_min_macs", f64, m.intra_op_min_macs);
  put(h5, "intra_op_row_block", i32, m.intra_op_row_block);
  put(h5, "load_average_end", m.load_average_end);
  put(h5, "self_cpu_s", f64, m.self_cpu_s);
  put(h5, "other_cpu_s", f64, m.other_cpu_s);
  put(h5, "steal_s", f64, m.steal_s);
  put(h5, "other_load_cores", f64, m.other_load_cores);
  put(h5, "steal_cores", f64, m.steal_cores);
  put(h5, "max_other_load_cores", f64, m.max_other_load_cores);
  put(h5, "disturbed", i32, static_cast<std::int32_t>(m.disturbed));
  put(h5, "disturbance", m.disturbance);
}

void read_cpu_and_load(const H5::H5Object& h5, MachineInfo& m) {
  const auto f64 = H5::PredType::NATIVE_DOUBLE, i32 = H5::PredType::NATIVE_INT32,
             i64 = H5::PredType::NATIVE_INT64;
  const auto number = [&](const char* name, auto& value, const H5::PredType& type) {
    if (h5.attrExists(name)) value = get<std::remove_reference_t<decltype(value)>>(h5, name, type);
  };
  const auto text = [&](const char* name, std::string& value) {
    if (h5.attrExists(name)) value = get_string(h5, name);
  };
  std::int32_t fma = 0, disturbed = 0;
  number("cpu_mhz", m.cpu_mhz, f64);
  number("simd_fp32_lanes", m.simd_fp32_lanes, i32);
  number("fma", fma, i32);
  number("l1d_cache_bytes", m.l1d_cache_bytes, i64);
  number("l2_cache_bytes", m.l2_cache_bytes, i64);
  number("l3_cache_bytes", m.l3_cache_bytes, i64);
  text("threading", m.threading);
  number("intra_op_min_rows", m.intra_op_min_rows, i32);
  number("intra_op_min_macs", m.intra_op_min_macs, f64);
  number("intra_op_row_block", m.intra_op_row_block, i32);
  text("load_average_end", m.load_average_end);
  number("self_cpu_s", m.self_cpu_s, f64);
  number("other_cpu_s", m.other_cpu_s, f64);
  number("steal_s", m.steal_s, f64);
  number("other_load_cores", m.other_load_cores, f64);
  number("steal_cores", m.steal_cores, f64);
  number("max_other_load_cores", m.max_other_load_cores, f64);
  number("disturbed", disturbed, i32);
  text("disturbance", m.disturbance);
  m.fma = fma != 0;
  m.disturbed = disturbed != 0;
}

void write_file(const std::string& path, const MeasurementFile& f) {
  H5::H5File h5(path, H5F_ACC_TRUNC);
  put(h5, "format", kFormat);
  put(h5, "format_version", H5::PredType::NATIVE_INT32, kFormatVersion);
  put(h5, "graph", f.graph);
  put(h5, "lightsim_revision", f.lightsim_revision);
  put(h5, "unit", f.machine.unit);
  put(h5, "cpu_model", f.machine.cpu_model);
  put(h5, "logical_cpus", H5::PredType::NATIVE_INT32, f.machine.logical_cpus);
  put(h5, "threads", H5::PredType::NATIVE_INT32, f.machine.threads);
  put(h5, "compiler", f.machine.compiler);
  put(h5, "compiler_flags", f.machine.compiler_flags);
  put(h5, "eigen_version", f.machine.eigen_version);
  put(h5, "load_average", f.machine.load_average);
  write_cpu_and_load(h5, f.machine);
  if (f.machine.unit == "gpu") {
    const GpuInfo& g = f.machine.gpu;
    const auto i32 = H5::PredType::NATIVE_INT32;
    put(h5, "gpu_name", g.name);
    put(h5, "gpu_compute_capability", g.compute_capability);
    put(h5, "gpu_sm_count", i32, g.sm_count);
    put(h5, "gpu_clock_khz", i32, g.clock_khz);
    put(h5, "gpu_memory_clock_khz", i32, g.memory_clock_khz);
    put(h5, "gpu_memory_bus_bits", i32, g.memory_bus_bits);
    put(h5, "gpu_memory_bytes", H5::PredType::NATIVE_UINT64, g.memory_bytes);
    put(h5, "cuda_driver_version", i32, g.driver_version);
    put(h5, "cuda_runtime_version", i32, g.runtime_version);
    put(h5, "cublas_version", i32, g.cublas_version);
    put(h5, "cuda_compiler", g.cuda_compiler);
    put(h5, "cuda_flags", g.cuda_flags);
  }
  put(h5, "seed", H5::PredType::NATIVE_UINT64, f.seed);
  put(h5, "end_to_end_median_s", H5::PredType::NATIVE_DOUBLE, f.end_to_end_median_s);
  put(h5, "end_to_end_min_s", H5::PredType::NATIVE_DOUBLE, f.end_to_end_min_s);
  put(h5, "profile_wall_s", H5::PredType::NATIVE_DOUBLE, f.profile_wall_s);

  const hsize_t runs = f.end_to_end_s.size();
  H5::DataSet e2e = h5.createDataSet("end_to_end_s", H5::PredType::NATIVE_DOUBLE, H5::DataSpace(1, &runs));
  if (runs) e2e.write(f.end_to_end_s.data(), H5::PredType::NATIVE_DOUBLE);

  std::vector<std::string> tails, classes; // owners of the row's class strings
  tails.reserve(f.ops.size());
  classes.reserve(f.ops.size());
  std::vector<Row> rows;
  rows.reserve(f.ops.size());
  for (const Measurement& m : f.ops) {
    tails.push_back(join_classes(m.features.fused_tail));
    classes.emplace_back(ir::op_class_name(m.op_class));
    const ir::OpFeatures& x = m.features;
    rows.push_back({m.op_id,
                    m.node_index,
                    m.name.c_str(),
                    m.func_name.c_str(),
                    classes.back().c_str(),
                    tails.back().c_str(),
                    m.input_shapes.c_str(),
                    m.output_shapes.c_str(),
                    x.macs,
                    x.elements_in,
                    x.elements_out,
                    x.bytes_in,
                    x.bytes_out,
                    x.bytes_read,
                    x.elements_read,
                    x.max_dim,
                    x.gemm_batch,
                    x.gemm_m,
                    x.gemm_n,
                    x.gemm_k,
                    m.samples,
                    m.batch,
                    m.median_s,
                    m.min_s,
                    m.p90_s,
                    m.in_graph_median_s,
                    m.in_graph_min_s,
                    m.checksum});
  }
  const hsize_t n = rows.size();
  const H5::CompType type = row_type();
  H5::DataSet ops = h5.createDataSet("ops", type, H5::DataSpace(1, &n));
  if (n) ops.write(rows.data(), type);
  h5.close();
}

} // namespace

void write_measurement_file(const std::string& path, const MeasurementFile& file) {
  H5::Exception::dontPrint();
  AtomicOutput output(path, "measurement file");
  try {
    write_file(output.temp_path(), file);
  } catch (const H5::Exception& e) {
    throw output.error(e.getDetailMsg());
  }
  output.commit();
}

MeasurementFile read_measurement_file(const std::string& path) {
  H5::Exception::dontPrint();
  if (!std::filesystem::is_regular_file(path)) throw InputError(path, "no such measurement file");
  MeasurementFile f;
  try {
    const H5::H5File h5(path, H5F_ACC_RDONLY);
    if (!h5.attrExists("format") || get_string(h5, "format") != kFormat)
      throw InputError(path, "not a lightsim measurement file (attribute 'format' is not '" +
                                 std::string(kFormat) + "')");
    const auto version = get<std::int32_t>(h5, "format_version", H5::PredType::NATIVE_INT32);
    if (version != kFormatVersion)
      throw InputError(path, "measurement file format_version " + std::to_string(version) + ", expected " +
                                 std::to_string(kFormatVersion));
    f.graph = get_string(h5, "graph");
    f.lightsim_revision = get_string(h5, "lightsim_revision");
    f.machine.unit = get_string(h5, "unit");
    f.machine.cpu_model = get_string(h5, "cpu_model");
    f.machine.logical_cpus = get<std::int32_t>(h5, "logical_cpus", H5::PredType::NATIVE_INT32);
    f.machine.threads = get<std::int32_t>(h5, "threads", H5::PredType::NATIVE_INT32);
    f.machine.compiler = get_string(h5, "compiler");
    f.machine.compiler_flags = get_string(h5, "compiler_flags");
    f.machine.eigen_version = get_string(h5, "eigen_version");
    f.machine.load_average = get_string(h5, "load_average");
    read_cpu_and_load(h5, f.machine);
    if (h5.attrExists("gpu_name")) {
      GpuInfo& g = f.machine.gpu;
      const auto i32 = H5::PredType::NATIVE_INT32;
      g.name = get_string(h5, "gpu_name");
      g.compute_capability = get_string(h5, "gpu_compute_capability");
      g.sm_count = get<std::int32_t>(h5, "gpu_sm_count", i32);
      g.clock_khz = get<std::int32_t>(h5, "gpu_clock_khz", i32);
      g.memory_clock_khz = get<std::int32_t>(h5, "gpu_memory_clock_khz", i32);
      g.memory_bus_bits = get<std::int32_t>(h5, "gpu_memory_bus_bits", i32);
      g.memory_bytes = get<std::uint64_t>(h5, "gpu_memory_bytes", H5::PredType::NATIVE_UINT64);
      g.driver_version = get<std::int32_t>(h5, "cuda_driver_version", i32);
      g.runtime_version = get<std::int32_t>(h5, "cuda_runtime_version", i32);
      g.cublas_version = get<std::int32_t>(h5, "cublas_version", i32);
      g.cuda_compiler = get_string(h5, "cuda_compiler");
      g.cuda_flags = get_string(h5, "cuda_flags");
    }
    f.seed = get<std::uint64_t>(h5, "seed", H5::PredType::NATIVE_UINT64);
    f.end_to_end_median_s = get<double>(h5, "end_to_end_median_s", H5::PredType::NATIVE_DOUBLE);
    f.end_to_end_min_s = get<double>(h5, "end_to_end_min_s", H5::PredType::NATIVE_DOUBLE);
    f.profile_wall_s = get<double>(h5, "profile_wall_s", H5::PredType::NATIVE_DOUBLE);

    const H5::DataSet e2e = h5.openDataSet("end_to_end_s");
    f.end_to_end_s.resize(static_cast<std::size_t>(e2e.getSpace().getSimpleExtentNpoints()));
    if (!f.end_to_end_s.empty()) e2e.read(f.end_to_end_s.data(), H5::PredType::NATIVE_DOUBLE);

    const H5::DataSet ops = h5.openDataSet("ops");
    const H5::DataSpace space = ops.getSpace();
    std::vector<Row> rows(static_cast<std::size_t>(space.getSimpleExtentNpoints()));
    if (rows.empty()) return f;
    const H5::CompType type = row_type();
    ops.read(rows.data(), type);
    try {
      for (const Row& r : rows) {
        Measurement m;
        m.op_id = r.op_id;
        m.node_index = r.node_index;
        m.name = r.name ? r.name : "";
        m.func_name = r.func_name ? r.func_name : "";
        m.op_class = class_from(path, r.op_class ? r.op_class : "");
        std::vector<ir::OpClass> tail;
        for (std::string_view rest = r.fused_tail ? r.fused_tail : ""; !rest.empty();) {
          const auto comma = rest.find(',');
          tail.push_back(class_from(path, std::string(rest.substr(0, comma))));
          rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
        m.input_shapes = r.input_shapes ? r.input_shapes : "";
        m.output_shapes = r.output_shapes ? r.output_shapes : "";
        m.features = {.macs = r.macs,
                      .elements_in = r.elements_in,
                      .elements_out = r.elements_out,
                      .bytes_in = r.bytes_in,
                      .bytes_out = r.bytes_out,
                      .bytes_read = r.bytes_read,
                      .elements_read = r.elements_read,
                      .max_dim = r.max_dim,
                      .gemm_batch = r.gemm_batch,
                      .gemm_m = r.gemm_m,
                      .gemm_n = r.gemm_n,
                      .gemm_k = r.gemm_k,
                      .fused_tail = std::move(tail)};
        m.samples = r.samples;
        m.batch = r.batch;
        m.median_s = r.median_s;
        m.min_s = r.min_s;
        m.p90_s = r.p90_s;
        m.in_graph_median_s = r.in_graph_median_s;
        m.in_graph_min_s = r.in_graph_min_s;
        m.checksum = r.checksum;
        f.ops.push_back(std::move(m));
      }
    } catch (...) {
      H5::DataSet::vlenReclaim(rows.data(), type, space);
      throw;
    }
    H5::DataSet::vlenReclaim(rows.data(), type, space);
  } catch (const H5::Exception& e) {
    throw InputError(path, "cannot read the measurement file (" + e.getDetailMsg() + ")");
  }
  return f;
}

std::vector<Measurement> read_measurements(const std::string& path) {
  return read_measurement_file(path).ops;
}

} // namespace lightsim::profile
