// configs/published/mrr-bank-{4,8}bit.json (configs/published_mrr_bank.py): the microring weight bank of
// Lightening-Transformer's evaluation, 14 independent cores of 12 x 12 rings, signed inputs in two passes.
// Checks that every linear layer of DeiT-T / S / B and BERT-B takes ceil(blocks / 14) passes of its m tokens,
// twice, which is the artifact's count ceil(blocks x m / 14) x 2 to within one pass; that the converters keep
// the optics' pace; that DeiT-T's FFN1 is the hand computation of the design notes (74 passes x 197 tokens x
// 2 = 29156 cycles, 4,841,472 DAC and ADC samples); and that the derived figures are the artifact's: 0.1198 /
// 1.9166 W of laser, 0.4464 / 3.5714 pJ per DAC conversion plus 0.282 pJ of ring modulator, 0.74 / 1.48 pJ
// per ADC conversion plus 1.049 pJ of receiver, 0.24 pJ of ring hold per optical MAC.
#include "ir/hardware/hardware.h"
#include "ir/int_math.h"
#include "sim/units/phu/phu_work.h"
#include "tests/ir/published_designs.h"

#include <gtest/gtest.h>

namespace lightsim {
namespace {

ir::Hardware mrr_bank(int bits) {
  return test::published_config("mrr-bank", bits);
}

const ir::Unit& phu(const ir::Hardware& hw) {
  return test::published_phu(hw);
}

TEST(PublishedMrrBank, LinearLayersTakeTheArtifactsPassesTwice) {
  for (const int bits : {4, 8}) {
    const ir::Hardware hw = mrr_bank(bits);
    const ir::Unit& unit = phu(hw);
    test::for_each_linear_layer({197, 128, 384}, [&](const test::LinearLayer& l) {
      SCOPED_TRACE(std::to_string(bits) + " bits, " + l.name());
      const std::int64_t blocks = ceil_div(l.k, 12) * ceil_div(l.n, 12);
      const units::PhuGemmWork w = units::phu_gemm_work(unit, l.m, l.n, l.k, 1);
      const double cycles = w.busy_ns * unit.clock_ghz;
      EXPECT_NEAR(cycles, static_cast<double>(ceil_div(blocks, 14) * l.m * 2), 1e-6);
      const auto artifact = static_cast<double>(ceil_div(blocks * l.m, 14) * 2);
      EXPECT_GE(cycles, artifact);
      EXPECT_LT(cycles, artifact + 2.0 * static_cast<double>(l.m)); // at most the last, partly filled pass
      EXPECT_NEAR(w.dac_ns, w.optics_ns, 1e-9); // 12 DACs and 12 ADCs per core keep the optics' pace
      EXPECT_NEAR(w.adc_ns, w.optics_ns, 1e-9);
      EXPECT_DOUBLE_EQ(w.weight_cells, static_cast<double>(l.k * l.n)); // the rings, set once
      EXPECT_DOUBLE_EQ(w.optical_macs, 2 * w.macs);
    });
  }
}

TEST(PublishedMrrBank, DeitTinyFfn1IsTheHandComputation) {
  const ir::Hardware hw = mrr_bank(8);
  const units::PhuGemmWork w = units::phu_gemm_work(phu(hw), 197, 768, 192, 1);
  // 16 x 64 = 1024 blocks, 74 passes of 14, each 197 tokens twice at 5 GHz.
  EXPECT_NEAR(w.busy_ns, 74 * 197 * 2 / 5.0, 1e-6);
  EXPECT_EQ(w.weight_tiles, 1024);
  EXPECT_DOUBLE_EQ(w.dac_samples, 4841472.0); // 2 x 197 x 192 x 64
  EXPECT_DOUBLE_EQ(w.adc_samples, 4841472.0); // 2 x 197 x 768 x 16
  EXPECT_DOUBLE_EQ(w.weight_cells, 147456.0);
  EXPECT_DOUBLE_EQ(w.optical_macs, 58097664.0);
  EXPECT_EQ(w.streamed_sends, 2 * 64);
}

TEST(PublishedMrrBank, DerivedFiguresAreTheArtifacts) {
  const struct {
    int bits;
    double laser_w, dac_pj, adc_pj;
  } cases[] = {{4, 0.11979, 0.4464, 0.74}, {8, 1.91655, 3.5714, 1.48}};
  for (const auto& c : cases) {
    const ir::Hardware hw = mrr_bank(c.bits);
    const units::PhuParams& p = phu(hw).as<units::PhuParams>();
    EXPECT_NEAR(p.laser_power_w, c.laser_w, 1e-4 * c.laser_w);
    EXPECT_NEAR(units::conversion_energy_pj(p, p.dac), c.dac_pj + 0.282, 1e-4);
    EXPECT_NEAR(units::conversion_energy_pj(p, p.adc), c.adc_pj + 1.04 + 0.2 / 4.39 / 5, 1e-4);
    EXPECT_DOUBLE_EQ(p.mac_energy_pj, 0.24);
    EXPECT_EQ(p.input_sign_passes, 2);
    EXPECT_EQ(p.tile_operand, units::TileOperand::Independent);
  }
}

} // namespace
} // namespace lightsim
