#include "ir/hardware/hardware_fields.h"

#include <limits>

namespace lightsim::ir {
namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;
constexpr int kMaxPrefetchDepth = 1024;

} // namespace

const FieldTable<PrefetchParams>& prefetch_fields() {
  using F = Field<PrefetchParams>;
  static const FieldTable<PrefetchParams> table(
      "prefetch", {F::integer(&PrefetchParams::depth, "depth", 1, kMaxPrefetchDepth, "buffers",
                              "prefetch buffers the unit's load stage fetches into"),
                   F::scaled_rate(&PrefetchParams::buffer_bytes, "buffer_MiB", kBytesPerMiB, "MiB",
                                  "size of each buffer, reserved in the unit's memory")});
  return table;
}

const FieldTable<Unit>& unit_fields() {
  using F = Field<Unit>;
  static const FieldTable<Unit> table(
      "unit",
      {F::structural("name", "string", "unique name (shares the namespace with memories)"),
       F::structural("kind", "one of the registered kinds", "the unit's kind: its keys follow"),
       F::count(&Unit::cores, "cores", "lanes",
                "lanes that run ops concurrently: CPU cores, GPU streams, PHU arrays (the kind's lane)"),
       F::rate(&Unit::clock_ghz, "clock_ghz", "GHz", "core / SM / modulation clock"),
       F::non_negative(&Unit::static_power_w, "static_power_w", "W",
                       "idle power (leakage, fans, thermal tuning), charged for the whole makespan"),
       F::structural("memory", "name", "the memory the unit reads and writes"),
       F::structural("model", "name", "its arithmetic model in `models`"),
       F::object(&Unit::prefetch, "prefetch", prefetch_fields(),
                 "the unit's load stage (used with latency_hiding on): operands held in another memory are "
                 "fetched into its buffers ahead of the ops that read them")
           .optional("none (no load stage)")});
  return table;
}

const FieldTable<Memory>& memory_fields() {
  using F = Field<Memory>;
  static const FieldTable<Memory> table(
      "memory",
      {F::structural("name", "string", "unique name (shares the namespace with units)"),
       F::choice(&Memory::kind, "kind", kMemoryKinds, "memory kind",
                 "what it is; its accesses charge that energy component"),
       F::scaled_rate(&Memory::capacity_bytes, "capacity_MiB", kBytesPerMiB, "MiB",
                      "capacity: the weights the plan keeps resident here must fit (the rest are streamed "
                      "from a memory that holds them)"),
       F::rate(&Memory::bandwidth_GBps, "bandwidth_GBps", "GB/s", "peak bandwidth (GB/s == bytes/ns)"),
       F::non_negative(&Memory::latency_ns, "latency_ns", "ns", "access latency"),
       F::count(&Memory::banks, "banks", "", "independently accessible banks / channels"),
       F::non_negative(&Memory::energy_pj_per_byte, "energy_pj_per_byte", "pJ/B",
                       "energy of reading or writing one byte"),
       F::non_negative(&Memory::static_power_w, "static_power_w", "W", "refresh / leakage power"),
       F::structural("spill_to", "name", "memory that takes what does not fit (SRAM overflow)")
           .optional("none (nothing spills)")});
  return table;
}

const FieldTable<Link>& link_fields() {
  using F = Field<Link>;
  static const FieldTable<Link> table(
      "link", {F::structural("name", "string", "unique link name"),
               F::choice(&Link::kind, "kind", kLinkKinds, "link kind", "what it is; its own keys follow"),
               F::structural("endpoints", "two or more names",
                             "units (meaning their memories) or memories; more than two: joined through a "
                             "switch, each through its own port of the link's bandwidth per direction"),
               F::non_negative(&Link::latency_ns, "latency_ns", "ns", "one-way latency of a transfer"),
               F::non_negative(&Link::energy_pj_per_byte, "energy_pj_per_byte", "pJ/B",
                               "energy per byte on the wire (payload and headers)")});
  return table;
}

namespace {

// `key` may be given only with max_payload_bytes (packets).
void needs_packets(const Link& l, detail::ConfigObject& o, const std::string& key) {
  if (o.has(key) && l.max_payload_bytes == 0) o.fail(key, "needs max_payload_bytes");
}

FieldTable<Link> pcie_table() {
  using F = Field<Link>;
  return FieldTable<Link>(
      "pcie link",
      {F::integer(&Link::pcie_generation, "generation", 1, 6, "", "PCIe generation"),
       F::count(&Link::pcie_lanes, "lanes", "", "lanes"),
       F::rate(&Link::bandwidth_GBps, "bandwidth_GBps", "GB/s",
               "usable data rate per direction; absent: lanes x GT/s (2.5, 5, 8, 16, 32, 64 for gen 1..6) x "
               "line code (8b/10b gen 1-2, 128b/130b gen 3-5, 242/256 FLIT gen 6) / 8")
           .optional("derived from generation and lanes")
           .at_default_when([](const Link& l) {
             return l.bandwidth_GBps == pcie_bandwidth_GBps(l.pcie_generation, l.pcie_lanes);
           }),
       F::count(&Link::max_payload_bytes, "max_payload_bytes", "B", "largest payload per packet (TLP)"),
       F::integer(&Link::header_bytes, "header_bytes", 0, std::numeric_limits<int>::max(), "B",
                  "per-packet overhead (TLP header, sequence number, LCRC, framing)"),
       F::non_negative(&Link::energy_pj_per_packet, "energy_pj_per_packet", "pJ",
                       "link-layer work per packet (e.g. its ACK / flow-control DLLP)")
           .optional()},
      {[](Link& l, detail::ConfigObject& o) {
        if (!o.has("bandwidth_GBps")) l.bandwidth_GBps = pcie_bandwidth_GBps(l.pcie_generation, l.pcie_lanes);
      }});
}

FieldTable<Link> bus_table() {
  using F = Field<Link>;
  return FieldTable<Link>(
      "bus link",
      {F::rate(&Link::bandwidth_GBps, "bandwidth_GBps", "GB/s", "data rate per direction"),
       F::count(&Link::max_payload_bytes, "max_payload_bytes", "B", "largest payload per packet")
           .optional("none (no packets)"),
       F::integer(&Link::header_bytes, "header_bytes", 0, std::numeric_limits<int>::max(), "B",
                  "per-packet overhead; needs max_payload_bytes")
           .optional(),
       F::non_negative(&Link::energy_pj_per_packet, "energy_pj_per_packet", "pJ",
                       "link-layer work per packet; needs max_payload_bytes")
           .optional()},
      {[](Link& l, detail::ConfigObject& o) {
        needs_packets(l, o, "header_bytes");
        needs_packets(l, o, "energy_pj_per_packet");
      }});
}

FieldTable<Link> nvlink_table() {
  using F = Field<Link>;
  return FieldTable<Link>(
      "nvlink link",
      {F::count(&Link::nvlinks, "links", "", "NVLinks per port (per GPU: 12 on an A100, 18 on an H100)"),
       F::rate(&Link::GBps_per_nvlink, "GBps_per_link", "GB/s",
               "data rate of one NVLink per direction (25 for NVLink 3 and 4)"),
       F::rate(&Link::bandwidth_GBps, "bandwidth_GBps", "GB/s", "data rate per port and direction")
           .optional("links x GBps_per_link")
           .at_default_when([](const Link& l) { return l.bandwidth_GBps == l.nvlinks * l.GBps_per_nvlink; })},
      {[](Link& l, detail::ConfigObject& o) {
        if (!o.has("bandwidth_GBps")) l.bandwidth_GBps = l.nvlinks * l.GBps_per_nvlink;
      }});
}

} // namespace

const FieldTable<Link>& link_kind_fields(LinkKind kind) {
  static const FieldTable<Link> pcie = pcie_table(), bus = bus_table(), nvlink = nvlink_table();
  switch (kind) {
  case LinkKind::Pcie:
    return pcie;
  case LinkKind::Nvlink:
    return nvlink;
  case LinkKind::Bus:
    break;
  }
  return bus;
}

} // namespace lightsim::ir
