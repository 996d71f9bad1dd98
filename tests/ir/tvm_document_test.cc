// The SAX reader of TVM graph files (ir/tvm/tvm_document.h) on what a JSON DOM used to settle for it:
// repeated keys, values of an unexpected kind in the middle of an array, ignored keys with nested values,
// numbers that do not fit a double. Each checks the whole one-line message, as tvm_import_errors_test.cc
// does.
#include "ir/error.h"
#include "ir/tvm/tvm_import.h"
#include "tests/test_support.h"

#include <fstream>
#include <gtest/gtest.h>

namespace lightsim::ir {
namespace {

// x [2, 3] -> dense with p0 [4, 3] -> add of the dense output with itself; the arguments replace heads,
// the add node's inputs and p0's shape, and `extra` goes first in the top-level object.
std::string graph(const std::string& heads, const std::string& add_inputs, const std::string& p0_shape,
                  const std::string& extra = "") {
  return R"({)" + extra + R"(
  "nodes": [
    {"op": "null", "name": "x", "inputs": [], "attrs": {"hash": {"a": [1, {"b": null}]}}},
    {"op": "null", "name": "p0", "inputs": []},
    {"op": "tvm_op", "name": "dense", "inputs": [[0, 0, 0], [1, 0]],
     "attrs": {"num_outputs": 1, "func_name": "tvmgen_default_fused_nn_dense", "flatten_data": "0"}},
    {"op": "tvm_op", "name": "add", "inputs": )" +
         add_inputs + R"(,
     "attrs": {"num_outputs": "1", "num_inputs": "2", "func_name": "tvmgen_default_fused_add"}}
  ],
  "arg_nodes": [0, 1],
  "heads": )" +
         heads + R"(,
  "node_row_ptr": [0, 1, 2, 3, 4],
  "attrs": {
    "shape": ["list_shape", [[2, 3], )" +
         p0_shape + R"(, [2, 4], [2, 4]]],
    "dltype": ["list_str", ["float32", "float32", "float32", "float32"]],
    "storage_id": ["list_int", [0, 1, 2, 3]],
    "extra": {"nested": [[1, 2], {"x": "y"}]}
  }
})";
}

std::string import_text(const std::string& text) {
  const std::string path = test::temp_dir() + "/g.json";
  std::ofstream(path, std::ios::binary) << text;
  try {
    const ImportResult r = import_tvm_graph_file(path);
    return std::to_string(r.graph.ops.size()) + " ops";
  } catch (const InputError& e) {
    const std::string message = e.what();
    return message.rfind(path + ": ", 0) == 0 ? message.substr(path.size() + 2) : message;
  }
}

const std::string kHeads = "[[3, 0, 0]]", kAddInputs = "[[2, 0, 0], [2, 0, 0]]", kP0 = "[4, 3]";

TEST(TvmDocument, IgnoredKeysMayHoldAnyJson) {
  EXPECT_EQ(import_text(graph(kHeads, kAddInputs, kP0, R"("version": {"tvm": ["0.14", 1]},)")), "4 ops");
}

TEST(TvmDocument, RepeatedKeysKeepTheLastValue) {
  EXPECT_EQ(import_text(graph(kHeads, kAddInputs, kP0, R"("heads": 5, "nodes": {"a": 1},)")), "4 ops");
  EXPECT_EQ(import_text(graph(kHeads + R"(, "heads": 5)", kAddInputs, kP0)),
            "heads: expected an array, found integer 5");
  EXPECT_EQ(import_text(graph(kHeads, kAddInputs + R"(, "inputs": [[2, 0, 0]])", kP0)),
            "nodes[3] 'add': attrs.num_inputs is 2 but it lists 1 inputs");
}

TEST(TvmDocument, UnexpectedValueInsideAReference) {
  EXPECT_EQ(import_text(graph(kHeads, R"([[2, 0, "x"], [2, 0, 0]])", kP0)),
            "nodes[3].inputs[0][2]: expected an integer, found string \"x\"");
  EXPECT_EQ(import_text(graph(kHeads, R"([[2, 0, 0, {"v": [1]}], [2, 0, 0]])", kP0)),
            "nodes[3].inputs[0]: expected [node, output index, version], found [2,0,0,{\"v\":[1]}]");
  EXPECT_EQ(import_text(graph("[[3]]", kAddInputs, kP0)),
            "heads[0]: expected [node, output index, version], found [3]");
  EXPECT_EQ(import_text(graph("[[-3, 0]]", kAddInputs, kP0)), "heads[0][0]: -3 is negative");
}

TEST(TvmDocument, UnexpectedValueInsideAShape) {
  // The product overflows at dim 1, before the string in dim 2 is looked at; the message shows it all.
  EXPECT_EQ(import_text(graph(kHeads, kAddInputs, R"([4294967296, 4294967296, "x"])")),
            "attrs.shape[1][1] (output 0 of nodes[1] 'p0'): shape [4294967296,4294967296,\"x\"] has more "
            "than 2^64 elements");
  EXPECT_EQ(import_text(graph(kHeads, kAddInputs, "[4, [3]]")),
            "attrs.shape[1][1] (output 0 of nodes[1] 'p0') dim 1: expected an integer, found array");
}

TEST(TvmDocument, NumberBeyondADoubleIsBadInput) {
  const std::string text = graph(kHeads, kAddInputs, "[4, 1e999]");
  const std::string message = import_text(text);
  const std::string offset = std::to_string(text.find("1e999") + 4); // its last byte
  EXPECT_EQ(message, "byte offset " + offset + ": not valid JSON: number overflow parsing '1e999'");
}

} // namespace
} // namespace lightsim::ir
