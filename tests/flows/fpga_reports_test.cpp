// The readers of the FPGA flow's reports (flows/synth/fpga_reports.cpp) on real tool output,
// captured in tests/flows/data/fpga/ from Debian 12's yosys 0.23 and nextpnr-ice40 0.4 run on
// a small stand-in design (shift_xor.v there: a shift register XOR-ed with itself): its
// 100-bit form placed and routed on an iCE40 UP5K (nextpnr_fit.log) and its 7000-bit form,
// which does not fit (nextpnr_overflow.log; stat_overflow.json, yosys' stat after synth_ice40).
// The expected figures are the logs' own numbers. Also the --fpga device names.

#include "synth/fpga_reports.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "mapwright/support/error.hpp"

namespace sd = mapwright::flows::synth_detail;
using mapwright::flows::FpgaResult;

namespace {

std::string data(const std::string& name) {
  std::ifstream in(std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/fpga/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

}  // namespace

TEST(FpgaReports, UtilisationAndFmaxOfAFittingDesign) {
  const std::string log = data("nextpnr_fit.log");
  const auto use = sd::parse_nextpnr_utilisation(log);
  ASSERT_TRUE(use.count("ICESTORM_LC"));
  EXPECT_EQ(use.at("ICESTORM_LC").used, 150);
  EXPECT_EQ(use.at("ICESTORM_LC").available, 5280);
  EXPECT_EQ(use.at("ICESTORM_RAM").available, 30);
  EXPECT_EQ(use.at("ICESTORM_DSP").available, 8);
  EXPECT_EQ(use.at("SB_IO").used, 3);
  EXPECT_EQ(use.at("SB_RGBA_DRV").available, 1);  // the table's last row
  EXPECT_DOUBLE_EQ(sd::parse_nextpnr_fmax(log), 136.04);
  EXPECT_FALSE(sd::nextpnr_out_of_cells(log));
  EXPECT_EQ(sd::first_tool_error(log), "");
}

TEST(FpgaReports, ADesignThatDoesNotFit) {
  const std::string log = data("nextpnr_overflow.log");
  const auto use = sd::parse_nextpnr_utilisation(log);
  EXPECT_EQ(use.at("ICESTORM_LC").used, 10052);
  EXPECT_EQ(use.at("ICESTORM_LC").available, 5280);
  EXPECT_TRUE(sd::nextpnr_out_of_cells(log));
  EXPECT_DOUBLE_EQ(sd::parse_nextpnr_fmax(log), 0.0);  // never routed
  EXPECT_EQ(sd::first_tool_error(log).rfind("ERROR: Unable to place cell", 0), 0u);
  // Over capacity in the table alone (placement not reached) counts too.
  EXPECT_TRUE(
      sd::nextpnr_out_of_cells("Info: Device utilisation:\n"
                               "Info: \t         ICESTORM_RAM:    31/   30   103%\n"));
}

TEST(FpgaReports, Ice40CellsFromYosysStat) {
  FpgaResult r;
  sd::add_ice40_cells(data("stat_overflow.json"), r);
  EXPECT_EQ(r.luts, 9327);
  EXPECT_EQ(r.flops, 7000);
  EXPECT_EQ(r.carries, 0);
  EXPECT_THROW(sd::add_ice40_cells("not json", r), std::exception);
}

TEST(FpgaReports, NoTableNoFigures) {
  EXPECT_TRUE(sd::parse_nextpnr_utilisation("Info: nothing here\n").empty());
  EXPECT_FALSE(sd::nextpnr_out_of_cells(""));
}

TEST(FpgaDevice, NamesAndBadValues) {
  EXPECT_EQ(mapwright::flows::fpga_device("ice40-up5k").flag, "--up5k");
  EXPECT_TRUE(mapwright::flows::fpga_device("ice40-up5k").dsp);
  EXPECT_EQ(mapwright::flows::fpga_device("ice40-hx8k").package, "ct256");
  EXPECT_FALSE(mapwright::flows::fpga_device("ice40-hx8k").dsp);
  try {
    mapwright::flows::fpga_device("ICE40-UP5K");
    FAIL() << "accepted a wrong device name";
  } catch (const mapwright::core::SpecError& e) {
    EXPECT_EQ(e.where(), "--fpga");
    EXPECT_EQ(e.value(), "ICE40-UP5K");
  }
}

TEST(FpgaTop, NamesAndBadValues) {
  using mapwright::flows::FpgaTop;
  EXPECT_EQ(mapwright::flows::fpga_top(""), FpgaTop::Accel);
  EXPECT_EQ(mapwright::flows::fpga_top("accel"), FpgaTop::Accel);
  EXPECT_EQ(mapwright::flows::fpga_top("array"), FpgaTop::Array);
  EXPECT_STREQ(mapwright::flows::fpga_top_name(FpgaTop::Array), "array");
  try {
    mapwright::flows::fpga_top("mesh");
    FAIL() << "accepted a wrong top";
  } catch (const mapwright::core::SpecError& e) {
    EXPECT_EQ(e.where(), "--fpga-top");
    EXPECT_EQ(e.value(), "mesh");
  }
}

TEST(FpgaReports, TheTopIsInTheJsonAndTheText) {
  FpgaResult r;
  r.arch = "fpga2";
  r.device = "ice40-up5k";
  r.params.rows = 2;
  r.params.cols = 3;
  r.top = mapwright::flows::FpgaTop::Array;
  EXPECT_NE(mapwright::flows::fpga_json(r).find("\"top\": \"array\""), std::string::npos);
  std::ostringstream text;
  mapwright::flows::print_fpga(r, text);
  EXPECT_NE(text.str().find("mw_fpga_array (the array engine alone, mw_array 2x3"),
            std::string::npos)
      << text.str();
}
