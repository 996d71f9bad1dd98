// The libFuzzer entry of one fuzz target (LIGHTSIM_FUZZ_TARGET names it, tests/fuzz/fuzz_entries.h), built
// with clang -fsanitize=fuzzer,address,undefined. Beyond the sanitizers' findings it enforces the project's
// bad-input rule on every input; a breach prints its figures and aborts, which libFuzzer reports as a crash
// with the input saved:
// - memory: while one input is parsed, the live heap may grow by at most kBytesPerInputByte (the target's
//   Target::bytes_per_input_byte) x the input's
//   size + kFixedBytes (the parser's fixed cost: the --set target's copy of the base config, error
//   messages). Malloc and free hooks keep the live bytes (AddressSanitizer's allocator gives each block's
//   size) and their peak while the input is parsed.
// - time: at most kCpuSecondsPerParse x the target's Target::parses_per_input of this thread's CPU time per
//   input (CPU, not wall-clock time, so that other work on a shared machine does not count; the build is
//   instrumented, so this is stricter than the same bound on a release build). libFuzzer's -timeout (wall
//   clock) is only the backstop for an input that never returns.
//
// It is not the parsers' test (tests/fuzz/regressions_test.cc runs the committed inputs in every build).
#include "sim/units/registry.h"
#include "tests/fuzz/fuzz_entries.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sanitizer/allocator_interface.h>
#include <systemc>

namespace {

constexpr std::size_t kBytesPerInputByte = 20;
constexpr std::size_t kFixedBytes = std::size_t{1} << 20;
constexpr double kCpuSecondsPerParse = 1.0;

void (*g_run)(std::string_view) = nullptr;
std::size_t g_bytes_per_input_byte = kBytesPerInputByte;
double g_cpu_seconds_per_input = kCpuSecondsPerParse;
bool g_tracking = false;
std::int64_t g_live = 0, g_peak = 0; // bytes allocated minus freed since the input began, and its maximum

void on_malloc(const volatile void*, std::size_t size) {
  if (!g_tracking) return;
  g_live += static_cast<std::int64_t>(size);
  g_peak = std::max(g_peak, g_live);
}
void on_free(const volatile void* block) {
  // Blocks allocated before the input began count too: freeing them lowers the live heap.
  if (g_tracking) g_live -= static_cast<std::int64_t>(__sanitizer_get_allocated_size(block));
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  lightsim::register_unit_kinds(); // the hardware_config and config_override targets load configs
  for (const lightsim::fuzz::Target& t : lightsim::fuzz::targets())
    if (std::strcmp(t.name, LIGHTSIM_FUZZ_TARGET) == 0) {
      g_run = t.run;
      g_bytes_per_input_byte = t.bytes_per_input_byte;
      g_cpu_seconds_per_input = kCpuSecondsPerParse * t.parses_per_input;
    }
  if (!g_run) {
    std::fprintf(stderr, "fuzz: no target named %s\n", LIGHTSIM_FUZZ_TARGET);
    std::abort();
  }
  g_run(""); // one-time state (the --set target's base config) outside the measured window
  __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  g_live = g_peak = 0;
  const double start = thread_cpu_seconds();
  g_tracking = true;
  g_run(input);
  g_tracking = false;
  const double cpu = thread_cpu_seconds() - start;
  if (cpu > g_cpu_seconds_per_input) {
    std::fprintf(stderr, "fuzz: %s took %.2f s of CPU time for an input of %zu bytes (bound %.1f s)\n",
                 LIGHTSIM_FUZZ_TARGET, cpu, size, g_cpu_seconds_per_input);
    std::abort();
  }
  const auto grew = static_cast<std::size_t>(g_peak), bound = g_bytes_per_input_byte * size + kFixedBytes;
  if (grew > bound) {
    std::fprintf(stderr, "fuzz: %s allocated up to %zu bytes for an input of %zu bytes (bound %zu)\n",
                 LIGHTSIM_FUZZ_TARGET, grew, size, bound);
    std::abort();
  }
  return 0;
}

// libsystemc.so (linked through the unit kinds' modules) needs an sc_main; libFuzzer's main() is the entry
// point, so this is never called.
int sc_main(int, char**) {
  return 1;
}
