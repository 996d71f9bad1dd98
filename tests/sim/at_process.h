// At: a SystemC module whose one thread runs a callback at a given simulated time, so that a module test
// can issue requests to the module under test at the times its hand computation assumes. A test helper,
// not part of any simulated machine.
#pragma once

#include <functional>
#include <systemc>
#include <utility>

namespace lightsim::test {

struct At : sc_core::sc_module {
  std::function<void()> body;
  double at_ns;
  SC_HAS_PROCESS(At);
  At(sc_core::sc_module_name n, double at, std::function<void()> f)
      : sc_core::sc_module(n), body(std::move(f)), at_ns(at) {
    SC_THREAD(run);
  }
  void run() {
    wait(sc_core::sc_time(at_ns, sc_core::SC_NS));
    body();
  }
};

} // namespace lightsim::test
