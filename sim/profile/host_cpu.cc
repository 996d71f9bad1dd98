#include "sim/profile/host_cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

namespace lightsim::profile {
namespace {

std::string value_after_colon(const std::string& line) {
  const auto colon = line.find(':');
  std::string v = colon == std::string::npos ? "" : line.substr(colon + 1);
  v.erase(0, v.find_first_not_of(" \t"));
  return v;
}

std::string first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// sysfs sizes: "1024K", "32768K", "2M".
std::int64_t size_bytes(const std::string& text) {
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  const char unit = used < text.size() ? text[used] : ' ';
  return n * (unit == 'K' ? 1024LL : unit == 'M' ? 1024LL * 1024 : unit == 'G' ? 1024LL * 1024 * 1024 : 1);
}

bool has_flag(const std::string& flags, const std::string& flag) {
  std::istringstream in(flags);
  std::string f;
  while (in >> f)
    if (f == flag) return true;
  return false;
}

} // namespace

HostCpu read_host_cpu(const std::string& cpuinfo, const std::string& cache_dir) {
  HostCpu cpu;
  std::ifstream in(cpuinfo);
  std::string line, flags;
  while (std::getline(in, line)) {
    if (line.empty() && !cpu.model.empty()) break; // the first processor's block only
    if (line.rfind("model name", 0) == 0) cpu.model = value_after_colon(line);
    if (line.rfind("cpu MHz", 0) == 0) cpu.mhz = std::atof(value_after_colon(line).c_str());
    if (line.rfind("flags", 0) == 0) flags = value_after_colon(line);
  }
  cpu.fp32_lanes = has_flag(flags, "avx512f") ? 16
                   : has_flag(flags, "avx")   ? 8
                   : has_flag(flags, "sse")   ? 4
                                              : 0;
  cpu.fma = has_flag(flags, "fma");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const std::string level = first_line(entry.path() / "level");
    const std::string type = first_line(entry.path() / "type");
    const std::int64_t bytes = size_bytes(first_line(entry.path() / "size"));
    if (level == "1" && type == "Data") cpu.l1d_bytes = bytes;
    if (level == "2" && type != "Instruction") cpu.l2_bytes = bytes;
    if (level == "3" && type != "Instruction") cpu.l3_bytes = bytes;
  }
  return cpu;
}

CpuTimes read_cpu_times(const std::string& proc_stat) {
  std::ifstream in(proc_stat);
  std::string label;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  CpuTimes t;
  if (label != "cpu") return t;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  t.busy_s = (user + nice + system + irq + softirq) / tick;
  t.steal_s = steal / tick;
  t.idle_s = (idle + iowait) / tick;
  return t;
}

double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + 1e-6 * static_cast<double>(tv.tv_usec);
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

LoadReport classify_load(const CpuTimes& start, const CpuTimes& end, double self_cpu_s, double wall_s,
                         double max_other_cores) {
  LoadReport r;
  r.wall_s = wall_s;
  r.self_cpu_s = self_cpu_s;
  r.other_cpu_s = std::max(0.0, (end.busy_s - start.busy_s) - self_cpu_s);
  r.steal_s = std::max(0.0, end.steal_s - start.steal_s);
  r.other_cores = wall_s > 0 ? r.other_cpu_s / wall_s : 0;
  r.steal_cores = wall_s > 0 ? r.steal_s / wall_s : 0;
  char text[160];
  if (r.other_cores > max_other_cores) {
    std::snprintf(text, sizeof text, "other processes used %.2f cores on average (limit %.2f)", r.other_cores,
                  max_other_cores);
    r.disturbance = text;
  } else if (r.steal_cores > max_other_cores) {
    std::snprintf(text, sizeof text, "the hypervisor took %.2f cores on average (limit %.2f)", r.steal_cores,
                  max_other_cores);
    r.disturbance = text;
  }
  r.disturbed = !r.disturbance.empty();
  return r;
}

LoadMonitor::LoadMonitor(double max_other_cores)
    : max_other_cores_(max_other_cores), start_(read_cpu_times()), self_start_s_(process_cpu_s()),
      wall_start_(std::chrono::steady_clock::now()) {}

LoadReport LoadMonitor::report() const {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  return classify_load(start_, read_cpu_times(), process_cpu_s() - self_start_s_, wall, max_other_cores_);
}

} // namespace lightsim::profile
