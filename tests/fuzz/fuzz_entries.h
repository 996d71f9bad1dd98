// Fuzz entries: what one fuzz input does to each of the parsers that read user files, the way the tools
// call them. An input is accepted, or rejected with an InputError whose message is one non-empty line;
// anything else (another exception, a crash, a sanitizer report) is a finding. The libFuzzer targets
// (tests/fuzz/libfuzzer_main.cc, built with LIGHTSIM_FUZZ) and the regression test (every committed
// input under tests/fuzz/regressions/ and seeds/, in every build) call these same functions.
//
// It is not a fuzzer: no mutation, no coverage, no time or memory limit here (libFuzzer sets those).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lightsim::fuzz {

// The TVM graph importer (ir/tvm): the input is a graph file's text. Unknown ops are tried as an error
// and, when that rejects the graph, as CPU ops (--unknown-op cpu).
void tvm_import(std::string_view input);
// The ONNX importer (ir/onnx): the input is a model file's bytes, imported with a few common symbolic
// dimension names bound; unknown ops as an error, then as CPU ops.
void onnx_import(std::string_view input);
// The hardware config loader (ir/hardware): parse and validate; a config that loads must write out
// (hardware_to_json) and load back to the same Hardware.
void hardware_config(std::string_view input);
// The `--set` override parser (ir/hardware/config_override): each input line is one KEY=VALUE argument,
// applied to tests/fuzz/config_override_base.json and validated, as `lightsim --set` does.
void config_override(std::string_view input);
// The graphgen model config reader (ir/graphgen/model_spec): a Hugging Face style config.json; a model
// that loads is resolved for a one-token prefill.
void model_config(std::string_view input);

struct Target {
  const char* name;
  void (*run)(std::string_view input);
  // The live heap may grow by this much per input byte (libfuzzer_main.cc). 20 for the JSON parsers; the
  // ONNX target's protobuf objects are larger than their wire form (an empty NodeProto is 2 bytes on the
  // wire and ~200 in memory), so its bound is that of protobuf's object model.
  unsigned bytes_per_input_byte = 20;
  // How many times the target parses one input at most: 2 for the importers, which parse a rejected
  // graph again with unknown ops as CPU ops. The CPU-time bound (libfuzzer_main.cc) is per parse.
  unsigned parses_per_input = 1;
};
// Every target, by name (the fuzz executables are fuzz_<name>).
const std::vector<Target>& targets();

} // namespace lightsim::fuzz
