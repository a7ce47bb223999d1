// The clock model: the larger of its fixed part and the fold set-up chain, scaled to the
// architecture's node; the frequency never rises with the array (co-design's box bounds rely on
// it); YAML overrides apply and bad values are refused naming the file, the key and the value.
// Its fit on static timing: tests/flows/clock_calibration_test.cpp.
#include "mapwright/model/clock.hpp"

#include <gtest/gtest.h>

#include <string>

#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

using namespace mapwright;
using namespace mapwright::model;

namespace {

core::Arch array(int rows, int cols) {
  core::Arch a;
  a.rows = rows;
  a.cols = cols;
  return a;
}

ClockConstants from_text(const std::string& text) {
  return clock_constants_from_yaml(core::load_yaml_text(text, "t.yaml"), "t.yaml");
}

}  // namespace

TEST(ClockModel, IsTheLargerPartScaledToTheNode) {
  ClockConstants c;
  c.fixed_ns = 15;
  c.setup_base_ns = 3;
  c.setup_per_lane_ns = 2.5;
  c.delay_factor = 0.2;
  const ClockEstimate small = estimate_clock(array(2, 4), c);  // chain 3 + 2.5 * 4 = 13 < 15
  EXPECT_FALSE(small.setup_chain_limits);
  EXPECT_DOUBLE_EQ(small.library_period_ns, 15);
  EXPECT_DOUBLE_EQ(small.period_ns, 3);
  EXPECT_DOUBLE_EQ(small.fmax_mhz, 1000.0 / 3);
  const ClockEstimate big = estimate_clock(array(16, 8), c);  // 3 + 2.5 * 16 = 43
  EXPECT_TRUE(big.setup_chain_limits);
  EXPECT_DOUBLE_EQ(big.library_period_ns, 43);
  EXPECT_DOUBLE_EQ(big.period_ns, 43 * 0.2);
}

TEST(ClockModel, FrequencyNeverRisesWithRowsOrCols) {
  for (int r = 2; r <= 64; r *= 2)
    for (int c = 2; c <= 64; c *= 2) {
      const double f = estimate_clock(array(r, c)).fmax_mhz;
      EXPECT_GT(f, 0);
      if (r < 64) EXPECT_LE(estimate_clock(array(2 * r, c)).fmax_mhz, f);
      if (c < 64) EXPECT_LE(estimate_clock(array(r, 2 * c)).fmax_mhz, f);
    }
}

TEST(ClockModel, ShippedConstantsGiveTheTimedSixteenBySixteenWithinTenPercent) {
  // default-ideal's RTL parameters timed at 42.898 ns (OSU 0.18 um, OpenSTA): 147 MHz at HP45.
  const ClockEstimate e = estimate_clock(array(16, 16));
  EXPECT_NEAR(e.library_period_ns, 42.898, 0.1 * 42.898);
  EXPECT_TRUE(e.setup_chain_limits);
  EXPECT_EQ(ClockConstants().node, "HP45");
}

TEST(ClockModel, YamlOverridesAndRefusals) {
  const ClockConstants c = from_text("{fixed_ns: 20, setup_base_ns: -1, source: mine}");
  EXPECT_EQ(c.fixed_ns, 20);
  EXPECT_EQ(c.setup_base_ns, -1);
  EXPECT_EQ(c.source, "mine");
  EXPECT_EQ(from_text("{fixed_ns: 20}").source,
            "defaults of model/clock.hpp, overridden by t.yaml");
  EXPECT_EQ(clock_constants_from_yaml(YAML::Node(), "t.yaml").fixed_ns, ClockConstants().fixed_ns);
  for (const char* bad : {"{fixed_ns: 0}", "{delay_factor: -0.5}", "{setup_per_lane_ns: .nan}",
                          "{fixed_ns: fast}", "{period_ns: 3}"}) {
    try {
      from_text(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const core::SpecError& e) {
      EXPECT_EQ(e.where(), "t.yaml") << bad;
      EXPECT_EQ(e.key().rfind("clock.", 0), 0u) << bad << ": " << e.key();
    }
  }
}
