// The main() of the benchmarks that load hardware configs: the unit kinds are registered first
// (sim/units/registry.h), then Google Benchmark runs. It is an object file, so that it, not the main() in
// libsystemc.so, is the entry point; the sc_main below only satisfies the link and is never called.
#include "sim/units/registry.h"

#include <benchmark/benchmark.h>
#include <systemc>

int main(int argc, char** argv) {
  lightsim::register_unit_kinds();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

int sc_main(int, char**) {
  return 1;
}
