// The op kinds of the op coverage test (tests/ir/op_coverage_test.cc, issue 15): per kind TVM's Relay front
// ends emit for CNNs and encoders, a hand-written snippet op in its unfused form and a fused form, with the
// class, tail, output shapes, MACs and bytes it must import to (hand counts). Test data only.
#pragma once

#include "ir/op_class.h"
#include "tests/ir/tvm_snippet.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lightsim::ir::test_cases {

using test::TvmSnippet;
using Shape = std::vector<std::int64_t>;

struct In {
  Shape shape;
  std::string dtype = "float32";
};

// One op node reading fresh inputs, as a snippet.
struct OpCase {
  std::string func;
  std::vector<In> inputs;
  std::vector<TvmSnippet::Out> outputs;
  OpClass anchor;
  std::vector<OpClass> tail;
  double macs, bytes_in, bytes_out; // hand counts
  nlohmann::json attrs = nlohmann::json::object();
};

struct Kind {
  std::string name; // as the issue lists it
  OpCase unfused, fused;
};

// Every kind, in the order the issue lists them.
const std::vector<Kind>& kinds();

} // namespace lightsim::ir::test_cases
