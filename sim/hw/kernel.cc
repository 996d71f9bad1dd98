#include "sim/hw/kernel.h"

#include <cstdlib>
#include <systemc>
#include <vector>

namespace lightsim::sim {

void fresh_simulation() {
  // Read by SystemC when a context first elaborates; keeps the banner off every stream.
  ::setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
  static std::vector<sc_core::sc_simcontext*>* retired = new std::vector<sc_core::sc_simcontext*>();
  if (sc_core::sc_curr_simcontext != nullptr) retired->push_back(sc_core::sc_curr_simcontext);
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

} // namespace lightsim::sim
