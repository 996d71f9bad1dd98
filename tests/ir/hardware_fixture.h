// A small, valid hardware config for the hardware and transfer tests: a host CPU with DRAM, a GPU with
// HBM and a PHU with SRAM, each card on its own PCIe link to the host DRAM (so GPU <-> PHU goes through
// the host). The PHU's DAC works at the PHU's 8 bits, its ADC at its own 6; the PHU's dense model splits its
// energy into components. Tests edit the JSON to make one thing wrong at a time.
#pragma once

#include "ir/error.h"
#include "ir/hardware/hardware.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

namespace lightsim::test {

inline nlohmann::json small_machine() {
  return nlohmann::json::parse(R"({
  "name": "small",
  "description": "test machine",
  "units": [
    {"name": "cpu0", "kind": "cpu", "cores": 4, "clock_ghz": 3.0, "static_power_w": 10, "memory": "dram0",
     "model": "m-cpu", "vector_width": 16, "fma": true, "dispatch_ns": 50, "memory_port_GBps": 100,
     "dynamic_power_w": 20},
    {"name": "gpu0", "kind": "gpu", "cores": 1, "clock_ghz": 1.5, "static_power_w": 50, "memory": "hbm0",
     "model": "m-gpu", "sms": 100, "tensor_core_macs_per_cycle_per_sm": {"float16": 1024, "tf32": 512},
     "cuda_core_macs_per_cycle_per_sm": {"float32": 64}, "fp32_gemm_as_tf32": false,
     "mma": {"m": 16, "n": 8, "k_bytes": 32}, "shared_memory_per_sm_KiB": 164,
     "shared_memory_bytes_per_cycle_per_sm": 128,
     "cta_tiles": [{"m": 128, "n": 128, "k_bytes": 64, "warp_m": 64, "warp_n": 64, "stages": 3},
                   {"m": 64, "n": 64, "k_bytes": 64, "warp_m": 32, "warp_n": 32, "stages": 4}],
     "main_loop_efficiency": 0.8, "memory_efficiency": 0.9, "launch_latency_ns": 2000, "kernel_gap_ns": 1000,
     "elementwise_flops_per_cycle_per_sm": 128, "tensor_core_pj_per_mac": 2.5, "cuda_core_pj_per_op": 20},
    {"name": "phu0", "kind": "phu", "cores": 1, "clock_ghz": 10, "static_power_w": 5, "memory": "sram0",
     "model": "m-phu", "rows": 64, "cols": 64, "wdm_channels": 16, "weight_reload_ns": 10,
     "dac": {"count": 1024, "bit_clock_ghz": 90, "fom_fj_per_step": 4},
     "adc": {"count": 1024, "bit_clock_ghz": 90, "fom_fj_per_step": 12, "bits": 6},
     "bits": 8, "laser_power_w": 1, "mac_energy_pj": 0.02}
  ],
  "memories": [
    {"name": "dram0", "kind": "dram", "capacity_MiB": 65536, "bandwidth_GBps": 100, "latency_ns": 100,
     "banks": 16, "energy_pj_per_byte": 20, "static_power_w": 5},
    {"name": "hbm0", "kind": "hbm", "capacity_MiB": 81920, "bandwidth_GBps": 3000, "latency_ns": 500,
     "banks": 80, "energy_pj_per_byte": 4, "static_power_w": 10},
    {"name": "sram0", "kind": "sram", "capacity_MiB": 32, "bandwidth_GBps": 2000, "latency_ns": 5,
     "banks": 32, "energy_pj_per_byte": 1, "static_power_w": 1, "spill_to": "dram0"}
  ],
  "links": [
    {"name": "pcie-gpu", "kind": "pcie", "endpoints": ["cpu0", "gpu0"], "latency_ns": 1000,
     "energy_pj_per_byte": 40, "generation": 5, "lanes": 16, "max_payload_bytes": 256, "header_bytes": 24,
     "energy_pj_per_packet": 320},
    {"name": "pcie-phu", "kind": "pcie", "endpoints": ["dram0", "phu0"], "latency_ns": 800,
     "energy_pj_per_byte": 40, "generation": 4, "lanes": 16, "max_payload_bytes": 256, "header_bytes": 24}
  ],
  "placement": {"inputs": "cpu0", "params": "any"},
  "models": {
    "m-cpu": {
      "add": {"time_s": {"elements_out": 1e-9, "intercept": 1e-6}, "energy_j": {"elements_out": 1e-12}},
      "input": {"time_s": {"intercept": 0}, "energy_j": {"bytes_out": 2e-11}}
    },
    "m-gpu": {
      "add": {"time_s": {"elements_out": 1e-12, "intercept": 2e-6}, "energy_j": {"elements_out": 1e-12}}
    },
    "m-phu": {
      "dense": {"pieces": [
        {"when": {"feature": "max_dim", "min": 50001}, "time_s": {"macs": 2e-15, "intercept": 1e-8},
         "energy_j": {"macs": 1e-13}},
        {"time_s": {"macs": 1e-15}, "energy_j": {"optical_mac": {"macs": 5e-14},
                                                 "adc": {"adc_conversion_steps": 1.2e-14}}}
      ]}
    }
  }
})");
}

// Loads `config` as "bad.json" and returns the InputError message ("" when it loads).
inline std::string config_load_error(const nlohmann::json& config) {
  try {
    ir::hardware_from_json(config, "bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Expects `config` to be refused in one line "bad.json: <path>: ..." that contains `what`.
inline void expect_config_error(const nlohmann::json& config, const std::string& path,
                                const std::string& what) {
  const std::string message = config_load_error(config);
  ASSERT_FALSE(message.empty()) << "config was accepted";
  EXPECT_EQ(message.rfind("bad.json: " + path + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "message must be one line: " << message;
}

} // namespace lightsim::test
