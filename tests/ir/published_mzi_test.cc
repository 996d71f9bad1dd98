// configs/published/mzi-{4,8}bit.json (configs/published_mzi.py): the MZI-mesh accelerator of
// Lightening-Transformer's evaluation, 8 independent cores of 12 x 12 Clements meshes holding weights as
// phases. Checks that every linear layer of DeiT-T / S / B and BERT-B takes ceil(blocks / 8) programming
// rounds of 2 us and passes of its m tokens, which is the artifact's latency (get_latency_mzi: ceil(blocks x
// m / 8) cycles + ceil(blocks / 8) x 2 us) to within the last pass; that DeiT-T's qkv is the hand computation
// (96 rounds, 0.192 ms of programming and 96 x 197 cycles); that the lasers are on for the computing cycles
// alone; and that the derived figures are the artifact's: 1.1947 / 19.116 W of laser per core, 0.4464
// / 3.5714 pJ per DAC conversion plus the 0.45 pJ write, 0.74 / 1.48 pJ per ADC conversion plus 1.049 pJ of
// receiver.
#include "ir/hardware/hardware.h"
#include "ir/int_math.h"
#include "sim/units/phu/phu_params.h"
#include "sim/units/phu/phu_work.h"
#include "tests/ir/published_designs.h"

#include <gtest/gtest.h>

namespace lightsim {
namespace {

ir::Hardware mzi(int bits) {
  return test::published_config("mzi", bits);
}

const ir::Unit& phu(const ir::Hardware& hw) {
  return test::published_phu(hw);
}

TEST(PublishedMzi, LinearLayersTakeTheArtifactsRoundsAndCycles) {
  for (const int bits : {4, 8}) {
    const ir::Hardware hw = mzi(bits);
    const ir::Unit& unit = phu(hw);
    test::for_each_linear_layer({197, 128, 384}, [&](const test::LinearLayer& l) {
      SCOPED_TRACE(std::to_string(bits) + " bits, " + l.name());
      const std::int64_t blocks = ceil_div(l.k, 12) * ceil_div(l.n, 12), rounds = ceil_div(blocks, 8);
      const auto m = static_cast<double>(l.m);
      const units::PhuGemmWork w = units::phu_gemm_work(unit, l.m, l.n, l.k, 1);
      EXPECT_NEAR(w.busy_ns, static_cast<double>(rounds) * (2000.0 + m / 5), 1e-6);
      const double artifact =
          static_cast<double>(rounds) * 2000 + static_cast<double>(ceil_div(blocks * l.m, 8)) / 5;
      EXPECT_GE(w.busy_ns, artifact - 1e-6);
      EXPECT_LT(w.busy_ns, artifact + m / 5); // at most the last, partly filled pass
      EXPECT_DOUBLE_EQ(w.weight_cells, static_cast<double>(l.k * l.n)); // 132 phases + 12 per 12 x 12 block
      EXPECT_NEAR(units::phu_laser_ns(unit.as<units::PhuParams>(), w), w.stream_ns, 1e-9);
      EXPECT_NEAR(w.stream_ns, static_cast<double>(rounds) * m / 5, 1e-6);
    });
  }
}

TEST(PublishedMzi, DeitTinyQkvIsTheHandComputation) {
  const ir::Hardware hw = mzi(4);
  const units::PhuGemmWork w = units::phu_gemm_work(phu(hw), 197, 576, 192, 1);
  // 16 x 48 = 768 blocks, 96 rounds of 8: 0.192 ms of programming, then 96 passes of 197 tokens at 5 GHz.
  EXPECT_EQ(w.weight_tiles, 768);
  EXPECT_NEAR(w.reload_ns, 96 * 2000.0, 1e-6);
  EXPECT_NEAR(w.busy_ns, 96 * 2000.0 + 96 * 197 / 5.0, 1e-6);
}

TEST(PublishedMzi, DerivedFiguresAreTheArtifacts) {
  const struct {
    int bits;
    double laser_w_per_core, dac_pj, adc_pj;
  } cases[] = {{4, 1.19473, 0.4464, 0.74}, {8, 19.1157, 3.5714, 1.48}};
  for (const auto& c : cases) {
    const ir::Hardware hw = mzi(c.bits); // the parameters below live in it
    const units::PhuParams& p = phu(hw).as<units::PhuParams>();
    EXPECT_NEAR(p.laser_power_w, 8 * c.laser_w_per_core, 1e-4 * 8 * c.laser_w_per_core);
    EXPECT_TRUE(p.laser_gated);
    EXPECT_NEAR(units::conversion_energy_pj(p, p.dac), c.dac_pj + 0.45, 1e-4);
    EXPECT_NEAR(units::conversion_energy_pj(p, p.adc), c.adc_pj + (2 * 1.1 + 3 + 0.2 / 4.39) / 5, 1e-4);
    EXPECT_EQ(p.weight_reload_ns, 2000.0);
    EXPECT_EQ(p.mac_energy_pj, 0.0);
  }
}

} // namespace
} // namespace lightsim
