// Tests of TransferModel: routes (fastest, then fewest hops, then config order) and the cost of moving
// N bytes over PCIe with per-packet headers (energy per wire byte and per packet), checked against
// hand-computed numbers.
#include "ir/cost/device_plan.h"
#include "ir/error.h"
#include "ir/hardware/hardware.h"
#include "ir/hardware/transfer.h"
#include "tests/ir/hardware_fixture.h"
#include "tests/test_support.h"

#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace lightsim::ir {
namespace {

using nlohmann::json;

Hardware small() {
  return hardware_from_json(test::small_machine(), "small.json");
}

// The same machine with one extra link appended to the fixture's two.
Hardware with_link(const json& link) {
  json c = test::small_machine();
  c["links"].push_back(link);
  return hardware_from_json(c, "small.json");
}

// All three units on one NVSwitch besides their own links: 4 NVLinks x 25 GB/s per port, 300 ns.
Hardware on_one_switch() {
  return with_link({{"name", "nvswitch"},
                    {"kind", "nvlink"},
                    {"endpoints", json::array({"cpu0", "gpu0", "phu0"})},
                    {"latency_ns", 300},
                    {"energy_pj_per_byte", 10},
                    {"links", 4},
                    {"GBps_per_link", 25}});
}

TEST(Transfer, PcieCostIsLatencyPlusHeaderOverheadPlusBytesOverBandwidth) {
  Hardware hw = small();
  TransferModel tm(hw);
  const int dram = hw.find_memory("dram0"), hbm = hw.find_memory("hbm0");
  const double bw = 32.0 * 16 * 128 / 130 / 8; // gen5 x16, GB/s = bytes/ns
  // N, packets of at most 256 bytes, 24 header bytes each; N = 1000 and 1'000'003 are not multiples.
  struct Case {
    std::uint64_t bytes, packets;
  };
  for (Case c :
       {Case{1, 1}, Case{256, 1}, Case{257, 2}, Case{1000, 4}, Case{4096, 16}, Case{1000003, 3907}}) {
    double wire = static_cast<double>(c.bytes + 24 * c.packets);
    EXPECT_EQ(TransferModel::wire_bytes(hw.links[0], c.bytes), wire) << c.bytes;
    Cost cost = tm.cost(dram, hbm, c.bytes);
    EXPECT_NEAR(cost.time_s, (1000 + wire / bw) * 1e-9, 1e-18) << c.bytes;
    // 40 pJ per wire byte + 320 pJ per packet (the fixture's pcie-gpu).
    EXPECT_NEAR(cost.energy_j, (wire * 40 + 320.0 * static_cast<double>(c.packets)) * 1e-12, 1e-21)
        << c.bytes;
    EXPECT_EQ(TransferModel::packets(hw.links[0], c.bytes), c.packets);
    EXPECT_EQ(tm.cost(hbm, dram, c.bytes), cost) << "links are symmetric";
  }
}

TEST(Transfer, SameMemoryCostsNothing) {
  Hardware hw = small();
  TransferModel tm(hw);
  for (int m = 0; m < 3; ++m) {
    EXPECT_EQ(tm.cost(m, m, 1 << 20), Cost{});
    EXPECT_TRUE(tm.route(m, m).links.empty());
    EXPECT_EQ(tm.route(m, m).memories, std::vector<int>{m});
  }
}

TEST(Transfer, GpuToPhuGoesThroughHostDram) {
  Hardware hw = small();
  TransferModel tm(hw);
  const int dram = hw.find_memory("dram0"), hbm = hw.find_memory("hbm0"), sram = hw.find_memory("sram0");
  const Route& r = tm.route(hbm, sram);
  EXPECT_EQ(r.links, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.memories, (std::vector<int>{hbm, dram, sram}));
  EXPECT_EQ(tm.route(sram, hbm).links, (std::vector<int>{1, 0}));

  const std::uint64_t n = 1 << 20; // 4096 packets of 256 bytes
  const double wire = n + 4096.0 * 24;
  const double gen5 = 32.0 * 16 * 128 / 130 / 8, gen4 = 16.0 * 16 * 128 / 130 / 8;
  Cost c = tm.cost(hbm, sram, n);
  EXPECT_NEAR(c.time_s, (1000 + wire / gen5 + 800 + wire / gen4) * 1e-9, 1e-15);
  EXPECT_NEAR(c.energy_j, (2 * wire * 40 + 4096 * 320.0) * 1e-12, 1e-18); // packets: pcie-gpu only
  EXPECT_EQ(c, tm.cost(hbm, dram, n) + tm.cost(dram, sram, n));
}

TEST(Transfer, SwitchedLinkIsOneHopBetweenAnyTwoOfItsEndpoints) {
  Hardware hw = on_one_switch();
  EXPECT_EQ(hw.links[2].bandwidth_GBps, 100);
  EXPECT_EQ(link_port(hw.links[2], hw.find_memory("sram0")), 2);
  EXPECT_EQ(link_port(hw.links[2], 99), -1);
  TransferModel tm(hw);
  const int hbm = hw.find_memory("hbm0"), sram = hw.find_memory("sram0");
  EXPECT_EQ(tm.route(hbm, sram).links, (std::vector<int>{2})); // not through the host's DRAM any more
  EXPECT_EQ(tm.route(sram, hbm).memories, (std::vector<int>{sram, hbm}));
  const Cost c = tm.cost(hbm, sram, 1000000);
  EXPECT_NEAR(c.time_s, (300 + 1e6 / 100) * 1e-9, 1e-18);
  EXPECT_NEAR(c.energy_j, 1e6 * 10e-12, 1e-18);
  // The config writes it back with every endpoint.
  EXPECT_EQ(hardware_from_json(hardware_to_json(hw), "again.json").links, hw.links);
}

TEST(Transfer, ShardPeersShareTheSwitchPortTheyAllSendFrom) {
  // The host and two devices on one switch (faster than their own PCIe links); gpu0 runs a shard whose
  // peer is phu0 (replica map hbm0 -> sram0). The host streams both the same bytes out of its one port:
  // dram0 -> hbm0 is shared (2 copies); what each device sends leaves its own port (1 copy).
  Hardware hw = on_one_switch();
  TransferModel tm(hw);
  const int dram = hw.find_memory("dram0"), hbm = hw.find_memory("hbm0"), sram = hw.find_memory("sram0");
  std::vector<int> peer(hw.memories.size());
  for (std::size_t m = 0; m < peer.size(); ++m)
    peer[m] = static_cast<int>(m);
  peer[static_cast<std::size_t>(hbm)] = sram;
  const Cost alone = tm.cost(dram, hbm, 1000000);
  tm.set_replicas({peer});
  EXPECT_EQ(tm.route(dram, hbm).copies, (std::vector<int>{2}));
  EXPECT_EQ(tm.route(hbm, dram).copies, (std::vector<int>{1}));
  EXPECT_EQ(tm.route(hbm, sram).copies, (std::vector<int>{1})); // the peer's own memory: no transfer
  const Cost shared = tm.cost(dram, hbm, 1000000);
  EXPECT_NEAR(alone.time_s, (300 + 1e6 / 100) * 1e-9, 1e-18);
  EXPECT_NEAR(shared.time_s, (300 + 2 * 1e6 / 100) * 1e-9, 1e-18);
  EXPECT_DOUBLE_EQ(shared.energy_j, alone.energy_j);
  tm.set_replicas({});
  EXPECT_EQ(tm.route(dram, hbm).copies, (std::vector<int>{1}));
  EXPECT_THROW(tm.set_replicas({{0}}), std::invalid_argument);
}

// The shipped boxes under their shards' plans (ir::replica_memories): on h100x8.json two pipeline stages of
// 2-GPU shards share nothing (each GPU its own PCIe link and NVSwitch port: the stage boundary gpu0 -> gpu2
// and its peer's gpu1 -> gpu3 leave different ports); on photonic-x4.json the host streams all four cards
// out of its one switch port (4 copies), while a card's own sends leave its own port.
TEST(Transfer, ShippedBoxesShareOnlyTheHostsSwitchPort) {
  const Hardware gpus = load_hardware(test::source_path("configs/h100x8.json"));
  const auto unit = [](const Hardware& hw, const char* name) { return hw.find_unit(name); };
  DevicePlan plan;
  plan.shard = true;
  plan.stages = {{unit(gpus, "gpu0"), unit(gpus, "gpu1")}, {unit(gpus, "gpu2"), unit(gpus, "gpu3")}};
  TransferModel tm(gpus);
  tm.set_replicas(replica_memories(plan, gpus));
  const int dram = gpus.find_memory("dram0"), hbm0 = gpus.find_memory("hbm0"),
            hbm2 = gpus.find_memory("hbm2");
  EXPECT_EQ(tm.route(hbm0, hbm2).copies, (std::vector<int>{1}));
  EXPECT_EQ(tm.route(dram, hbm0).copies, (std::vector<int>{1}));
  EXPECT_EQ(tm.route(hbm2, dram).copies, (std::vector<int>{1}));

  const Hardware cards = load_hardware(test::source_path("configs/photonic-x4.json"));
  plan.stages = {{unit(cards, "phu0"), unit(cards, "phu1"), unit(cards, "phu2"), unit(cards, "phu3")}};
  TransferModel box(cards);
  box.set_replicas(replica_memories(plan, cards));
  const int host = cards.find_memory("dram0"), sram0 = cards.find_memory("sram0");
  EXPECT_EQ(box.route(host, sram0).copies, (std::vector<int>{4}));
  EXPECT_EQ(box.route(sram0, host).copies, (std::vector<int>{1}));
  EXPECT_GT(box.cost(host, sram0, 1 << 20).time_s,
            3.9 * TransferModel(cards).cost(host, sram0, 1 << 20).time_s);
}

TEST(Transfer, ALinkNamesEachMemoryOnce) {
  json c = test::small_machine();
  c["links"][0]["endpoints"] = json::array({"cpu0", "gpu0", "dram0"}); // cpu0 means dram0
  test::expect_config_error(c, "links[0].endpoints[2]", "memory 'dram0' is already an endpoint of this link");
  c["links"][0]["endpoints"] = json::array({"cpu0"});
  test::expect_config_error(c, "links[0].endpoints", "expected an array of two or more names");
}

TEST(Transfer, FasterPathBeatsFewerHops) {
  // A direct GPU-PHU bus, slower per byte than the two PCIe hops together: the route keeps the PCIe hops.
  Hardware hw = with_link({{"name", "slow"},
                           {"kind", "bus"},
                           {"endpoints", json::array({"gpu0", "phu0"})},
                           {"latency_ns", 0},
                           {"energy_pj_per_byte", 1},
                           {"bandwidth_GBps", 10}});
  TransferModel tm(hw);
  EXPECT_EQ(tm.route(hw.find_memory("hbm0"), hw.find_memory("sram0")).links, (std::vector<int>{0, 1}));

  Hardware fast = with_link({{"name", "fast"},
                             {"kind", "bus"},
                             {"endpoints", json::array({"gpu0", "phu0"})},
                             {"latency_ns", 0},
                             {"energy_pj_per_byte", 1},
                             {"bandwidth_GBps", 30}});
  TransferModel tm_fast(fast);
  EXPECT_EQ(tm_fast.route(fast.find_memory("hbm0"), fast.find_memory("sram0")).links, std::vector<int>{2});
}

TEST(Transfer, EqualRatesPreferFewerHops) {
  // Direct link with exactly the per-byte time of the two-hop path: 1/x = 1/a + 1/b.
  json c = test::small_machine();
  c["links"][0]["bandwidth_GBps"] = 4;
  c["links"][1]["bandwidth_GBps"] = 4;
  c["links"].push_back({{"name", "direct"},
                        {"kind", "bus"},
                        {"endpoints", json::array({"gpu0", "phu0"})},
                        {"latency_ns", 0},
                        {"energy_pj_per_byte", 1},
                        {"bandwidth_GBps", 2}});
  Hardware hw = hardware_from_json(c, "small.json");
  TransferModel tm(hw);
  EXPECT_EQ(tm.route(hw.find_memory("hbm0"), hw.find_memory("sram0")).links, std::vector<int>{2});
}

TEST(Transfer, FullTieTakesTheFirstListedLink) {
  // Two identical parallel links between host DRAM and the PHU: the earlier one in the config wins.
  json c = test::small_machine();
  json twin = c["links"][1];
  twin["name"] = "pcie-phu-b";
  c["links"].push_back(twin);
  Hardware hw = hardware_from_json(c, "small.json");
  TransferModel tm(hw);
  EXPECT_EQ(tm.route(hw.find_memory("dram0"), hw.find_memory("sram0")).links, std::vector<int>{1});
  EXPECT_EQ(tm.route(hw.find_memory("sram0"), hw.find_memory("dram0")).links, std::vector<int>{1});

  // Listed the other way round, the other one wins.
  std::swap(c["links"][1], c["links"][2]);
  Hardware swapped = hardware_from_json(c, "small.json");
  TransferModel tm2(swapped);
  const Route& r = tm2.route(swapped.find_memory("dram0"), swapped.find_memory("sram0"));
  ASSERT_EQ(r.links.size(), 1u);
  EXPECT_EQ(swapped.links[r.links[0]].name, "pcie-phu-b");
}

TEST(Transfer, BusWithoutPacketsMovesPayloadOnly) {
  Link bus;
  bus.kind = LinkKind::Bus;
  bus.bandwidth_GBps = 384;
  bus.latency_ns = 10 + 1 / 6.0;
  bus.energy_pj_per_byte = 3;
  EXPECT_EQ(TransferModel::wire_bytes(bus, 12345), 12345.0);
  Cost c = TransferModel::link_cost(bus, 3840);
  EXPECT_DOUBLE_EQ(c.time_s, (10 + 1 / 6.0 + 10) * 1e-9);
  EXPECT_DOUBLE_EQ(c.energy_j, 3840 * 3e-12);
}

TEST(Transfer, UnreachableUnitMemoryIsAnInputError) {
  Hardware hw = small();
  hw.links.pop_back();
  try {
    TransferModel tm(hw);
    FAIL() << "accepted an island";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("small.json: links: no route"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace lightsim::ir
