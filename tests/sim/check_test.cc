// The check table on the hand-made schedules of trace_fixture.cc (expected numbers worked out there).
#include "sim/check/check.h"
#include "tests/sim/trace_fixture.h"

#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace lightsim::sim {
namespace {

using ir::OpClass;

TEST(RelativeError, SignedAndZeroRule) {
  EXPECT_DOUBLE_EQ(*relative_error(2.0, 2.5), 0.2);
  EXPECT_DOUBLE_EQ(*relative_error(1.0, 0.8), -0.25);
  EXPECT_DOUBLE_EQ(*relative_error(0.0, 0.0), 0.0);
  EXPECT_FALSE(relative_error(1.0, 0.0).has_value());
  EXPECT_DOUBLE_EQ(*relative_error(0.0, 3.0), 1.0); // the model said free, it was not
}

TEST(CheckSchedules, TableFromHandMadePair) {
  const test::TraceFixture f = test::make_trace_fixture();
  const CheckReport r = check_schedules(f.graph, f.hw, f.predicted, f.simulated);
  EXPECT_EQ(r.ops_compared, 6u); // 8 ops minus the two inputs
  ASSERT_EQ(r.rows.size(), 4u);
  // Sorted by unit, then op class (enum order: nop < add < relu < dense).
  EXPECT_EQ(r.rows[0].unit_name, "cpu0");
  EXPECT_EQ(r.rows[0].op_class, OpClass::Nop);
  EXPECT_EQ(r.rows[1].op_class, OpClass::Add);
  EXPECT_EQ(r.rows[2].op_class, OpClass::Relu);
  EXPECT_EQ(r.rows[3].unit_name, "gpu0");
  EXPECT_EQ(r.rows[3].op_class, OpClass::Dense);

  const CheckRow& nop = r.rows[0];
  EXPECT_EQ(nop.count, 1u);
  EXPECT_EQ(nop.zero_simulated, 1u);
  EXPECT_TRUE(std::isnan(nop.median_abs_error));
  EXPECT_TRUE(std::isnan(nop.max_abs_error));
  EXPECT_DOUBLE_EQ(nop.predicted_s, 1.0);
  EXPECT_DOUBLE_EQ(nop.simulated_s, 0.0);

  const CheckRow& add = r.rows[1];
  EXPECT_EQ(add.count, 1u);
  EXPECT_DOUBLE_EQ(add.median_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(add.max_abs_error, 0.5);

  const CheckRow& relu = r.rows[2];
  EXPECT_EQ(relu.zero_simulated, 0u);
  EXPECT_DOUBLE_EQ(relu.median_abs_error, 0.0);

  const CheckRow& dense = r.rows[3];
  EXPECT_EQ(dense.count, 3u);
  EXPECT_EQ(dense.zero_simulated, 0u);
  EXPECT_DOUBLE_EQ(dense.median_abs_error, 0.2); // of {0.2, 0.25, 0}
  EXPECT_DOUBLE_EQ(dense.max_abs_error, 0.25);
  EXPECT_DOUBLE_EQ(dense.predicted_s, 6.625);
  EXPECT_DOUBLE_EQ(dense.simulated_s, 7.0);

  EXPECT_DOUBLE_EQ(r.makespan_s.predicted, 10);
  EXPECT_DOUBLE_EQ(r.makespan_s.simulated, 12.5);
  EXPECT_DOUBLE_EQ(r.makespan_s.error, 0.2);
  EXPECT_DOUBLE_EQ(r.energy_j.error, -0.5);
}

TEST(CheckSchedules, MedianOfEvenCountIsMeanOfMiddlePair) {
  test::TraceFixture f = test::make_trace_fixture();
  f.graph.ops[7].op_class = OpClass::BatchMatmul; // dense now holds ops 2 and 3 only
  const CheckReport r = check_schedules(f.graph, f.hw, f.predicted, f.simulated);
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_EQ(r.rows[3].op_class, OpClass::Dense);
  EXPECT_EQ(r.rows[3].count, 2u);
  EXPECT_DOUBLE_EQ(r.rows[3].median_abs_error, 0.225);
  EXPECT_EQ(r.rows[4].op_class, OpClass::BatchMatmul);
}

TEST(CheckSchedules, ZeroSimulatedMakespanGivesNaNError) {
  test::TraceFixture f = test::make_trace_fixture();
  f.simulated.makespan_s = 0;
  const CheckReport r = check_schedules(f.graph, f.hw, f.predicted, f.simulated);
  EXPECT_TRUE(std::isnan(r.makespan_s.error));
  EXPECT_TRUE(check_to_json(r)["makespan_s"]["error"].is_null());
}

TEST(CheckSchedules, RejectsDifferentPlacementsAndSizes) {
  test::TraceFixture f = test::make_trace_fixture();
  f.simulated.ops[4].unit = 1;
  EXPECT_THROW(check_schedules(f.graph, f.hw, f.predicted, f.simulated), std::invalid_argument);
  f = test::make_trace_fixture();
  f.simulated.ops.pop_back();
  EXPECT_THROW(check_schedules(f.graph, f.hw, f.predicted, f.simulated), std::invalid_argument);
}

TEST(CheckSchedules, TextTableIsAlignedAndOrdered) {
  const test::TraceFixture f = test::make_trace_fixture();
  const std::string text = format_check_table(check_schedules(f.graph, f.hw, f.predicted, f.simulated));
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 7u) << text; // header, 4 rows, makespan, energy
  for (std::size_t i = 1; i < 5; ++i)
    EXPECT_EQ(lines[i].size(), lines[0].size()) << text; // right-aligned end
  EXPECT_EQ(lines[0].rfind("unit", 0), 0u);
  EXPECT_EQ(lines[1].rfind("cpu0  nop", 0), 0u) << text;
  EXPECT_EQ(lines[4].rfind("gpu0  dense", 0), 0u) << text;
  EXPECT_NE(lines[4].find("20.00%"), std::string::npos) << text;
  EXPECT_NE(lines[4].find("25.00%"), std::string::npos) << text;
  EXPECT_NE(lines[1].find(" - "), std::string::npos) << text; // NaN median shown as "-"
  EXPECT_NE(lines[5].find("error +20.00%"), std::string::npos) << text;
  EXPECT_NE(lines[6].find("error -50.00%"), std::string::npos) << text;
}

TEST(CheckSchedules, JsonForm) {
  const test::TraceFixture f = test::make_trace_fixture();
  const nlohmann::json j = check_to_json(check_schedules(f.graph, f.hw, f.predicted, f.simulated));
  ASSERT_EQ(j["rows"].size(), 4u);
  EXPECT_EQ(j["ops_compared"], 6);
  EXPECT_EQ(j["rows"][0]["op_class"], "nop");
  EXPECT_TRUE(j["rows"][0]["median_abs_error"].is_null());
  EXPECT_EQ(j["rows"][0]["zero_simulated"], 1);
  EXPECT_EQ(j["rows"][3]["unit"], "gpu0");
  EXPECT_DOUBLE_EQ(j["rows"][3]["max_abs_error"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["energy_j"]["error"].get<double>(), -0.5);
  EXPECT_DOUBLE_EQ(j["makespan_s"]["simulated"].get<double>(), 12.5);
}

} // namespace
} // namespace lightsim::sim
