// The clock model against static timing of the RTL: tests/flows/data/clock_calibration.json holds
// what `mapwright synth --liberty osu018` (yosys onto the OSU 0.18 um cells, qflow's blifFanout,
// OpenSTA) found for the configurations of configs/synth/clock-calibration.yaml (written by
// scripts/calibrate-clock.py): the fit set the constants were fitted on and the held-out check
// set. The model's minimum period must be within 10 % of static timing's on every configuration,
// the compiled-in constants must be the fitted ones, and where the model says the fold set-up
// chain sets the clock, static timing's worst path must run through the fold sequencer.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/model/clock.hpp"

using namespace mapwright;
using nlohmann::json;

namespace {

json calibration() {
  std::ifstream in(std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/clock_calibration.json");
  EXPECT_TRUE(in.good());
  return json::parse(in);
}

core::Arch arch_of(const json& c) {
  core::Arch a;
  a.name = c.at("name").get<std::string>();
  a.rows = c.at("rows").get<int>();
  a.cols = c.at("cols").get<int>();
  a.buffer_banks = c.at("banks").get<int>();
  return a;
}

}  // namespace

TEST(ClockCalibration, ModelIsWithinTenPercentOfStaticTimingOnEveryConfiguration) {
  const json cal = calibration();
  int held_out = 0, fitted = 0;
  for (const json& c : cal.at("configs")) {
    const double sta = c.at("period_ns").get<double>();
    const double model = model::estimate_clock(arch_of(c)).library_period_ns;
    EXPECT_LT(std::abs(model - sta) / sta, 0.10)
        << c.at("name") << " (" << c.at("part") << "): model " << model << " ns, STA " << sta;
    (c.at("part") == "check" ? held_out : fitted) += 1;
  }
  EXPECT_GE(fitted, 5);
  EXPECT_GE(held_out, 5);
}

TEST(ClockCalibration, CompiledConstantsAreTheFittedOnes) {
  const json k = calibration().at("constants");
  const model::ClockConstants c;
  EXPECT_NEAR(c.fixed_ns, k.at("fixed_ns").get<double>(), 1e-4);
  EXPECT_NEAR(c.setup_base_ns, k.at("setup_base_ns").get<double>(), 1e-4);
  EXPECT_NEAR(c.setup_per_lane_ns, k.at("setup_per_lane_ns").get<double>(), 1e-4);
  EXPECT_NEAR(c.delay_factor, k.at("delay_factor").get<double>(), 1e-12);
  EXPECT_EQ(calibration().at("library_node"), c.library_node);
  EXPECT_EQ(calibration().at("target_node"), c.node);
}

// Where the chain sets the model's clock with a margin, OpenSTA's worst path crosses mw_fold_seq
// (u_compute.u_seq); the PE alone times the same in every configuration and never above the
// whole design (the systolic property: the array's own path does not grow).
TEST(ClockCalibration, TheWorstPathIsTheFoldSetUpWhereTheModelSaysSo) {
  const json cal = calibration();
  const model::ClockConstants k;
  const double pe = cal.at("configs").at(0).at("pe_period_ns").get<double>();
  int chain = 0;
  for (const json& c : cal.at("configs")) {
    EXPECT_NEAR(c.at("pe_period_ns").get<double>(), pe, 1e-6) << c.at("name");
    EXPECT_GE(c.at("period_ns").get<double>(), pe) << c.at("name");
    const double lanes = std::max(c.at("rows").get<int>(), c.at("cols").get<int>());
    if (k.setup_base_ns + k.setup_per_lane_ns * lanes < 1.1 * k.fixed_ns) continue;
    ++chain;
    bool through_seq = false;
    for (const json& m : c.at("worst_path")) through_seq = through_seq || m == "u_compute.u_seq";
    EXPECT_TRUE(through_seq) << c.at("name") << ": " << c.at("worst_path").dump();
  }
  EXPECT_GE(chain, 4);
}
