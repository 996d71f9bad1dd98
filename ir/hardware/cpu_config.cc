#include "ir/hardware/cpu_config.h"

#include <string>

namespace lightsim::ir::detail {
namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

std::string element_path(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

CacheLevel read_cache(ConfigObject o) {
  CacheLevel c;
  c.name = o.string("name");
  c.capacity_bytes = o.rate("capacity_MiB") * kBytesPerMiB;
  c.bandwidth_GBps = o.rate("bandwidth_GBps");
  if (o.optional("shared_GBps")) c.shared_GBps = o.rate("shared_GBps");
  o.finish();
  return c;
}

void read_caches(ConfigObject& o, CpuParams& cpu) {
  const nlohmann::json& caches = o.required("caches");
  if (!caches.is_array()) o.fail("caches", std::string("expected an array, found ") + caches.type_name());
  for (std::size_t i = 0; i < caches.size(); ++i) {
    const std::string path = element_path(o.key_path("caches"), i);
    cpu.caches.push_back(read_cache(ConfigObject(caches[i], o.source(), path)));
    if (i > 0 && cpu.caches[i].capacity_bytes <= cpu.caches[i - 1].capacity_bytes)
      ConfigObject(caches[i], o.source(), path)
          .fail("capacity_MiB", "must be larger than the previous level's (" + cpu.caches[i - 1].name + ", " +
                                    std::to_string(cpu.caches[i - 1].capacity_bytes / kBytesPerMiB) +
                                    " MiB), got " + caches[i].at("capacity_MiB").dump());
  }
}

void read_elementwise_ops(ConfigObject& o, CpuParams& cpu) {
  ConfigObject ops = o.object("elementwise_ops");
  for (const auto& item : ops.raw().items()) {
    const auto c = parse_op_class(item.key());
    if (!c) ops.fail(item.key(), "unknown op class '" + item.key() + "'");
    if (is_gemm_like(*c)) ops.fail(item.key(), "a GEMM's rate is gemm_efficiency, not elementwise_ops");
    cpu.elementwise_ops[static_cast<std::size_t>(*c)] = ops.non_negative(item.key());
  }
}

} // namespace

void read_cpu_params(ConfigObject& o, int cores, CpuParams& cpu) {
  cpu.vector_width = o.count("vector_width");
  cpu.fma = o.boolean("fma");
  cpu.dispatch_ns = o.non_negative("dispatch_ns");
  cpu.memory_port_GBps = o.rate("memory_port_GBps");
  if (o.optional("core_memory_GBps")) cpu.core_memory_GBps = o.rate("core_memory_GBps");
  if (o.optional("gemm_efficiency")) cpu.gemm_efficiency = o.rate("gemm_efficiency");
  if (o.optional("elementwise_ops")) read_elementwise_ops(o, cpu);
  if (o.optional("caches")) read_caches(o, cpu);
  cpu.intra_op_threads = o.count_or("intra_op_threads", 1);
  if (cpu.intra_op_threads > cores)
    o.fail("intra_op_threads", "must not exceed cores (" + std::to_string(cores) + "), got " +
                                   std::to_string(cpu.intra_op_threads));
  cpu.intra_op_min_rows = o.count_or("intra_op_min_rows", 1);
  cpu.intra_op_min_macs = o.non_negative_or("intra_op_min_macs", 0);
  if (o.has("intra_op_row_block")) cpu.intra_op_row_block = o.count("intra_op_row_block");
  cpu.intra_op_sync_ns = o.non_negative_or("intra_op_sync_ns", 0);
  cpu.concurrent_ops = o.count_or("concurrent_ops", 0);
  if (cpu.concurrent_ops > cores)
    o.fail("concurrent_ops", "must not exceed cores (" + std::to_string(cores) + "), got " +
                                 std::to_string(cpu.concurrent_ops));
}

void write_cpu_params(const CpuParams& cpu, nlohmann::json& j) {
  const CpuParams plain;
  j["vector_width"] = cpu.vector_width;
  j["fma"] = cpu.fma;
  j["dispatch_ns"] = cpu.dispatch_ns;
  j["memory_port_GBps"] = cpu.memory_port_GBps;
  if (cpu.core_memory_GBps != plain.core_memory_GBps) j["core_memory_GBps"] = cpu.core_memory_GBps;
  if (cpu.gemm_efficiency != plain.gemm_efficiency) j["gemm_efficiency"] = cpu.gemm_efficiency;
  nlohmann::json ops = nlohmann::json::object();
  for (std::size_t c = 0; c < kNumOpClasses; ++c)
    if (cpu.elementwise_ops[c] != plain.elementwise_ops[c])
      ops[std::string(op_class_name(static_cast<OpClass>(c)))] = cpu.elementwise_ops[c];
  if (!ops.empty()) j["elementwise_ops"] = ops;
  if (!cpu.caches.empty()) {
    nlohmann::json caches = nlohmann::json::array();
    for (const CacheLevel& c : cpu.caches) {
      nlohmann::json level = {{"name", c.name},
                              {"capacity_MiB", c.capacity_bytes / kBytesPerMiB},
                              {"bandwidth_GBps", c.bandwidth_GBps}};
      if (c.shared_GBps > 0) level["shared_GBps"] = c.shared_GBps;
      caches.push_back(level);
    }
    j["caches"] = caches;
  }
  if (cpu.intra_op_threads != plain.intra_op_threads) j["intra_op_threads"] = cpu.intra_op_threads;
  if (cpu.intra_op_min_rows != plain.intra_op_min_rows) j["intra_op_min_rows"] = cpu.intra_op_min_rows;
  if (cpu.intra_op_min_macs != plain.intra_op_min_macs) j["intra_op_min_macs"] = cpu.intra_op_min_macs;
  if (cpu.intra_op_row_block != plain.intra_op_row_block) j["intra_op_row_block"] = cpu.intra_op_row_block;
  if (cpu.intra_op_sync_ns != plain.intra_op_sync_ns) j["intra_op_sync_ns"] = cpu.intra_op_sync_ns;
  if (cpu.concurrent_ops > 0) j["concurrent_ops"] = cpu.concurrent_ops;
}

} // namespace lightsim::ir::detail
