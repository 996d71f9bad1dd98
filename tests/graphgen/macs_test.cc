// Shapes scale correctly: MACs of the attention and FFN blocks (and the LM head) of generated graphs equal
// the closed-form counts for several lengths, batches and both phases.
#include "tests/graphgen/graphgen_test_util.h"

#include <gtest/gtest.h>

namespace lightsim {
namespace {

using namespace ir::graphgen;

struct Expected {
  double attention, ffn, lm_head;
};

// B sequences of Q new tokens attending to T tokens.
Expected closed_form(const ModelSpec& m, double B, double Q, double T) {
  const double D = static_cast<double>(m.hidden), L = static_cast<double>(m.layers);
  const double F = static_cast<double>(m.ffn), V = static_cast<double>(m.vocab);
  const double kv = static_cast<double>(m.kv_heads * (m.hidden / m.heads));
  const double scores_and_context = 2 * B * Q * T * D; // sum over heads of Q x T x head_dim, twice
  if (m.family == ModelFamily::Gpt2)
    return {L * (B * Q * D * 4 * D + scores_and_context), L * 2 * B * Q * D * F, B * Q * D * V};
  return {L * (B * Q * D * (2 * D + 2 * kv) + scores_and_context), L * 3 * B * Q * D * F, B * Q * D * V};
}

void check_model(const std::string& name) {
  for (std::int64_t seq : {1, 7, 128, 1000})
    for (Phase phase : {Phase::Prefill, Phase::Decode}) {
      if (phase == Phase::Decode && seq == 1) continue; // a decode step needs a cache
      for (std::int64_t batch : {1, 3}) {
        GraphRequest r = test::request(name, phase, seq, batch);
        if (name == "llama2-70b") r.layers = 4; // fewer layers, same per-layer shapes
        const test::Generated g = test::generate(r);
        ModelSpec m = r.model;
        m.layers = r.layers.value_or(m.layers);
        const double q = phase == Phase::Prefill ? static_cast<double>(seq) : 1.0;
        const Expected e = closed_form(m, static_cast<double>(batch), q, static_cast<double>(seq));
        const test::Macs got = test::count_macs(g, m.ffn, m.vocab);
        SCOPED_TRACE(name + " seq " + std::to_string(seq) + " batch " + std::to_string(batch) +
                     (phase == Phase::Prefill ? " prefill" : " decode"));
        EXPECT_DOUBLE_EQ(got.attention, e.attention);
        EXPECT_DOUBLE_EQ(got.ffn, e.ffn);
        EXPECT_DOUBLE_EQ(got.lm_head, e.lm_head);
      }
    }
}

TEST(Macs, Gpt2MatchesClosedForm) {
  check_model("gpt2");
}
TEST(Macs, Gpt2XlMatchesClosedForm) {
  check_model("gpt2-xl");
}
TEST(Macs, Llama2_7bMatchesClosedForm) {
  check_model("llama2-7b");
}
TEST(Macs, Llama2_70bGroupedQueryMatchesClosedForm) {
  check_model("llama2-70b");
}

TEST(Macs, DecodeAttentionGrowsLinearlyWithCache) {
  // Per layer, a decode step's attention matmuls cost 2 * T * D MACs: doubling the cache doubles them.
  auto bmm_macs = [](std::int64_t seq) {
    GraphRequest r = test::request("llama2-7b", Phase::Decode, seq);
    r.layers = 1;
    const test::Generated g = test::generate(r);
    const test::Macs all = test::count_macs(g, r.model.ffn, r.model.vocab);
    return all.attention - 4096.0 * (2 * 4096 + 2 * 4096); // minus the q/k/v/o projections
  };
  EXPECT_DOUBLE_EQ(bmm_macs(512), 2 * 512 * 4096.0);
  EXPECT_DOUBLE_EQ(bmm_macs(1024), 2 * bmm_macs(512));
}

} // namespace
} // namespace lightsim
