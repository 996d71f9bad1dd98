// Helpers for the lightsim-graph tests: generate a graph in memory (expressions + lowered TVM nodes) or as
// JSON text, and MACs of the GEMM-like nodes of a lowered graph grouped by the block they belong to.
#pragma once

#include "ir/graphgen/builder.h"
#include "ir/graphgen/tvm_lower.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace lightsim::test {

struct Generated {
  std::unique_ptr<ir::graphgen::ExprGraph> exprs; // owned here: lowered keeps a pointer to it
  ir::graphgen::TvmGraph lowered;
};

ir::graphgen::GraphRequest request(const std::string& model, ir::graphgen::Phase phase, std::int64_t seq,
                                   std::int64_t batch = 1);
Generated generate(const ir::graphgen::GraphRequest& request);
std::string generate_json_text(const ir::graphgen::GraphRequest& request);
nlohmann::json generate_json(const ir::graphgen::GraphRequest& request);

// MACs of dense / batch_matmul nodes, read off their input shapes. A dense whose weight has the FFN
// size in a dimension is FFN; one with `vocab` outputs is the LM head; other denses and every
// batch_matmul are attention.
struct Macs {
  double attention = 0, ffn = 0, lm_head = 0;
};
Macs count_macs(const Generated& g, std::int64_t ffn, std::int64_t vocab);

} // namespace lightsim::test
