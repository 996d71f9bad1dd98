// The PHU's tiles and cores (issue 25) against hand counts: a 64-wide attention GEMM (DeiT-T's Q K^T, three
// heads of 197 tokens) on Lightening-Transformer's geometry, 4 tiles x 2 cores of 12 x 12 with the streamed
// operand broadcast to the tiles (the folded 24 x 48 array, pass for pass), and the same tiles with private
// streams, which pack the heads' column blocks into fewer passes; independent tiles (a microring weight
// bank's cores), which take any block, pass by pass where the converters bind; and signed inputs streamed in
// two passes, fused attention's probabilities in one.
#include "sim/hw/kernel.h"
#include "sim/units/phu/photonic_mac_array.h"
#include "sim/units/phu/phu_kind.h"
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

// A microring weight bank's geometry: 4 independent cores of 12 x 12 (a 12 x 48 array), one input vector
// per core per cycle at 1 GHz, weights held, `dacs` and `adcs` DACs and ADCs over the 4 cores at 1 GS/s.
ir::Unit ring_bank(int dacs, int adcs, int sign_passes) {
  ir::Unit u = test::sim_machine().units[2];
  u.clock_ghz = 1;
  auto& p = u.as<units::PhuParams>();
  p.rows = 12;
  p.cols = 48;
  p.tiles = 4;
  p.cores_per_tile = 1;
  p.tile_operand = units::TileOperand::Independent;
  p.wdm_channels = 1;
  p.accumulation_cycles = 1;
  p.input_sign_passes = sign_passes;
  p.operand_encoding = units::OperandEncoding::Static;
  p.weight_reload_ns = 0;
  p.bits = 8;
  p.dac = {.count = dacs, .bit_clock_ghz = 9, .fom_fj_per_step = 1, .bits = {}};
  p.adc = {.count = adcs, .bit_clock_ghz = 9, .fom_fj_per_step = 1, .bits = {}};
  p.mac_energy_pj = 0.5;
  return u;
}

// m 10, k 20 (a block of 12 rows and one of 8), n 30 (two blocks of 12 columns and one of 6): 6 blocks, 4 to
// a pass. With one DAC per core, a 12-row block streams 120 samples through it (120 ns), an 8-row one 80 ns;
// with 12 ADCs per core the outputs take 10 ns. The three 12-row blocks and one 8-row block share the first
// pass (120 ns), the two other 8-row blocks the second (80 ns).
TEST(PhuTiles, IndependentTilesTakeAnyBlockLongestFirst) {
  fresh_simulation();
  const PhotonicMacArray bank("bank", ring_bank(4, 48, 1));
  const PhuGemmTiming t = bank.gemm(10, 30, 20, 1);
  EXPECT_EQ(t.weight_tiles, 6);
  EXPECT_NEAR(t.busy_ns, 120 + 80, 1e-9);
  EXPECT_NEAR(t.optics_ns, 2 * 10, 1e-9);         // 10 cycles a pass, far from binding
  EXPECT_DOUBLE_EQ(t.dac_samples, 10.0 * 20 * 3); // each column block reads the whole k of its 10 inputs
  EXPECT_DOUBLE_EQ(t.adc_samples, 10.0 * 30 * 2); // each output once per k block
  EXPECT_DOUBLE_EQ(t.weight_cells, 20.0 * 30);
  EXPECT_EQ(t.streamed_sends, 3);
  // With converters enough for the optics' pace (12 per core), every pass takes its 10 cycles.
  const PhotonicMacArray fast("fast", ring_bank(48, 48, 1));
  EXPECT_NEAR(fast.gemm(10, 30, 20, 1).busy_ns, 2 * 10, 1e-9);
  // Two GEMMs (batch 2): 12 blocks, 3 passes of 12-row blocks first (6 of them), then 8-row ones.
  EXPECT_NEAR(bank.gemm(10, 30, 20, 2).busy_ns, 120 + 120 + 80, 1e-9);
}

// Signed inputs on an intensity-encoded array stream twice: twice the time, the DAC and ADC samples, the
// streamed operand's sends and the optical MACs (each charged mac_energy_pj); the weights are set once.
TEST(PhuTiles, SignedInputsStreamInTwoPasses) {
  fresh_simulation();
  const PhotonicMacArray once("once", ring_bank(48, 48, 1));
  const PhotonicMacArray twice("twice", ring_bank(48, 48, 2));
  const PhuGemmTiming a = once.gemm(10, 30, 20, 1), b = twice.gemm(10, 30, 20, 1);
  EXPECT_NEAR(b.busy_ns, 2 * a.busy_ns, 1e-9);
  EXPECT_DOUBLE_EQ(b.dac_samples, 2 * a.dac_samples);
  EXPECT_DOUBLE_EQ(b.adc_samples, 2 * a.adc_samples);
  EXPECT_EQ(b.streamed_sends, 2 * a.streamed_sends);
  EXPECT_DOUBLE_EQ(b.weight_cells, a.weight_cells);
  EXPECT_DOUBLE_EQ(b.macs, 10.0 * 30 * 20);
  EXPECT_DOUBLE_EQ(b.optical_macs, 2 * b.macs);
  EXPECT_NEAR(twice.gemm_energy(b)[units::phu_features().optical_mac], 2 * 6000 * 0.5e-12, 1e-24);

  // Fused attention (3 heads, 10 queries, 20 keys, head dim 12): Q K^T streams the signed queries twice,
  // P V the softmax's probabilities once.
  ir::OpFeatures attention;
  attention.gemm_batch = 3;
  attention.gemm_m = 10;
  attention.gemm_n = 20;
  attention.gemm_k = 12;
  attention.attention_value_dim = 12;
  const ir::Unit bank = ring_bank(48, 48, 2);
  const units::PhuOpWork w = units::phu_op_work(bank, attention);
  const PhuGemmTiming qk = twice.gemm(10, 20, 12, 3);
  const PhuGemmTiming pv = once.gemm(10, 12, 20, 3);
  EXPECT_NEAR(w.gemm.busy_ns, qk.busy_ns + pv.busy_ns, 1e-9);
  EXPECT_DOUBLE_EQ(w.gemm.optical_macs, 2 * qk.macs + pv.macs);
  EXPECT_DOUBLE_EQ(w.gemm.dac_samples, qk.dac_samples + pv.dac_samples);
}

} // namespace
} // namespace lightsim::sim
