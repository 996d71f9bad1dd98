// libsystemc.so brings its own main() that calls sc_main; lightsim's executables define main() in an
// object file (which wins) and this sc_main only so that the link succeeds. It is never called.
#include <systemc>

int sc_main(int, char**) {
  return 1;
}
