// Every binary that links SystemC needs an sc_main. The tests' main() comes from tests/test_main.cc; if
// SystemC's own main() ever ran instead, this stub makes the binary fail rather than pass silently.
#include <systemc>

int sc_main(int, char**) {
  return 3;
}
