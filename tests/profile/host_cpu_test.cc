// How lightsim-profile describes this machine and its load (sim/profile/host_cpu.h): the CPU from a
// cpuinfo file and a sysfs cache directory, the /proc/stat counters, and the classification of a profile
// as disturbed from the CPU time others took while it ran, on fixed inputs (no timing is asserted).
#include "sim/profile/host_cpu.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace lightsim::profile {
namespace {

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(HostCpu, ReadsModelClockLanesAndCachesFromItsFiles) {
  const std::filesystem::path dir = test::temp_dir() + "/host_cpu";
  write(dir / "cpuinfo", "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2596.102\n"
                         "flags\t\t: fpu sse sse2 avx fma avx2 avx512f\n\nprocessor\t: 1\n"
                         "model name\t: Other\n");
  const auto cache = dir / "cache";
  write(cache / "index0" / "level", "1\n");
  write(cache / "index0" / "type", "Data\n");
  write(cache / "index0" / "size", "32K\n");
  write(cache / "index1" / "level", "1\n");
  write(cache / "index1" / "type", "Instruction\n");
  write(cache / "index1" / "size", "32K\n");
  write(cache / "index2" / "level", "2\n");
  write(cache / "index2" / "type", "Unified\n");
  write(cache / "index2" / "size", "1024K\n");
  write(cache / "index3" / "level", "3\n");
  write(cache / "index3" / "type", "Unified\n");
  write(cache / "index3" / "size", "32768K\n");
  const HostCpu cpu = read_host_cpu((dir / "cpuinfo").string(), cache.string());
  EXPECT_EQ(cpu.model, "AMD EPYC");
  EXPECT_DOUBLE_EQ(cpu.mhz, 2596.102);
  EXPECT_EQ(cpu.fp32_lanes, 16);
  EXPECT_TRUE(cpu.fma);
  EXPECT_EQ(cpu.l1d_bytes, 32 * 1024);
  EXPECT_EQ(cpu.l2_bytes, 1024 * 1024);
  EXPECT_EQ(cpu.l3_bytes, 32LL * 1024 * 1024);
  // Missing files leave zeros, not an error.
  const HostCpu none = read_host_cpu((dir / "absent").string(), (dir / "absent").string());
  EXPECT_EQ(none.fp32_lanes, 0);
  EXPECT_EQ(none.l2_bytes, 0);
}

TEST(HostCpu, ReadsTheMachineWideCounters) {
  const std::filesystem::path stat = test::temp_dir() + "/host_cpu/stat";
  // user nice system idle iowait irq softirq steal
  write(stat, "cpu  100 20 30 400 10 5 5 7 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  const CpuTimes t = read_cpu_times(stat.string());
  EXPECT_DOUBLE_EQ(t.busy_s, 160 / tick);
  EXPECT_DOUBLE_EQ(t.steal_s, 7 / tick);
  EXPECT_DOUBLE_EQ(t.idle_s, 410 / tick);
  // This process's own CPU time is counted and grows.
  EXPECT_GE(process_cpu_s(), 0.0);
}

// A 2 s profile that used 2.0 s of CPU itself: the machine was busy 2.1 s (quiet: 0.05 cores of others),
// 3.5 s (disturbed: 0.75 cores of others), or the hypervisor stole 0.4 s (disturbed: 0.2 cores).
TEST(HostCpu, ClassifiesAProfileByTheCpuTimeOthersTook) {
  const CpuTimes start{.busy_s = 100, .steal_s = 1, .idle_s = 50};
  CpuTimes end{.busy_s = 102.1, .steal_s = 1, .idle_s = 51.9};
  const LoadReport quiet = classify_load(start, end, 2.0, 2.0, 0.1);
  EXPECT_FALSE(quiet.disturbed);
  EXPECT_NEAR(quiet.other_cpu_s, 0.1, 1e-9);
  EXPECT_NEAR(quiet.other_cores, 0.05, 1e-9);
  EXPECT_TRUE(quiet.disturbance.empty());

  end.busy_s = 103.5;
  const LoadReport busy = classify_load(start, end, 2.0, 2.0, 0.1);
  EXPECT_TRUE(busy.disturbed);
  EXPECT_NEAR(busy.other_cores, 0.75, 1e-9);
  EXPECT_NE(busy.disturbance.find("other processes used 0.75 cores"), std::string::npos) << busy.disturbance;

  end.busy_s = 102.0;
  end.steal_s = 1.4;
  const LoadReport stolen = classify_load(start, end, 2.0, 2.0, 0.1);
  EXPECT_TRUE(stolen.disturbed);
  EXPECT_NEAR(stolen.steal_cores, 0.2, 1e-9);
  EXPECT_NE(stolen.disturbance.find("hypervisor"), std::string::npos) << stolen.disturbance;

  // The counters' tick rounding can put the machine's busy time below the process's own: never negative.
  end.busy_s = 101.9;
  end.steal_s = 1;
  EXPECT_DOUBLE_EQ(classify_load(start, end, 2.0, 2.0, 0.1).other_cpu_s, 0);
  // A higher limit accepts the busy profile.
  end.busy_s = 103.5;
  EXPECT_FALSE(classify_load(start, end, 2.0, 2.0, 1.0).disturbed);
}

} // namespace
} // namespace lightsim::profile
