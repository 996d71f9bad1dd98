// The SystemC modules against hand-computed numbers: PHU GEMM tiling (reloads, an optics-bound and a
// converter-bound case), its energy by component and the converters' precision (pace and energy), analog
// accumulation (ADC samples once per group of k passes), buffer levels (bytes per level), a PCIe transfer
// (latency + headers + bytes / bandwidth, energy per byte and per packet), concurrent transfers sharing a
// link, SRAM spill (its energy under DRAM). The CPU's are in cpu_module_test.cc, the GPU's in gpu_test.cc.
#include "sim/hw/kernel.h"
#include "sim/hw/link.h"
#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"
#include "sim/units/phu/photonic_mac_array.h"
#include "sim/units/phu/phu_kind.h"
#include "sim/units/phu/phu_work.h"
#include "tests/sim/at_process.h"
#include "tests/sim/sim_fixture.h"

#include <gtest/gtest.h>
#include <map>
#include <systemc>
#include <vector>

using namespace lightsim::units; // the unit kinds' parameters and work counts (sim/units/)

namespace lightsim::sim {
namespace {

using test::sim_machine;

constexpr double kPs = 1e-3; // ns

// --- Photonic MAC array -------------------------------------------------------------------------------

TEST(PhotonicMacArray, OpticsBoundGemmTilesAndReloads) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  PhotonicMacArray phu("phu", hw.units[2]); // 64 x 64, 16 WDM, 10 GHz, 2048 DACs/ADCs at 10 GS/s
  // 1024 x 128 x 128: 2 x 2 weight tiles of 64 x 64. Per tile: optics ceil(1024/16) = 64 cycles = 6.4 ns;
  // DAC 1024*64/2048 = 32 samples = 3.2 ns; ADC likewise 3.2 ns -> optics bound: 10 + 6.4 = 16.4 ns.
  const PhuGemmTiming t = phu.gemm(1024, 128, 128, 1);
  EXPECT_EQ(t.weight_tiles, 4);
  EXPECT_NEAR(t.reload_ns, 40, 1e-9);
  EXPECT_NEAR(t.optics_ns, 4 * 6.4, 1e-9);
  EXPECT_NEAR(t.dac_ns, 4 * 3.2, 1e-9);
  EXPECT_NEAR(t.busy_ns, 4 * 16.4, 1e-9);
  // Batch 3 repeats every tile.
  EXPECT_NEAR(phu.gemm(1024, 128, 128, 3).busy_ns, 3 * 4 * 16.4, 1e-9);
}

TEST(PhotonicMacArray, ConverterBoundGemmWithPartialTiles) {
  fresh_simulation();
  ir::Hardware hw = sim_machine();
  ir::Unit u = hw.units[2];
  // 1 GS/s at 8 bits (9 GHz bit clock / 9); 1 pJ and 3 pJ per conversion.
  u.as<units::PhuParams>().dac = {
      .count = 64, .bit_clock_ghz = 9, .fom_fj_per_step = 1000.0 / 256, .bits = {}};
  u.as<units::PhuParams>().adc = {
      .count = 128, .bit_clock_ghz = 9, .fom_fj_per_step = 3000.0 / 256, .bits = {}};
  PhotonicMacArray phu("phu", u);
  // 1024 x 70 x 100: K tiles of 64 and 36 rows, N tiles of 64 and 6 columns. Optics 6.4 ns per tile.
  // DAC: 1024*64/64 = 1024 ns (k = 64), 1024*36/64 = 576 ns (k = 36).
  // ADC: 1024*64/128 = 512 ns (n = 64), 1024*6/128 = 48 ns (n = 6).
  // Tiles: (64,64) 10+1024, (64,6) 10+1024, (36,64) 10+576, (36,6) 10+576 = 3240 ns.
  const PhuGemmTiming t = phu.gemm(1024, 70, 100, 1);
  EXPECT_EQ(t.weight_tiles, 4);
  EXPECT_NEAR(t.busy_ns, 3240, 1e-9);
  EXPECT_NEAR(t.dac_samples, 1024.0 * (64 + 64 + 36 + 36), 1e-9);
  EXPECT_NEAR(t.adc_samples, 1024.0 * (64 + 6 + 64 + 6), 1e-9);
  EXPECT_NEAR(t.macs, 1024.0 * 70 * 100, 1e-9);
  // Energy: laser 1 W x 3240 ns, 204800 DAC x 1 pJ, 143360 ADC x 3 pJ, 7168000 MACs x 0.02 pJ, and the
  // 100 x 70 weight cells programmed through a DAC each (1 pJ).
  EXPECT_NEAR(t.weight_cells, 7000, 1e-9);
  const ir::EnergyBreakdown e = phu.gemm_energy(t);
  EXPECT_NEAR(e[units::phu_features().laser], 3240e-9, 1e-18);
  EXPECT_NEAR(e[units::phu_features().dac], 204800e-12, 1e-18);
  EXPECT_NEAR(e[units::phu_features().adc], 3 * 143360e-12, 1e-18);
  EXPECT_NEAR(e[units::phu_features().optical_mac], 0.02 * 7168000e-12, 1e-18);
  EXPECT_NEAR(e[units::phu_features().weight_programming], 7000e-12, 1e-18);
  EXPECT_NEAR(e.total(), 3240e-9 + (204800 + 3 * 143360 + 0.02 * 7168000 + 7000) * 1e-12, 1e-15);
  // The linear MAC count alone would call the two shapes equal in cost per MAC; the tiles do not.
  EXPECT_GT(phu.gemm(1024, 70, 100, 1).busy_ns / (70.0 * 100),
            phu.gemm(1024, 128, 128, 1).busy_ns / (128.0 * 128));
}

// Gated lasers (laser_gated) draw power while tiles stream, not while they are programmed: the optics-bound
// GEMM above (4 tiles, 10 ns reload + 6.4 ns stream each) charges 1 W x 4 x 6.4 ns instead of x 16.4 ns, and
// the arithmetic model's laser_cycles feature counts the same 25.6 ns.
TEST(PhotonicMacArray, GatedLasersAreOffWhileTilesAreProgrammed) {
  fresh_simulation();
  ir::Hardware hw = sim_machine();
  ir::Unit u = hw.units[2];
  const PhuGemmTiming busy = PhotonicMacArray("phu_busy", u).gemm(1024, 128, 128, 1);
  u.as<units::PhuParams>().laser_gated = true;
  PhotonicMacArray phu("phu", u);
  const PhuGemmTiming t = phu.gemm(1024, 128, 128, 1);
  EXPECT_NEAR(t.busy_ns, 4 * 16.4, 1e-9); // the time does not change
  EXPECT_NEAR(phu.gemm_energy(t)[units::phu_features().laser], 4 * 6.4e-9, 1e-18);
  EXPECT_NEAR(units::phu_laser_ns(u.as<units::PhuParams>(), t), 4 * 6.4, 1e-9);
  u.as<units::PhuParams>().laser_gated = false;
  EXPECT_NEAR(units::phu_laser_ns(u.as<units::PhuParams>(), busy), 4 * 16.4, 1e-9);
}

TEST(PhotonicMacArray, ConverterBitsSetPaceAndEnergy) {
  fresh_simulation();
  ir::Unit u = sim_machine().units[2];
  u.as<units::PhuParams>().dac = {.count = 64, .bit_clock_ghz = 9, .fom_fj_per_step = 4, .bits = {}};
  u.as<units::PhuParams>().adc = {.count = 128, .bit_clock_ghz = 9, .fom_fj_per_step = 12, .bits = 12};
  PhotonicMacArray phu("phu", u);
  // 1024 x 64 x 64, one tile. DAC at the PHU's 8 bits: 9 / 9 = 1 GS/s, 1024*64/64 = 1024 ns. ADC at its
  // own 12 bits: 9 / 13 GS/s, 1024*64/128 = 512 samples -> 512 * 13 / 9 ns; the DACs set the pace.
  const PhuGemmTiming t = phu.gemm(1024, 64, 64, 1);
  EXPECT_NEAR(t.dac_ns, 1024, 1e-9);
  EXPECT_NEAR(t.adc_ns, 512.0 * 13 / 9, 1e-9);
  EXPECT_NEAR(t.busy_ns, 10 + 1024, 1e-9);
  const ir::EnergyBreakdown e = phu.gemm_energy(t);
  EXPECT_NEAR(e[units::phu_features().dac], 65536 * 4e-15 * 256, 1e-18);
  EXPECT_NEAR(e[units::phu_features().adc], 65536 * 12e-15 * 4096, 1e-18);
  EXPECT_NEAR(e[units::phu_features().weight_programming], 4096 * 4e-15 * 256, 1e-18);
  // Four bits less on the ADC: 16 x less energy per conversion, 9 / 9 GS/s: now ADC and DAC tie.
  u.as<units::PhuParams>().adc.bits = 8;
  PhotonicMacArray eight("eight", u);
  const PhuGemmTiming t8 = eight.gemm(1024, 64, 64, 1);
  EXPECT_NEAR(t8.adc_ns, 512, 1e-9);
  EXPECT_NEAR(eight.gemm_energy(t8)[units::phu_features().adc] * 16, e[units::phu_features().adc], 1e-18);
}

// Analog temporal accumulation (issue 25): with accumulation_cycles A, an output integrates A passes over
// consecutive k blocks before one ADC sample, so only the passes that end a group (and the last) sample.
TEST(PhotonicMacArray, AnalogAccumulationSamplesTheAdcsOncePerGroup) {
  fresh_simulation();
  ir::Unit u = sim_machine().units[2]; // 64 x 64, 16 WDM, 10 GHz, 10 ns reload, one weight buffer
  auto& p = u.as<units::PhuParams>();
  p.dac = {.count = 2048, .bit_clock_ghz = 90, .fom_fj_per_step = 4, .bits = {}}; // 10 GS/s
  p.adc = {.count = 128, .bit_clock_ghz = 9, .fom_fj_per_step = 12, .bits = {}};  // 1 GS/s at 8 bits
  // 1024 x 64 x 320: 5 passes of 64 x 64 over one n block. Per pass: optics 1024 / 16 = 64 cycles = 6.4 ns,
  // DACs 1024 x 64 / 2048 = 32 samples = 3.2 ns, ADCs (when sampling) 1024 x 64 / 128 = 512 samples = 512 ns.
  p.accumulation_cycles = 1; // every pass samples: 5 x (10 + 512) ns, 5 x 65536 ADC samples
  const PhuGemmTiming every = PhotonicMacArray("every", u).gemm(1024, 64, 320, 1);
  EXPECT_DOUBLE_EQ(every.adc_samples, 5 * 65536.0);
  EXPECT_NEAR(every.busy_ns, 5 * (10 + 512.0), 1e-9);
  p.accumulation_cycles = 2; // passes 2, 4 and 5 sample: 3 x 65536; the other two stream at the optics' pace
  PhotonicMacArray two("two", u);
  const PhuGemmTiming t = two.gemm(1024, 64, 320, 1);
  EXPECT_DOUBLE_EQ(t.adc_samples, 3 * 65536.0);
  EXPECT_DOUBLE_EQ(t.dac_samples, 1024 * 320.0); // the inputs are converted as before
  EXPECT_NEAR(t.adc_ns, 3 * 512.0, 1e-9);
  EXPECT_NEAR(t.busy_ns, 5 * 10 + 3 * 512 + 2 * 6.4, 1e-9);
  // Energy: 3 x 65536 conversions at 12 fJ x 2^8 per step, against 5 x 65536 without accumulation.
  EXPECT_NEAR(two.gemm_energy(t)[units::phu_features().adc], 3 * 65536 * 12e-15 * 256, 1e-18);
  // k = 300: 4 full passes and a partial one of 44 rows, which is last and always samples: still 3 groups.
  const PhuGemmTiming partial = two.gemm(1024, 64, 300, 1);
  EXPECT_DOUBLE_EQ(partial.adc_samples, 3 * 65536.0);
  EXPECT_NEAR(partial.busy_ns, 5 * 10 + 3 * 512 + 2 * 6.4, 1e-9);
  p.accumulation_cycles = 8; // more than the passes: one sample, at the last pass
  const PhuGemmTiming once = PhotonicMacArray("once", u).gemm(1024, 64, 320, 1);
  EXPECT_DOUBLE_EQ(once.adc_samples, 65536.0);
  EXPECT_NEAR(once.busy_ns, 5 * 10 + 512 + 4 * 6.4, 1e-9);
}

// Dynamic operands (issue 25): the k x n operand is modulated every cycle through the DACs instead of
// programmed into the cells, so no reload time and no programming energy, but ceil(m / wdm) x k_tile x
// n_tile more DAC samples per pass.
TEST(PhotonicMacArray, DynamicOperandsProgramNothingAndModulateEveryCycle) {
  fresh_simulation();
  ir::Unit u = sim_machine().units[2]; // 64 x 64, 16 WDM, 10 GHz, 10 ns reload, one weight buffer
  auto& p = u.as<units::PhuParams>();
  p.dac = {.count = 2048, .bit_clock_ghz = 90, .fom_fj_per_step = 4, .bits = {}};  // 10 GS/s, 1.024 pJ
  p.adc = {.count = 1024, .bit_clock_ghz = 90, .fom_fj_per_step = 12, .bits = {}}; // 10 GS/s
  // 1024 x 64 x 64, one tile. Optics 1024 / 16 = 64 cycles = 6.4 ns; ADCs 65536 / 1024 = 64 samples = 6.4 ns.
  // Static: DACs 1024 x 64 / 2048 = 32 samples = 3.2 ns; busy = reload 10 + 6.4; 4096 cells programmed.
  const PhotonicMacArray fixed("static", u);
  const PhuGemmTiming s = fixed.gemm(1024, 64, 64, 1);
  EXPECT_NEAR(s.busy_ns, 16.4, 1e-9);
  EXPECT_DOUBLE_EQ(s.weight_cells, 4096.0);
  EXPECT_NEAR(fixed.gemm_energy(s)[units::phu_features().weight_programming], 4096 * 1.024e-12, 1e-21);
  // Dynamic: the DACs also take the 64 x 64 operand in each of the 64 cycles: 65536 + 262144 samples,
  // 160 per DAC = 16 ns, which now bounds the pass; nothing is programmed. (The operands' roles exchanged,
  // 16 passes of 64 x 64 with 4 cycles each, bound by 10 DAC samples = 1 ns, also take 16 ns: a tie keeps
  // the mapping as given.)
  p.operand_encoding = units::OperandEncoding::Dynamic;
  const PhotonicMacArray dynamic("dynamic", u);
  const PhuGemmTiming d = dynamic.gemm(1024, 64, 64, 1);
  EXPECT_DOUBLE_EQ(d.dac_samples, 65536.0 + 64 * 4096.0);
  EXPECT_NEAR(d.busy_ns, 16.0, 1e-9);
  EXPECT_DOUBLE_EQ(d.reload_ns, 0.0);
  EXPECT_DOUBLE_EQ(d.weight_cells, 0.0);
  const ir::EnergyBreakdown e = dynamic.gemm_energy(d);
  EXPECT_EQ(e[units::phu_features().weight_programming], 0.0);
  EXPECT_NEAR(e[units::phu_features().dac], 327680 * 1.024e-12, 1e-18);
}

// The periphery's ALUs (issue 25, What to build 4): periphery_pj_per_op per element operation, on an op
// without a GEMM view and on a GEMM's fused tail alike, beside (not instead of) the operands' memory energy;
// nothing at 0.
TEST(PhotonicMacArray, PeripheryAlusChargeEachElementOperation) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  ir::Unit u = hw.units[2];
  u.as<units::PhuParams>().periphery_pj_per_op = 0.1;
  const PhotonicMacArray phu("phu", u);
  const ir::Memory& sram = hw.memories[2]; // 1 pJ per byte
  // An add of 1000 elements: 1000 element operations; 3000 operand bytes at the SRAM.
  ir::Op add;
  add.op_class = ir::OpClass::Add;
  add.features = {.elements_in = 2000, .elements_out = 1000, .elementwise_ops = 1000};
  const ir::EnergyBreakdown a = phu.op_energy({.op = 0, .lane = 0, .desc = &add, .home_bytes = 3000}, sram);
  EXPECT_NEAR(a[units::phu_features().periphery], 1000 * 0.1e-12, 1e-24);
  EXPECT_NEAR(a[ir::memory_component(sram.kind)], 3000 * 1e-12, 1e-24);
  // A 16 x 16 x 16 GEMM with a 3-op tail per output (bias, activation, residual): 768 operations in the
  // periphery, on top of the GEMM's own components.
  ir::Op gemm{.op_class = ir::OpClass::Dense};
  ir::OpFeatures& f = gemm.features;
  f.gemm_batch = 1;
  f.gemm_m = f.gemm_n = f.gemm_k = 16;
  f.macs = 16.0 * 16 * 16;
  f.elementwise_ops = 3 * 16 * 16;
  const ir::EnergyBreakdown g = phu.op_energy({.op = 1, .lane = 0, .desc = &gemm, .home_bytes = 0}, sram);
  EXPECT_NEAR(g[units::phu_features().periphery], 768 * 0.1e-12, 1e-24);
  EXPECT_GT(g[units::phu_features().optical_mac], 0.0);
  // Not modelled: nothing charged.
  u.as<units::PhuParams>().periphery_pj_per_op = 0;
  const PhotonicMacArray off("off", u);
  EXPECT_EQ(off.op_energy({.op = 0, .lane = 0, .desc = &add, .home_bytes = 3000},
                          sram)[units::phu_features().periphery],
            0.0);
}

// Buffer levels (issue 25): a GEMM's bytes through the local buffer, the converters' registers and the
// partial-sum network, and what its memory moves beyond each operand once, by hand.
TEST(PhotonicMacArray, BufferLevelsCountTheMappingsTraffic) {
  fresh_simulation();
  ir::Unit u = sim_machine().units[2];
  auto& p = u.as<units::PhuParams>();
  p.rows = p.cols = 4; // static operands, one pass per ADC sample
  p.buffers = {.local_buffer_bytes = 16,
               .local_buffer_pj_per_byte = 0.5,
               .register_file_pj_per_byte = 0.25,
               .partial_sum_network_pj_per_byte = 2};
  const PhotonicMacArray phu("phu", u);
  // 8 x 8 by 8 x 8 at one byte per element: 2 x 2 tiles of 4 x 4. DAC samples 8 x 4 per tile = 128, ADC
  // samples 8 x 4 per tile = 128, 64 cells programmed; 2 column blocks.
  ir::OpFeatures op;
  op.gemm_m = op.gemm_n = op.gemm_k = 8;
  op.gemm_batch = 1;
  op.elements_in = op.bytes_in = 128;
  op.elements_out = op.bytes_out = 64;
  const PhuGemmTiming t = phu.gemm(8, 8, 8, 1);
  ASSERT_DOUBLE_EQ(t.dac_samples, 128.0);
  ASSERT_DOUBLE_EQ(t.adc_samples, 128.0);
  ASSERT_DOUBLE_EQ(t.weight_cells, 64.0);
  const PhuBufferTraffic b = phu_buffer_traffic(u, op, t);
  // A column block's k slices are 4 x 8 = 32 B against 16 B of local buffer: 2 segments, so each output
  // goes out and back once (2 x 2 - 1 = 3 accesses of the local buffer, 2 more of the memory).
  EXPECT_EQ(b.output_segments, 2);
  // Memory beyond the operands once: the inputs again for the second column block (64 B), outputs 2 x 64.
  EXPECT_DOUBLE_EQ(b.memory_extra_bytes, 64.0 + 128.0);
  // Local buffer: 192 read to the DACs (samples and cells), 128 + 64 written from memory, 3 x 64 outputs.
  EXPECT_DOUBLE_EQ(b.local_buffer_bytes, 192.0 + 192.0 + 192.0);
  EXPECT_DOUBLE_EQ(b.register_file_bytes, 2 * (192.0 + 128.0));
  EXPECT_DOUBLE_EQ(b.partial_sum_network_bytes, 128.0);
  const ir::EnergyBreakdown e = phu.buffer_energy(b);
  EXPECT_NEAR(e[units::phu_features().local_buffer], 576 * 0.5e-12, 1e-24);
  EXPECT_NEAR(e[units::phu_features().register_file], 640 * 0.25e-12, 1e-24);
  EXPECT_NEAR(e[units::phu_features().partial_sum_network], 128 * 2e-12, 1e-24);
  EXPECT_DOUBLE_EQ(phu_materialised_bytes(u, op), 192.0);
  // A local buffer that holds the 32 B keeps the outputs in the registers: no round trips.
  p.buffers.local_buffer_bytes = 32;
  EXPECT_DOUBLE_EQ(phu_buffer_traffic(u, op, t).memory_extra_bytes, 64.0);
  // Without buffer levels nothing moves beyond the operands.
  p.buffers = {};
  EXPECT_DOUBLE_EQ(phu_materialised_bytes(u, op), 0.0);
}

// --- CPU: tests/sim/cpu_module_test.cc; GPU: tests/sim/gpu_test.cc ---------------------------------

// Records completion times of ops and hops.
struct Recorder : sc_core::sc_module, OpDoneIf, HopDoneIf {
  std::map<std::uint64_t, std::uint64_t> done_ps;
  std::map<std::uint64_t, double> energy;
  explicit Recorder(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  std::map<std::uint64_t, ir::EnergyBreakdown> parts;
  void op_done(ir::OpId op, int, const ir::EnergyBreakdown& e) override {
    done_ps[static_cast<std::uint64_t>(op)] = now_ps();
    energy[static_cast<std::uint64_t>(op)] = e.total();
    parts[static_cast<std::uint64_t>(op)] = e;
  }
  void hop_done(std::uint64_t token, double e) override {
    done_ps[token] = now_ps();
    energy[token] = e;
  }
};

using test::At; // runs a callback at a simulated time

// --- PCIe link -----------------------------------------------------------------------------------------

TEST(Link, PcieTransferLatencyHeadersBandwidth) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  Recorder rec("rec");
  Link link("pcie", hw.links[1]); // 32 GB/s, 800 ns, 256 B payload, 24 B header
  link.done.bind(rec);
  // 1e6 bytes = 3907 packets (3906 full + 64 B): wire 1e6 + 3907 * 24 = 1093768 B -> 34180.25 ns.
  EXPECT_DOUBLE_EQ(link.wire_bytes(1000000), 1093768);
  EXPECT_NEAR(link.transfer_ns(1000000), 800 + 34180.25, 1e-9);
  EXPECT_NEAR(link.energy_j(1000000), 1093768 * 40e-12, 1e-15);
  ir::Link with_packets = hw.links[1];
  with_packets.energy_pj_per_packet = 320; // + 3907 packets x 320 pJ
  EXPECT_NEAR(Link("pcie2", with_packets).energy_j(1000000), (1093768 * 40 + 3907 * 320) * 1e-12, 1e-15);
  At go("go", 0, [&] { link.send(7, 1000000, 0, 1); });
  sc_core::sc_start();
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(7)) * kPs, 34980.25, 0.002);
  EXPECT_EQ(link.payload_bytes(), 1000000u);
  EXPECT_NEAR(link.busy_s(), 34180.25e-9, 1e-14);
}

TEST(Link, TwoConcurrentTransfersTakeTwiceAsLong) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  Recorder rec("rec");
  Link link("pcie", hw.links[1]);
  link.done.bind(rec);
  At go("go", 0, [&] {
    link.send(1, 1000000, 0, 1);
    link.send(2, 1000000, 0, 1);
    link.send(3, 1000000, 1, 1); // the other direction has its own bandwidth
    // A shard's transfer beside its peer's copy (ir::Route::copies = 2) holds its port as long as two do,
    // and is charged one transfer's energy.
    link.send(4, 1000000, 1, 2);
  });
  sc_core::sc_start();
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(1)) * kPs, 800 + 2 * 34180.25, 0.002);
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(2)) * kPs, 800 + 2 * 34180.25, 0.002);
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(3)) * kPs, 800 + 2 * 34180.25, 0.002);
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(4)) * kPs, 800 + 3 * 34180.25, 0.002);
  EXPECT_NEAR(rec.energy.at(4), rec.energy.at(3), 1e-18);
  EXPECT_NEAR(rec.energy.at(3), 1093768 * 40e-12, 1e-15);
}

TEST(Link, SharesAreRecomputedWhenATransferArrives) {
  fresh_simulation();
  const ir::Hardware hw = sim_machine();
  Recorder rec("rec");
  Link link("pcie", hw.links[1]);
  link.done.bind(rec);
  At first("first", 0, [&] { link.send(1, 1000000, 0, 1); });
  At second("second", 10000, [&] { link.send(2, 1000000, 0, 1); });
  sc_core::sc_start();
  // First alone for 10000 ns (320000 wire B), then both at 16 GB/s: first's 773768 B take 48360.5 ns;
  // then the second's last 320000 B alone take 10000 ns.
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(1)) * kPs, 58360.5 + 800, 0.002);
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(2)) * kPs, 68360.5 + 800, 0.002);
}

TEST(Link, BusHasNoPacketHeaders) {
  fresh_simulation();
  ir::Link bus{
      .name = "bus", .kind = ir::LinkKind::Bus, .endpoints = {0, 1}, .bandwidth_GBps = 64, .latency_ns = 2};
  Link link("bus", bus);
  EXPECT_DOUBLE_EQ(link.wire_bytes(1000), 1000);
  EXPECT_DOUBLE_EQ(link.transfer_ns(6400), 2 + 100);
}

TEST(Link, SwitchedLinkSharesEachSendingPortNotTheSwitch) {
  fresh_simulation();
  ir::Link nvswitch{.name = "nvswitch",
                    .kind = ir::LinkKind::Nvlink,
                    .endpoints = {0, 1, 2, 3},
                    .bandwidth_GBps = 100,
                    .latency_ns = 500};
  Recorder rec("rec");
  Link link("nvswitch", nvswitch);
  link.done.bind(rec);
  // At t = 0: port 0 sends two transfers of 1 MB, ports 1 and 2 one each. Each port has its own 100 GB/s:
  // port 0's two share it (20000 ns both), ports 1 and 2 take 10000 ns; the last byte lands 500 ns later.
  At start("start", 0, [&] {
    link.send(1, 1000000, 0, 1);
    link.send(2, 1000000, 0, 1);
    link.send(3, 1000000, 1, 1);
    link.send(4, 1000000, 2, 1);
  });
  sc_core::sc_start();
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(1)) * kPs, 20000 + 500, 0.002);
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(2)) * kPs, 20000 + 500, 0.002);
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(3)) * kPs, 10000 + 500, 0.002);
  EXPECT_NEAR(static_cast<double>(rec.done_ps.at(4)) * kPs, 10000 + 500, 0.002);
  EXPECT_EQ(link.payload_bytes(), 4000000u);
  EXPECT_NEAR(link.busy_s(), 20000e-9, 1e-12); // some port had data on the wire for 20000 ns
}

// --- Memories ------------------------------------------------------------------------------------------

TEST(Sram, OverflowSpillsToItsSpillMemory) {
  fresh_simulation();
  ir::Hardware hw = sim_machine(1000); // 1000-byte SRAM spilling to DRAM (index 0)
  MainMemory dram("dram", hw.memories[0], 0);
  Sram sram("sram", hw.memories[2], 2);
  sram.spill.bind(dram.target);
  EXPECT_EQ(sram.allocate(600), 2);
  EXPECT_FALSE(sram.fits(600));
  EXPECT_EQ(sram.allocate(600), 0); // does not fit: placed in DRAM
  EXPECT_DOUBLE_EQ(sram.spilled_bytes(), 600);
  EXPECT_DOUBLE_EQ(dram.used_bytes(), 600);
  EXPECT_EQ(sram.allocate(400), 2); // exactly fills the SRAM
  sram.release(0, 600);
  EXPECT_DOUBLE_EQ(dram.used_bytes(), 0);
  sram.release(2, 600);
  EXPECT_EQ(sram.allocate(500), 2);
  // Spilled operands cost the slower memory's latency and bandwidth: 100 ns + 600 B / 100 GB/s.
  EXPECT_DOUBLE_EQ(access_ns(hw.memories[2], 600), 5 + 0.3);
  ir::Op op;
  op.op_class = ir::OpClass::Add;
  op.features = {.elements_in = 150, .elements_out = 150, .elements_read = 150};
  PhotonicMacArray phu("phu", hw.units[2]);
  OpWork home{.op = 0, .lane = 0, .desc = &op, .home_bytes = 600};
  OpWork spilled{.op = 0, .lane = 0, .desc = &op, .spill_bytes = 600, .spill = &hw.memories[0]};
  EXPECT_DOUBLE_EQ(phu.op_ns(home, hw.memories[2]), 5.3);
  // The add runs in the electronic periphery alongside (150 ops at 20480 per ns); the spill comes after.
  EXPECT_DOUBLE_EQ(phu.op_ns(spilled, hw.memories[2]), 150.0 / 20480 + 106);
  // Their energy is charged under the memory that moved them: SRAM 1 pJ/B, the DRAM it spilled to 20 pJ/B.
  EXPECT_NEAR(phu.op_energy(home, hw.memories[2])[ir::EnergyComponent::Sram], 600e-12, 1e-21);
  const ir::EnergyBreakdown spill_energy = phu.op_energy(spilled, hw.memories[2]);
  EXPECT_NEAR(spill_energy[ir::EnergyComponent::Dram], 600 * 20e-12, 1e-21);
  EXPECT_EQ(spill_energy[ir::EnergyComponent::Sram], 0);
}

TEST(MainMemory, BandwidthAndLatency) {
  const ir::Hardware hw = sim_machine();
  EXPECT_DOUBLE_EQ(access_ns(hw.memories[1], 3e6), 500 + 1000); // HBM: 500 ns + 3 MB / 3000 GB/s
  EXPECT_DOUBLE_EQ(access_ns(hw.memories[0], 0), 0);
}

} // namespace
} // namespace lightsim::sim
