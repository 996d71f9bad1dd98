// Bad TVM graph files: one test per case. Each builds a small graph from JSON text, breaks one thing, and
// checks the whole one-line message: the file, the place (JSON path or node) and what is wrong.
#include "ir/error.h"
#include "ir/tvm/tvm_import.h"
#include "tests/test_support.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lightsim::ir {
namespace {

using nlohmann::json;

// x [2, 3] -> dense with p0 [4, 3] -> split into two [2, 2] -> add of both halves.
constexpr const char* kGood = R"({
  "nodes": [
    {"op": "null", "name": "x", "inputs": []},
    {"op": "null", "name": "p0", "inputs": []},
    {"op": "tvm_op", "name": "dense", "inputs": [[0, 0, 0], [1, 0, 0]],
     "attrs": {"num_outputs": "1", "num_inputs": "2", "func_name": "tvmgen_default_fused_nn_dense"}},
    {"op": "tvm_op", "name": "split", "inputs": [[2, 0, 0]],
     "attrs": {"num_outputs": "2", "num_inputs": "1", "func_name": "tvmgen_default_fused_split"}},
    {"op": "tvm_op", "name": "add", "inputs": [[3, 0, 0], [3, 1, 0]],
     "attrs": {"num_outputs": "1", "num_inputs": "2", "func_name": "tvmgen_default_fused_add"}}
  ],
  "arg_nodes": [0, 1],
  "heads": [[4, 0, 0]],
  "node_row_ptr": [0, 1, 2, 3, 5, 6],
  "attrs": {
    "shape": ["list_shape", [[2, 3], [4, 3], [2, 4], [2, 2], [2, 2], [2, 2]]],
    "dltype": ["list_str", ["float32", "float32", "float32", "float32", "float32", "float32"]],
    "storage_id": ["list_int", [0, 1, 2, 3, 4, 5]],
    "device_index": ["list_int", [1, 1, 1, 1, 1, 1]]
  }
})";

json good() {
  return json::parse(kGood);
}

std::string error_of(const json& doc, const ImportOptions& options = {}) {
  try {
    import_tvm_graph(doc, "g.json", options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string error_of_file(const std::string& path) {
  try {
    import_tvm_graph_file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = test::temp_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(TvmImportErrors, GoodGraphImports) {
  const ImportResult r = import_tvm_graph(good(), "g.json");
  EXPECT_EQ(r.graph.ops.size(), 5u);
  EXPECT_EQ(r.graph.tensors.size(), 6u);
  EXPECT_EQ(r.graph.ops[4].inputs, (std::vector<TensorId>{3, 4}));
  EXPECT_TRUE(r.warnings.empty());
}

TEST(TvmImportErrors, TruncatedFile) {
  const std::string text = kGood;
  const std::string path = write_file("g.json", text.substr(0, 200));
  const std::string message = error_of_file(path);
  EXPECT_EQ(message.rfind(path + ": byte offset 200: not valid JSON (the file ends early: truncated?): ", 0),
            0u)
      << message;
}

TEST(TvmImportErrors, NonJsonFile) {
  const std::string path = write_file("g.json", "nodes = [1, 2]\n");
  const std::string message = error_of_file(path);
  EXPECT_EQ(message.rfind(path + ": byte offset 1: not valid JSON: ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

// Found by fuzzing (tests/fuzz): a value the reader keeps whole for the message was built however deep it
// nested, ~50 bytes per '[' of input. Nesting beyond ir::kMaxJsonDepth is refused while it is read.
TEST(TvmImportErrors, NestingTooDeep) {
  const std::string deep = R"({"nodes": [{"op": "tvm_op", "name": "a", "inputs": )" + std::string(1000, '[');
  const std::string path = write_file("deep.json", deep);
  EXPECT_EQ(error_of_file(path), path + ": JSON nested deeper than 64 levels");
  // 64 levels are read (and then rejected for what they are, not for their depth).
  const std::string ok_depth = std::string(64, '[') + std::string(64, ']');
  EXPECT_EQ(error_of_file(write_file("arrays.json", ok_depth)).find("nested deeper"), std::string::npos);
  EXPECT_EQ(error_of_file(write_file("arrays65.json", "[" + ok_depth + "]")),
            test::temp_dir() + "/arrays65.json: JSON nested deeper than 64 levels");
}

// What comes from the input (a file name, a key) may hold control characters; the message stays one line.
TEST(InputErrorMessage, ControlCharactersAreEscaped) {
  EXPECT_STREQ(InputError("a\nb.json", "key 'x\ty\x01\r' \x7f").what(),
               "a\\nb.json: key 'x\\ty\\x01\\r' \\x7f");
  EXPECT_STREQ(InputError("one\ntwo").what(), "one\\ntwo");
}

TEST(TvmImportErrors, MissingFile) {
  const std::string path = test::temp_dir() + "/absent.json";
  EXPECT_EQ(error_of_file(path), path + ": no such file");
  EXPECT_EQ(error_of_file(test::temp_dir()), test::temp_dir() + ": is a directory, not a JSON file");
}

TEST(TvmImportErrors, MissingNodes) {
  json doc = good();
  doc.erase("nodes");
  EXPECT_EQ(error_of(doc), "g.json: (top level): missing 'nodes'");
  EXPECT_EQ(error_of(json::array()), "g.json: (top level): expected an object, found array");
}

TEST(TvmImportErrors, MissingAttrs) {
  json doc = good();
  doc.erase("attrs");
  EXPECT_EQ(error_of(doc), "g.json: (top level): missing 'attrs'");
  doc = good();
  doc["attrs"].erase("dltype");
  EXPECT_EQ(error_of(doc), "g.json: attrs: missing 'dltype'");
  doc = good();
  doc["nodes"][2].erase("attrs");
  EXPECT_EQ(error_of(doc), "g.json: nodes[2] 'dense': missing 'attrs'");
}

TEST(TvmImportErrors, ShapeListOfWrongLength) {
  json doc = good();
  doc["attrs"]["shape"][1].erase(5);
  EXPECT_EQ(error_of(doc), "g.json: attrs.shape[1]: has 5 elements, expected one per entry (6)");
}

TEST(TvmImportErrors, DltypeListOfWrongLength) {
  json doc = good();
  doc["attrs"]["dltype"][1].push_back("float32");
  EXPECT_EQ(error_of(doc), "g.json: attrs.dltype[1]: has 7 elements, expected one per entry (6)");
}

TEST(TvmImportErrors, StorageIdListOfWrongLength) {
  json doc = good();
  doc["attrs"]["storage_id"][1].erase(0);
  EXPECT_EQ(error_of(doc), "g.json: attrs.storage_id[1]: has 5 elements, expected one per entry (6)");
}

TEST(TvmImportErrors, InputReferringToMissingNode) {
  json doc = good();
  doc["nodes"][4]["inputs"][1] = json::array({9, 0, 0});
  EXPECT_EQ(error_of(doc), "g.json: nodes[4].inputs[1]: refers to node 9, but the graph has 5 nodes");
}

TEST(TvmImportErrors, InputReferringToMissingOutput) {
  json doc = good();
  doc["nodes"][4]["inputs"][1] = json::array({3, 2, 0});
  EXPECT_EQ(error_of(doc),
            "g.json: nodes[4].inputs[1]: refers to output 2 of node 3 'split', which has 2 outputs");
  doc = good();
  doc["heads"][0] = json::array({2, 1, 0});
  EXPECT_EQ(error_of(doc), "g.json: heads[0]: refers to output 1 of node 2 'dense', which has 1 output");
}

TEST(TvmImportErrors, Cycle) {
  json doc = good();
  doc["nodes"][2]["inputs"][0] = json::array({4, 0, 0}); // dense reads add, which reads split of dense
  EXPECT_EQ(error_of(doc), "g.json: nodes[2] 'dense': is on a cycle: nodes 2 -> 3 -> 4 -> 2");
  doc = good();
  doc["nodes"][4]["inputs"][0] = json::array({4, 0, 0}); // reads itself
  EXPECT_EQ(error_of(doc), "g.json: nodes[4] 'add': is on a cycle: nodes 4 -> 4");
}

TEST(TvmImportErrors, NegativeDim) {
  json doc = good();
  doc["attrs"]["shape"][1][1] = json::array({4, -3});
  EXPECT_EQ(error_of(doc), "g.json: attrs.shape[1][1] (output 0 of nodes[1] 'p0'): dim 1 is negative (-3)");
}

TEST(TvmImportErrors, NonIntegerDim) {
  json doc = good();
  doc["attrs"]["shape"][1][4] = json::parse("[2, 2.5]");
  EXPECT_EQ(error_of(doc),
            "g.json: attrs.shape[1][4] (output 1 of nodes[3] 'split'): dim 1 is 2.5, not an integer");
  doc["attrs"]["shape"][1][4] = json::parse(R"([2, "2"])");
  EXPECT_EQ(error_of(doc), "g.json: attrs.shape[1][4] (output 1 of nodes[3] 'split') dim 1: expected an "
                           "integer, found string \"2\"");
}

TEST(TvmImportErrors, ByteSizeOverflows64Bits) {
  json doc = good();
  // 2^31 x 2^31 = 2^62 elements fit 64 bits; as float32 they are 2^64 bytes, which does not.
  doc["attrs"]["shape"][1][0] = json::array({2147483648LL, 2147483648LL});
  EXPECT_EQ(error_of(doc),
            "g.json: attrs.shape[1][0] (output 0 of nodes[0] 'x'): shape [2147483648,2147483648] "
            "of float32 is more than 2^64 bytes");
  doc["attrs"]["shape"][1][0] = json::array({4294967296LL, 4294967296LL, 2});
  EXPECT_EQ(error_of(doc),
            "g.json: attrs.shape[1][0] (output 0 of nodes[0] 'x'): shape [4294967296,4294967296,2] "
            "has more than 2^64 elements");
}

TEST(TvmImportErrors, UnknownDtype) {
  json doc = good();
  doc["attrs"]["dltype"][1][2] = "float8x4";
  EXPECT_EQ(error_of(doc),
            "g.json: attrs.dltype[1][2] (output 0 of nodes[2] 'dense'): unknown dtype \"float8x4\"");
}

TEST(TvmImportErrors, BadNodeRowPtr) {
  json doc = good();
  doc["node_row_ptr"] = json::array({0, 1, 2, 3, 4, 5}); // gives split 1 output, attrs say 2
  EXPECT_EQ(error_of(doc),
            "g.json: nodes[3] 'split': attrs.num_outputs is 2 but node_row_ptr gives it 1 outputs");
  doc["node_row_ptr"] = json::array({0, 1, 2, 3, 5});
  EXPECT_EQ(error_of(doc), "g.json: node_row_ptr: has 5 elements, expected nodes + 1 = 6");
  doc["node_row_ptr"] = json::array({0, 1, 3, 2, 5, 6});
  EXPECT_EQ(error_of(doc), "g.json: node_row_ptr[3]: decreases (3 -> 2)");
  doc["node_row_ptr"] = json::array({1, 2, 3, 4, 6, 7});
  EXPECT_EQ(error_of(doc), "g.json: node_row_ptr[0]: is 1, expected 0");
}

TEST(TvmImportErrors, BadNodeKindAndArgNodes) {
  json doc = good();
  doc["nodes"][1]["op"] = "const";
  EXPECT_EQ(error_of(doc),
            "g.json: nodes[1].op: unknown node kind \"const\" (expected \"null\" or \"tvm_op\")");
  doc = good();
  doc["arg_nodes"] = json::array({0, 2});
  EXPECT_EQ(error_of(doc), "g.json: arg_nodes[1]: refers to nodes[2] 'dense', which is not an input");
  doc = good();
  doc["nodes"][4]["attrs"]["num_inputs"] = "3";
  EXPECT_EQ(error_of(doc), "g.json: nodes[4] 'add': attrs.num_inputs is 3 but it lists 2 inputs");
}

TEST(TvmImportErrors, UnknownOpsAreListed) {
  json doc = good();
  doc["nodes"][4]["attrs"]["func_name"] = "tvmgen_default_fused_nn_lstm";
  doc["nodes"][2]["attrs"]["func_name"] = "tvmgen_default_fused_frobnicate_2";
  EXPECT_EQ(error_of(doc), "g.json: nodes: 2 unknown op func_names: 'tvmgen_default_fused_frobnicate_2' "
                           "(first at nodes[2]), 'tvmgen_default_fused_nn_lstm' (first at nodes[4]); "
                           "--unknown-op=cpu runs them as opaque CPU ops");
}

TEST(TvmImportErrors, UnknownOpsWithCpuPolicyWarnAndBecomeOpaque) {
  json doc = good();
  doc["nodes"][4]["attrs"]["func_name"] = "tvmgen_default_fused_nn_lstm";
  doc["nodes"][3]["attrs"]["func_name"] = "tvmgen_default_fused_nn_lstm"; // same name twice: one warning
  doc["nodes"][2]["attrs"]["func_name"] = "tvmgen_default_fused_frobnicate_2";
  const ImportResult r = import_tvm_graph(doc, "g.json", ImportOptions{UnknownOpPolicy::Cpu});
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0],
            "g.json: nodes[2] 'dense': unknown op 'tvmgen_default_fused_frobnicate_2' (1 nodes): "
            "treated as opaque, elementwise cost on CPUs only");
  EXPECT_EQ(r.warnings[1], "g.json: nodes[3] 'split': unknown op 'tvmgen_default_fused_nn_lstm' (2 nodes): "
                           "treated as opaque, elementwise cost on CPUs only");
  for (int i : {2, 3, 4})
    EXPECT_EQ(r.graph.ops[static_cast<std::size_t>(i)].op_class, OpClass::Opaque) << i;
  EXPECT_EQ(r.graph.ops[2].features.macs, 0); // opaque ops have no GEMM view
  EXPECT_EQ(r.graph.ops[2].features.bytes_out, 2 * 4 * 4);
}

} // namespace
} // namespace lightsim::ir
