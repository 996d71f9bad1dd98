// Machines for the collectives' tests (ir/cost/collectives.h, sim/hw/collective_engine.h): four devices
// dev0..dev3 (CPU-kind units of the hardware fixture), each with its own memory mem0..mem3, joined by the
// links a test gives; one NVSwitch over the four; and two two-device switches joined by one uplink.
#pragma once

#include "ir/hardware/hardware.h"
#include "tests/ir/hardware_fixture.h"

#include <nlohmann/json.hpp>
#include <string>

namespace lightsim::test {

// Four CPU-kind devices dev0..dev3, each with its own memory; `links` join them.
inline ir::Hardware devices(const nlohmann::json& links,
                            const nlohmann::json& extra_memories = nlohmann::json::array()) {
  nlohmann::json c = small_machine();
  const nlohmann::json cpu = c["units"][0], dram = c["memories"][0];
  c["units"] = nlohmann::json::array();
  c["memories"] = extra_memories;
  for (int i = 0; i < 4; ++i) {
    nlohmann::json u = cpu, m = dram;
    u["name"] = "dev" + std::to_string(i);
    u["memory"] = m["name"] = "mem" + std::to_string(i);
    c["units"].push_back(u);
    c["memories"].push_back(m);
  }
  c["links"] = links;
  c["placement"] = {{"inputs", "dev0"}, {"params", "any"}};
  c["models"].erase("m-phu");
  c["models"].erase("m-gpu");
  return ir::hardware_from_json(c, "devices.json");
}

inline nlohmann::json nvswitch(const nlohmann::json& endpoints, double latency_ns = 500) {
  return {{"name", "nvswitch"},       {"kind", "nvlink"},         {"endpoints", endpoints},
          {"latency_ns", latency_ns}, {"energy_pj_per_byte", 10}, {"links", 4},
          {"GBps_per_link", 25}};
}

// dev0, dev1 and hubA on switch swA; dev2, dev3 and hubB on swB; one uplink hubA-hubB. Every port
// 100 GB/s, 500 ns.
inline ir::Hardware two_switches() {
  nlohmann::json hubs = nlohmann::json::array();
  for (const char* name : {"hubA", "hubB"})
    hubs.push_back({{"name", name},
                    {"kind", "dram"},
                    {"capacity_MiB", 1024},
                    {"bandwidth_GBps", 100},
                    {"latency_ns", 100},
                    {"banks", 1},
                    {"energy_pj_per_byte", 0},
                    {"static_power_w", 0}});
  nlohmann::json a = nvswitch({"dev0", "dev1", "hubA"}), b = nvswitch({"dev2", "dev3", "hubB"}),
                 up = nvswitch({"hubA", "hubB"});
  a["name"] = "swA", b["name"] = "swB", up["name"] = "uplink";
  return devices(nlohmann::json::array({a, b, up}), hubs);
}

} // namespace lightsim::test
