// The area model's logic terms against yosys' synthesis of the RTL: tests/flows/data/
// area_calibration.json holds what `mapwright synth` reported for the 16 configurations of
// configs/synth/area-calibration.yaml (written by scripts/calibrate-area.py), 11 the constants
// were fitted on and 5 held out (the idealized and the banked 16x16 among them). The model's logic
// area (PE array and every control part) must be within 10 % of the synthesized cell area on each
// of them, and the cell prices must reproduce the areas the synthesis run reported from its cell
// counts.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/flows/synth.hpp"
#include "mapwright/model/area.hpp"

using namespace mapwright;
using nlohmann::json;

namespace {

json calibration() {
  std::ifstream in(std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/area_calibration.json");
  EXPECT_TRUE(in.good());
  return json::parse(in);
}

core::Arch arch_of(const json& p) {
  core::Arch a;
  a.name = "calibration";
  a.rows = p.at("Rows").get<int>();
  a.cols = p.at("Cols").get<int>();
  a.input_buf_bytes = p.at("InBufBytes").get<long long>();
  a.weight_buf_bytes = p.at("WtBufBytes").get<long long>();
  a.accum_buf_bytes = p.at("AccBufWords").get<long long>() * 4;
  a.dram_bytes_per_cycle = p.at("BeatBytes").get<double>();
  a.buffer_banks = p.at("BufBanks").get<int>();
  return a;
}

}  // namespace

TEST(AreaCalibration, ModelLogicIsWithinTenPercentOfSynthesisOnEveryConfiguration) {
  const json cal = calibration();
  int held_out = 0, fitted = 0;
  for (const json& c : cal.at("configs")) {
    double synthesized = 0;
    for (const json& m : c.at("modules")) synthesized += m.at("cell_area_um2").get<double>();
    const model::AreaBreakdown b = model::estimate_area(arch_of(c.at("params")));
    const double modelled = (b.pe_array_mm2 + b.control_mm2) * 1e6;
    const double err = (modelled - synthesized) / synthesized;
    EXPECT_LT(std::abs(err), 0.10) << c.at("name") << " (" << c.at("part") << "): model "
                                   << modelled << " um^2, synthesis " << synthesized;
    (c.at("part") == "check" ? held_out : fitted) += 1;
  }
  EXPECT_GE(fitted, 6);
  EXPECT_GE(held_out, 3);
}

TEST(AreaCalibration, CellPricesReproduceTheSynthesizedAreas) {
  const json cal = calibration();  // kept: the loop reads into it
  for (const json& c : cal.at("configs")) {
    for (const json& m : c.at("modules")) {
      double priced = 0;
      for (const auto& [type, n] : m.at("cells_by_type").items())
        if (const double um2 = flows::generic_cell_um2(type); um2 > 0)
          priced += um2 * n.get<double>();
      EXPECT_NEAR(priced, m.at("cell_area_um2").get<double>(), 1e-6 * (1 + priced))
          << c.at("name") << " " << m.at("module");
    }
  }
}

TEST(AreaCalibration, GenericCellsArePricedAtTheirNangateEquivalents) {
  const std::map<std::string, double> expected = {{"$_NOT_", 0.532},
                                                  {"$_NAND_", 0.798},
                                                  {"$_AND_", 1.064},
                                                  {"$_XOR_", 1.596},
                                                  {"$_MUX_", 1.862},
                                                  {"$_ANDNOT_", 1.330},
                                                  {"$_DFF_P_", 4.522},
                                                  {"$_DFF_PN0_", 5.320},
                                                  {"$_DFFE_PP_", 4.522 + 1.862},
                                                  {"$_DFFE_PN0P_", 5.320 + 1.862},
                                                  {"$_SDFF_PP0_", 4.522 + 1.064},
                                                  {"$_SDFFE_PP0P_", 4.522 + 1.064 + 1.862},
                                                  {"$_DFFSR_PNN_", 6.384},
                                                  {"$_DLATCH_P_", 2.394}};
  for (const auto& [type, um2] : expected)
    EXPECT_NEAR(flows::generic_cell_um2(type), um2, 1e-12) << type;
  for (const char* none : {"$mem_v2", "$paramod$abc\\mw_pe", "mw_pe", "", "$_"})
    EXPECT_LT(flows::generic_cell_um2(none), 0) << none;
}

// The systolic property in the synthesized netlists: the PE's own logic depth does not grow with
// the array (the same RTL, mapped by abc to 34 cells in every configuration but the banked 8x8,
// where it found 31), and no module of the array around it (mesh wiring, skew and deskew, the
// array's edge) is deeper than the PE, from 2x2 to 16x16. The depth that grows is the compute
// controller's (its per-lane address chain at fold issue) and, on banked designs, the bank
// crossbar's (docs/synthesis.md).
TEST(AreaCalibration, ArrayLogicDepthDoesNotGrowWithTheArray) {
  long long pe_depth = -1;
  const json cal = calibration();  // kept: the loop reads into it
  for (const json& c : cal.at("configs")) {
    std::map<std::string, long long> depth;
    for (const json& m : c.at("modules")) depth[m.at("module")] = m.at("depth").get<long long>();
    ASSERT_TRUE(depth.count("mw_pe")) << c.at("name");
    if (pe_depth < 0) pe_depth = depth["mw_pe"];  // the 2x2's
    EXPECT_LE(depth["mw_pe"], pe_depth) << c.at("name");
    EXPECT_GE(depth["mw_pe"], pe_depth - 3) << c.at("name");
    for (const char* m : {"mw_mesh", "mw_skew", "mw_array"})
      EXPECT_LT(depth[m], depth["mw_pe"]) << c.at("name") << " " << m;
    EXPECT_GE(c.at("design_depth").get<long long>(), depth["mw_compute"]) << c.at("name");
  }
}
