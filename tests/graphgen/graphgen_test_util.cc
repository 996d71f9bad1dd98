#include "tests/graphgen/graphgen_test_util.h"

#include "ir/graphgen/tvm_writer.h"

#include <sstream>

namespace lightsim::test {

using namespace ir::graphgen;

GraphRequest request(const std::string& model, Phase phase, std::int64_t seq, std::int64_t batch) {
  GraphRequest r;
  r.model = builtin_model(model);
  r.phase = phase;
  r.seq = seq;
  r.batch = batch;
  return r;
}

Generated generate(const GraphRequest& r) {
  Generated g;
  g.exprs = std::make_unique<ExprGraph>(build_model_graph(r));
  g.lowered = lower_to_tvm(*g.exprs);
  return g;
}

std::string generate_json_text(const GraphRequest& r) {
  const Generated g = generate(r);
  std::ostringstream out;
  write_tvm_graph(g.lowered, out);
  return out.str();
}

nlohmann::json generate_json(const GraphRequest& r) {
  return nlohmann::json::parse(generate_json_text(r));
}

Macs count_macs(const Generated& g, std::int64_t ffn, std::int64_t vocab) {
  Macs m;
  const TvmGraph& t = g.lowered;
  for (const TvmNode& n : t.nodes) {
    if (n.is_null) continue;
    const bool dense = n.func_name.find("nn_dense") != std::string::npos;
    const bool bmm = n.func_name.find("nn_batch_matmul") != std::string::npos;
    if (!dense && !bmm) continue;
    const auto& a = t.entry_type(n.inputs[0].node, n.inputs[0].index).shape;
    const auto& b = t.entry_type(n.inputs[1].node, n.inputs[1].index).shape;
    if (dense) {
      const double macs = static_cast<double>(a[0]) * static_cast<double>(b[0]) * static_cast<double>(a[1]);
      if (b[0] == ffn || b[1] == ffn)
        m.ffn += macs;
      else if (b[0] == vocab)
        m.lm_head += macs;
      else
        m.attention += macs;
    } else {
      m.attention += static_cast<double>(a[0]) * static_cast<double>(a[1]) * static_cast<double>(b[1]) *
                     static_cast<double>(a[2]);
    }
  }
  return m;
}

} // namespace lightsim::test
