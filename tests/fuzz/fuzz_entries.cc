#include "tests/fuzz/fuzz_entries.h"

#include "ir/error.h"
#include "ir/graphgen/model_spec.h"
#include "ir/hardware/config_override.h"
#include "ir/hardware/hardware.h"
#include "ir/onnx/onnx_import.h"
#include "ir/tvm/tvm_import.h"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace lightsim::fuzz {
namespace {

// A rejection must be one clear line (the tools print it verbatim and exit 2).
void check_message(const InputError& e) {
  const std::string_view message = e.what();
  if (message.empty() || message.find_first_of("\n\r") != std::string_view::npos) {
    std::fprintf(stderr, "fuzz: InputError message is not one non-empty line: [%.*s]\n",
                 static_cast<int>(message.size()), message.data());
    std::abort();
  }
}

template <class F> void accept_or_reject(F&& parse) {
  try {
    parse();
  } catch (const InputError& e) {
    check_message(e);
  }
}

// A small machine with every kind of unit, memory and link (the test suite's small_machine): the same
// structure as configs/photonic.json at a tenth of the size, so that the fixed cost of each input (copying
// and validating the base) does not dominate the fuzzer's rate.
const nlohmann::json& base_config() {
  static const nlohmann::json config =
      ir::read_hardware_config(std::string(LIGHTSIM_SOURCE_DIR) + "/tests/fuzz/config_override_base.json");
  return config;
}

} // namespace

void tvm_import(std::string_view input) {
  try {
    ir::import_tvm_graph_text(input, "fuzz.json", {ir::UnknownOpPolicy::Error});
  } catch (const InputError& e) {
    check_message(e);
    accept_or_reject([&] { ir::import_tvm_graph_text(input, "fuzz.json", {ir::UnknownOpPolicy::Cpu}); });
  }
}

void onnx_import(std::string_view input) {
  ir::ImportOptions options;
  options.dims = {{"N", 2}, {"batch", 2}, {"seq", 8}, {"sequence_length", 8}, {"height", 32}, {"width", 32}};
  try {
    ir::import_onnx_bytes(input, "fuzz.onnx", options);
  } catch (const InputError& e) {
    check_message(e);
    options.unknown_ops = ir::UnknownOpPolicy::Cpu;
    accept_or_reject([&] { ir::import_onnx_bytes(input, "fuzz.onnx", options); });
  }
}

void hardware_config(std::string_view input) {
  accept_or_reject([&] {
    const ir::Hardware hw =
        ir::hardware_from_json(ir::parse_hardware_config(input, "fuzz.json"), "fuzz.json");
    const ir::Hardware again = ir::hardware_from_json(ir::hardware_to_json(hw), "fuzz.json");
    if (!(again == hw)) {
      std::fprintf(stderr, "fuzz: the config does not load back the same after hardware_to_json\n");
      std::abort();
    }
  });
}

void config_override(std::string_view input) {
  std::vector<std::string> arguments;
  for (std::size_t begin = 0; begin <= input.size();) {
    const std::size_t end = std::min(input.find('\n', begin), input.size());
    arguments.emplace_back(input.substr(begin, end - begin));
    begin = end + 1;
  }
  accept_or_reject([&] { ir::hardware_with_overrides(base_config(), "base.json", arguments); });
}

void model_config(std::string_view input) {
  accept_or_reject([&] {
    ir::graphgen::GraphRequest request;
    request.model = ir::graphgen::parse_model_config(input, "fuzz/config.json");
    request.seq = 1;
    ir::graphgen::resolve(request);
  });
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all{{"tvm_import", tvm_import, 20, 2},
                                       {"onnx_import", onnx_import, 256, 2},
                                       {"hardware_config", hardware_config},
                                       {"config_override", config_override},
                                       {"model_config", model_config}};
  return all;
}

} // namespace lightsim::fuzz
