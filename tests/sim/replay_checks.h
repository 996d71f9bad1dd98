// Checks every replayed schedule must pass: every op simulated once on its unit, no op starting before
// its inputs arrived (same memory: producer's end; else the transfer into its memory), no two ops
// overlapping on one lane, one transfer per (tensor, consumer memory) along the TransferModel's route.
#pragma once

#include "ir/graph.h"
#include "ir/hardware/transfer.h"
#include "scheduler/schedule.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace lightsim::test {

inline void expect_valid_replay(const ir::Graph& g, const std::vector<int>& unit_of,
                                const ir::TransferModel& tm, const sched::Schedule& s) {
  const ir::Hardware& hw = tm.hardware();
  constexpr double eps = 1e-15;
  ASSERT_EQ(s.ops.size(), g.ops.size());
  auto mem = [&](ir::OpId op) { return hw.units[unit_of[op]].memory; };
  std::vector<ir::OpId> producer(g.tensors.size(), -1);
  for (std::size_t op = 0; op < g.ops.size(); ++op)
    for (ir::TensorId t : g.ops[op].outputs)
      producer[t] = static_cast<ir::OpId>(op);
  std::map<std::pair<ir::TensorId, int>, const sched::ScheduledTransfer*> xfer;
  for (const sched::ScheduledTransfer& t : s.transfers) {
    EXPECT_TRUE(xfer.emplace(std::make_pair(t.tensor, t.dst_memory), &t).second) << "tensor " << t.tensor;
    EXPECT_EQ(t.links, tm.route(t.src_memory, t.dst_memory).links);
    EXPECT_EQ(t.src_op, producer[t.tensor]);
    EXPECT_EQ(t.src_memory, mem(producer[t.tensor]));
    EXPECT_GE(t.start_s + eps, s.ops[producer[t.tensor]].end_s);
    EXPECT_GE(t.end_s, t.start_s);
  }
  std::set<std::pair<ir::TensorId, int>> needed;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
  for (std::size_t op = 0; op < g.ops.size(); ++op) {
    const sched::ScheduledOp& so = s.ops[op];
    EXPECT_EQ(so.op, static_cast<ir::OpId>(op));
    EXPECT_EQ(so.unit, unit_of[op]);
    if (g.ops[op].op_class == ir::OpClass::Input) {
      EXPECT_EQ(so.lane, -1);
      continue;
    }
    EXPECT_GE(so.lane, 0) << "op " << op << " never ran";
    EXPECT_LT(so.lane, hw.units[so.unit].cores);
    EXPECT_GE(so.end_s, so.start_s);
    EXPECT_LE(so.end_s, s.makespan_s + eps);
    lanes[{so.unit, so.lane}].emplace_back(so.start_s, so.end_s);
    for (ir::TensorId t : g.ops[op].inputs) {
      const ir::OpId p = producer[t];
      if (mem(p) == mem(static_cast<ir::OpId>(op))) {
        EXPECT_GE(so.start_s + eps, s.ops[p].end_s) << "op " << op << " before its input " << t;
        continue;
      }
      needed.insert({t, mem(static_cast<ir::OpId>(op))});
      auto it = xfer.find({t, mem(static_cast<ir::OpId>(op))});
      ASSERT_NE(it, xfer.end()) << "no transfer of tensor " << t << " for op " << op;
      EXPECT_GE(so.start_s + eps, it->second->end_s)
          << "op " << op << " before its input " << t << " arrived";
    }
  }
  EXPECT_EQ(needed.size(), s.transfers.size());
  for (auto& [lane, spans] : lanes) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_GE(spans[i].first + eps, spans[i - 1].second)
          << "overlap on unit " << lane.first << " lane " << lane.second;
  }
}

} // namespace lightsim::test
