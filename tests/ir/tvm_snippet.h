// TvmSnippet: a hand-written TVM graph-executor JSON graph for tests, built node by node (inputs, then
// ops reading earlier nodes), with node_row_ptr, the per-entry shape / dltype lists and the heads (the
// outputs of the last node) filled in as TVM writes them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace lightsim::test {

class TvmSnippet {
public:
  using Shape = std::vector<std::int64_t>;
  struct Out {
    Shape shape;
    std::string dtype = "float32";
  };

  // A "null" node; returns its node index.
  int input(const std::string& name, Shape shape, const std::string& dtype = "float32") {
    return add("null", name, "", {}, {{std::move(shape), dtype}}, nlohmann::json::object());
  }
  // A "tvm_op" node reading (node, output) pairs; `attrs` adds node attributes (Relay op attributes).
  int op(const std::string& name, const std::string& func_name, std::vector<std::pair<int, int>> inputs,
         std::vector<Out> outputs, nlohmann::json attrs = nlohmann::json::object()) {
    return add("tvm_op", name, func_name, std::move(inputs), std::move(outputs), std::move(attrs));
  }

  nlohmann::json to_json() const {
    nlohmann::json nodes = nlohmann::json::array(), shapes = nlohmann::json::array(),
                   dtypes = nlohmann::json::array(), row_ptr = nlohmann::json::array({0}),
                   args = nlohmann::json::array(), heads = nlohmann::json::array(),
                   ids = nlohmann::json::array(), devices = nlohmann::json::array();
    std::size_t entries = 0;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      nlohmann::json node = {{"op", n.op}, {"name", n.name}, {"inputs", nlohmann::json::array()}};
      for (const auto& [src, index] : n.inputs)
        node["inputs"].push_back({src, index, 0});
      if (n.op == "tvm_op") {
        nlohmann::json attrs = n.attrs;
        attrs["func_name"] = n.func_name;
        attrs["num_inputs"] = std::to_string(n.inputs.size());
        attrs["num_outputs"] = std::to_string(n.outputs.size());
        attrs["flatten_data"] = "0";
        node["attrs"] = attrs;
      } else {
        args.push_back(i);
      }
      nodes.push_back(node);
      for (const Out& o : n.outputs) {
        shapes.push_back(o.shape);
        dtypes.push_back(o.dtype);
        ids.push_back(entries++);
        devices.push_back(1);
      }
      row_ptr.push_back(entries);
    }
    for (std::size_t k = 0; k < nodes_.back().outputs.size(); ++k)
      heads.push_back({nodes_.size() - 1, k, 0});
    return {{"nodes", nodes},
            {"arg_nodes", args},
            {"heads", heads},
            {"node_row_ptr", row_ptr},
            {"attrs",
             {{"shape", {"list_shape", shapes}},
              {"dltype", {"list_str", dtypes}},
              {"storage_id", {"list_int", ids}},
              {"device_index", {"list_int", devices}}}}};
  }

private:
  struct Node {
    std::string op, name, func_name;
    std::vector<std::pair<int, int>> inputs;
    std::vector<Out> outputs;
    nlohmann::json attrs;
  };
  int add(std::string op, std::string name, std::string func, std::vector<std::pair<int, int>> inputs,
          std::vector<Out> outputs, nlohmann::json attrs) {
    nodes_.push_back({std::move(op), std::move(name), std::move(func), std::move(inputs), std::move(outputs),
                      std::move(attrs)});
    return static_cast<int>(nodes_.size() - 1);
  }
  std::vector<Node> nodes_;
};

} // namespace lightsim::test
