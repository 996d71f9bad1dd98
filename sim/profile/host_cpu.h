// This machine's CPU as lightsim-profile records it: what the CPU module needs to describe it (clock,
// SIMD lanes, cache sizes, from /proc/cpuinfo and sysfs), and how busy the machine was while a profile ran
// (other processes' CPU time and hypervisor steal time from /proc/stat, against the profiler's own CPU
// time), so that a profile taken while other work competed for the cores is marked as disturbed.
//
// It is not a benchmark of the machine (no bandwidths are measured here) nor a process monitor.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace lightsim::profile {

struct HostCpu {
  std::string model;           // "model name"
  double mhz = 0;              // "cpu MHz" of the first CPU (nominal in a VM)
  std::int32_t fp32_lanes = 0; // per SIMD instruction: 16 with avx512f, 8 with avx, 4 with sse
  bool fma = false;
  std::int64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0; // one instance of each
};
// From a cpuinfo file and a cpu0/cache directory (sysfs layout: index*/level, type, size); fields the
// files lack stay 0.
HostCpu read_host_cpu(const std::string& cpuinfo = "/proc/cpuinfo",
                      const std::string& cache_dir = "/sys/devices/system/cpu/cpu0/cache");

// The machine-wide CPU time counters of /proc/stat's "cpu" line, in seconds.
struct CpuTimes {
  double busy_s = 0;  // user + nice + system + irq + softirq
  double steal_s = 0; // taken by the hypervisor for other guests
  double idle_s = 0;  // idle + iowait
};
CpuTimes read_cpu_times(const std::string& proc_stat = "/proc/stat");
// CPU time of this process, every thread, user + system (getrusage).
double process_cpu_s();

struct LoadReport {
  double wall_s = 0;
  double self_cpu_s = 0;  // the profiler's own threads
  double other_cpu_s = 0; // every other process: machine busy time - self (>= 0)
  double steal_s = 0;
  double other_cores = 0; // other_cpu_s / wall_s: cores' worth of competing work, on average
  double steal_cores = 0; // steal_s / wall_s
  bool disturbed = false;
  std::string disturbance; // why, when disturbed ("" otherwise)
};
// Disturbed when other processes or the hypervisor took more than `max_other_cores` cores' worth of time
// on average over the profile (a profile pinned to some cores is still disturbed by work on the others:
// they share caches and the memory port).
LoadReport classify_load(const CpuTimes& start, const CpuTimes& end, double self_cpu_s, double wall_s,
                         double max_other_cores);

// Samples the counters at construction; report() classifies the time since.
class LoadMonitor {
public:
  explicit LoadMonitor(double max_other_cores);
  LoadReport report() const;

private:
  double max_other_cores_;
  CpuTimes start_;
  double self_start_s_;
  std::chrono::steady_clock::time_point wall_start_;
};

} // namespace lightsim::profile
