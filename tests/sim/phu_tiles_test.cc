// The PHU's tiles and cores (issue 25) against hand counts: a 64-wide attention GEMM (DeiT-T's Q K^T, three
// heads of 197 tokens) on Lightening-Transformer's geometry, 4 tiles x 2 cores of 12 x 12 with the streamed
// operand broadcast to the tiles (the folded 24 x 48 array, pass for pass), and the same tiles with private
// streams, which pack the heads' column blocks into fewer passes.
#include "sim/hw/kernel.h"
#include "sim/units/phu/photonic_mac_array.h"
#include "sim/units/phu/phu_work.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>
#include <systemc>

using namespace lightsim::units; // the PHU's parameters and work counts

namespace lightsim::sim {
namespace {

// DOTA-B's array (configs/published_dota.py): 2 cores of 12 rows summed in analog per tile, 4 tiles of 12
// columns, 12 wavelengths, 5 GHz, both operands modulated every cycle, 3 cycles integrated per ADC sample,
// converters at 5 GS/s (8 bits on a 45 GHz bit clock).
ir::Unit dota_array(units::TileOperand tile_operand, int dacs) {
  ir::Unit u = test::sim_machine().units[2];
  u.clock_ghz = 5;
  auto& p = u.as<units::PhuParams>();
  p.rows = 24;
  p.cols = 48;
  p.tiles = 4;
  p.cores_per_tile = 2;
  p.tile_operand = tile_operand;
  p.wdm_channels = 12;
  p.accumulation_cycles = 3;
  p.operand_encoding = units::OperandEncoding::Dynamic;
  p.weight_reload_ns = 0;
  p.dac = {.count = dacs, .bit_clock_ghz = 45, .fom_fj_per_step = 1, .bits = {}};
  p.adc = {.count = 576, .bit_clock_ghz = 45, .fom_fj_per_step = 1, .bits = {}};
  return u;
}

// Q K^T of 3 heads: m = n = 197 tokens, k = 64. Along k: 24 + 24 + 16, one ADC sample at the last (3
// cycles integrated). Every pass streams ceil(197 / 12) = 17 cycles = 3.4 ns of optics, the slowest part
// (the largest pass: 197 x 24 + 17 x 24 x 48 = 24312 DAC samples, 17 per DAC of 1440 = 3.4 ns; 197 x 48
// ADC samples, 17 per ADC = 3.4 ns).
TEST(PhuTiles, BroadcastTilesAreTheFoldedArray) {
  fresh_simulation();
  const PhotonicMacArray tiled("tiled", dota_array(units::TileOperand::Broadcast, 1440));
  ir::Unit one = dota_array(units::TileOperand::Broadcast, 1440);
  one.as<units::PhuParams>().tiles = 1;
  one.as<units::PhuParams>().cores_per_tile = 1;
  const PhotonicMacArray folded("folded", one);
  const PhuGemmTiming t = tiled.gemm(197, 197, 64, 3);
  // Along n, 197 = 4 x 48 + 5 per head: 5 passes, x 3 k blocks x 3 heads.
  EXPECT_EQ(t.weight_tiles, 45);
  EXPECT_EQ(t.streamed_sends, 15);
  EXPECT_NEAR(t.busy_ns, 45 * 3.4, 1e-9);
  EXPECT_DOUBLE_EQ(t.adc_samples, 3.0 * 197 * 197);
  // DAC: the streamed 197 x 64 once per pass along n, the array operand's 64 x 197 in each of 17 cycles.
  EXPECT_DOUBLE_EQ(t.dac_samples, 3.0 * (197 * 64 * 5 + 17 * 64 * 197));
  const PhuGemmTiming f = folded.gemm(197, 197, 64, 3);
  EXPECT_EQ(f.weight_tiles, t.weight_tiles);
  EXPECT_DOUBLE_EQ(f.busy_ns, t.busy_ns);
  EXPECT_DOUBLE_EQ(f.dac_samples, t.dac_samples);
  EXPECT_DOUBLE_EQ(f.adc_samples, t.adc_samples);
}

TEST(PhuTiles, PrivateTilesPackTheHeadsColumnBlocks) {
  fresh_simulation();
  // Enough DACs for two streams in a pass (197 x 24 x 2 + 17 x 24 x 48 = 29040, 11 per DAC of 2880), so
  // that every pass stays bound by its 3.4 ns of optics.
  const PhotonicMacArray phu("phu", dota_array(units::TileOperand::Private, 2880));
  const PhuGemmTiming t = phu.gemm(197, 197, 64, 3);
  // Per head ceil(197 / 12) = 17 tile blocks (16 of 12 columns, one of 5): 51 blocks, 4 to a pass, 13
  // passes along n (the 5th and the 9th hold the last block of one head and the first three of the next:
  // two streams each), x 3 k blocks.
  EXPECT_EQ(t.weight_tiles, 39);
  EXPECT_EQ(t.streamed_sends, 15);
  EXPECT_NEAR(t.busy_ns, 39 * 3.4, 1e-9);
  // The same outputs read through the ADCs; the array operand's columns are those the blocks hold.
  EXPECT_DOUBLE_EQ(t.adc_samples, 3.0 * 197 * 197);
  EXPECT_DOUBLE_EQ(t.dac_samples, 197.0 * 64 * 15 + 3.0 * 17 * 64 * 197);
  // One GEMM (batch 1) has nothing to pack: the broadcast count.
  const PhotonicMacArray broadcast("broadcast", dota_array(units::TileOperand::Broadcast, 2880));
  EXPECT_EQ(phu.gemm(197, 197, 64, 1).weight_tiles, broadcast.gemm(197, 197, 64, 1).weight_tiles);
  EXPECT_DOUBLE_EQ(phu.gemm(197, 197, 64, 1).busy_ns, broadcast.gemm(197, 197, 64, 1).busy_ns);
  // Many heads: the pattern of 68 blocks (lcm(17, 4)) repeats; 12 heads are 204 blocks, 51 passes.
  EXPECT_EQ(phu.gemm(197, 197, 64, 12).weight_tiles, 51 * 3);
}

} // namespace
} // namespace lightsim::sim
