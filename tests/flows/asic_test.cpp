// The library flow's data and readers (flows/asic.hpp): the node scaling equations against the
// published values of Stillmaker and Baas (2017), the liberty check on the OSU 0.18 um library
// and on files that lack what the flow needs, and the OpenSTA report reader on real output
// captured in tests/flows/data/asic/ (Debian 12's OpenSTA timing the library-mapped 2x2
// accelerator, tiny2, and one PE; the expected figures are the logs' own numbers).

#include "mapwright/flows/asic.hpp"

#include <gtest/gtest.h>

#include <map>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mapwright/support/error.hpp"
#include "synth/asic_macros.hpp"

namespace fs = std::filesystem;
using namespace mapwright::flows;
using mapwright::core::SpecError;

namespace {

std::string data(const std::string& name) {
  std::ifstream in(std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/asic/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

std::string source_file(const std::string& rel) {
  return std::string(MAPWRIGHT_SOURCE_DIR) + "/" + rel;
}

/// A file in a fresh folder of the test's own.
std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("mw_asic_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

/// A section of a captured timer output, as the flow cuts it.
std::string section(const std::string& text, const std::string& name) {
  const std::string tag = "mapwright-section " + name + "\n";
  const size_t a = text.find(tag) + tag.size();
  return text.substr(a, text.find("mapwright-section", a) - a);
}

}  // namespace

TEST(NodeScaling, ShippedFileHoldsThePapersCoefficientsAndAreaTable) {
  const NodeScaling s = load_node_scaling(source_file("configs/tech/node-scaling.yaml"));
  const TechNode& n180 = s.node("180", "test");
  const TechNode& n45 = s.node("HP45", "test");
  EXPECT_EQ(n180.nm, 180);
  EXPECT_DOUBLE_EQ(n180.supply_v, 1.8);
  EXPECT_DOUBLE_EQ(n45.supply_v, 1.0);
  // The paper's delay fits evaluated by hand: 180 nm at 1.8 V, 97.09*1.8^2 - 356.7*1.8 + 406.5 =
  // 79.0116; HP45 at 1.0 V, -501.6 + 1567 - 1619 + 566.1 = 12.5.
  EXPECT_NEAR(s.delay_factor(n180, n45), 12.5 / 79.0116, 1e-9);
  EXPECT_NEAR(s.delay_factor(n45, n180) * s.delay_factor(n180, n45), 1.0, 1e-12);
  // Energy: 24.64*1.8 - 17.98 = 26.372; HP45 1.018 - 0.3107 + 0.1539 = 0.8612.
  EXPECT_NEAR(s.energy_factor(n180, n45), 0.8612 / 26.372, 1e-9);
  // The area table: 180 nm -> 45 nm 0.053, 45 nm -> 180 nm 19 (the paper rounds both).
  EXPECT_DOUBLE_EQ(s.area_factor(n180, n45), 0.053);
  EXPECT_DOUBLE_EQ(s.area_factor(n45, n180), 19);
  EXPECT_NEAR(s.area_factor(n180, n45) * s.area_factor(n45, n180), 1.0, 0.01);
  EXPECT_NE(s.source.find("Stillmaker"), std::string::npos);
}

TEST(NodeScaling, ANodeWithoutASupplyOrUnknownIsRefusedNamingIt) {
  const NodeScaling s = load_node_scaling(source_file("configs/tech/node-scaling.yaml"));
  EXPECT_THROW(s.node("130", "--node"), SpecError);  // in the table, no supply given
  try {
    s.node("HP3", "--node");
    FAIL() << "no throw";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.where(), "--node");
    EXPECT_EQ(e.value(), "HP3");
    EXPECT_NE(std::string(e.what()).find("HP45"), std::string::npos) << e.what();
  }
  const std::string bad =
      write_temp("bad_scaling.yaml",
                 "source: x\nnodes:\n  \"180\": {nm: 180, supply_v: 1.8, delay: [1, 2], "
                 "energy: [0, 1, 1], power: [0, 1, 1]}\narea: {}\n");
  try {
    load_node_scaling(bad);
    FAIL() << "no throw";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.key(), "nodes.180.delay");
  }
}

TEST(SramTiming, ShippedModelIsCitedAndAtTheLibrarysNode) {
  const SramTiming t = load_sram_timing(source_file("configs/tech/sram-timing.yaml"));
  EXPECT_EQ(t.node, "180");
  EXPECT_DOUBLE_EQ(t.clock_to_output_ns, 3.382);  // the slowest published (32x256 macro)
  EXPECT_DOUBLE_EQ(t.minimum_period_ns, 6.875);
  EXPECT_NE(t.source.find("OpenRAM"), std::string::npos);
}

TEST(Liberty, TheOsuLibraryHasWhatTheFlowNeeds) {
  const std::string p = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib";
  if (!fs::exists(p)) GTEST_SKIP() << "qflow-tech-osu018 not installed";
  EXPECT_EQ(resolve_liberty("osu018"), p);
  const LibertyInfo l = check_liberty(p, "--liberty");
  EXPECT_EQ(l.name, "osu018_stdcells");
  EXPECT_EQ(l.cells, 32);
  EXPECT_EQ(l.buffer, "BUFX2");  // the smallest buffer (24 um^2; BUFX4 is larger)
  EXPECT_EQ(l.buffer_in, "A");
  EXPECT_EQ(l.buffer_out, "Y");
  EXPECT_DOUBLE_EQ(l.time_unit_ns, 1.0);
  EXPECT_TRUE(l.flop_cells.count("DFFPOSX1"));
  EXPECT_TRUE(l.flop_cells.count("DFFSR"));
  EXPECT_FALSE(l.flop_cells.count("INVX1"));
  EXPECT_DOUBLE_EQ(l.cell_area.at("BUFX2"), 24);
}

TEST(Liberty, AFileTheFlowCannotUseIsRefusedWithTheReason) {
  const auto why = [](const std::string& text) {
    const std::string p = write_temp("x.lib", text);
    try {
      check_liberty(p, "--liberty");
    } catch (const SpecError& e) {
      EXPECT_EQ(e.where(), "--liberty");
      EXPECT_EQ(e.value(), p);
      return e.why();
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("name: not a liberty\n").find("not a liberty file"), std::string::npos);
  const std::string inv =
      "\n cell (INV) { area : 1; pin (A) { direction : input; }\n"
      " pin (Y) { direction : output; function : \"(!A)\"; } }\n";
  const std::string buf =
      "\n cell (BUF) { area : 2; pin (A) { direction : input; }\n"
      " pin (Y) { direction : output; function : \"A\"; } }\n";
  const std::string ff = "\n cell (DFF) { area : 5; ff (IQ, IQN) { next_state : \"D\"; } }\n";
  EXPECT_NE(why("library (l) {" + inv + buf + "}").find("no flip-flop"), std::string::npos);
  EXPECT_NE(why("library (l) {" + ff + buf + "}").find("no inverter"), std::string::npos);
  EXPECT_NE(why("library (l) {" + ff + inv + "}").find("no buffer"), std::string::npos);
  EXPECT_NE(why("library (l) {" + ff + inv + buf + "}").find("no timing"), std::string::npos);
  EXPECT_EQ(why("library (l) {" + ff + inv + buf + " cell_rise }"), "accepted");
  try {
    resolve_liberty("/no/such/file.lib");
    FAIL() << "no throw";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.where(), "--liberty");
  }
}

TEST(StaReports, TheDesignsWorstPathItsNetsAndTheirInstances) {
  const std::string text = data("sta_first_path.log");
  const std::vector<TimingPath> setup = asic_detail::parse_report_checks(section(text, "setup"));
  ASSERT_EQ(setup.size(), 1u);
  const TimingPath& p = setup[0];
  EXPECT_DOUBLE_EQ(p.arrival_ns, 15.1141);
  EXPECT_DOUBLE_EQ(p.required_ns, 6.1348);
  EXPECT_DOUBLE_EQ(p.slack_ns, -8.9793);
  EXPECT_EQ(p.cells, 94);  // the launching flop and 93 gates
  EXPECT_EQ(p.startpoint, "u_compute.u_seq.s_pos_q[33]");
  ASSERT_FALSE(p.instances.empty());
  EXPECT_EQ(p.instances.front(), "u_compute.u_seq");
  EXPECT_EQ(p.instances.back(), "u_compute.u_array.u_mesh.gen_row[0].gen_col[0].u_pe");
  const std::vector<TimingPath> hold = asic_detail::parse_report_checks(section(text, "hold"));
  ASSERT_EQ(hold.size(), 1u);
  EXPECT_DOUBLE_EQ(hold[0].slack_ns, 0.2059);
  EXPECT_DOUBLE_EQ(asic_detail::parse_sta_value(section(text, "totals"), "wns"), -8.9793);
  EXPECT_DOUBLE_EQ(asic_detail::parse_sta_value(section(text, "totals"), "tns"), -5550.1646);
}

TEST(StaReports, FivePathsWithDistinctEndpointsOfOnePe) {
  const std::vector<TimingPath> setup =
      asic_detail::parse_report_checks(section(data("pe_sta.log"), "setup"));
  ASSERT_EQ(setup.size(), 5u);
  EXPECT_DOUBLE_EQ(setup[0].arrival_ns, 7.4665);
  EXPECT_DOUBLE_EQ(setup[0].slack_ns, -1.3282);
  EXPECT_DOUBLE_EQ(setup[4].slack_ns, -0.9061);
  for (size_t i = 1; i < setup.size(); ++i) {
    EXPECT_LE(setup[i - 1].slack_ns, setup[i].slack_ns);
    EXPECT_NE(setup[i - 1].endpoint, setup[i].endpoint);
  }
  EXPECT_EQ(setup[0].startpoint, "b_o[0]");
  EXPECT_THROW(asic_detail::parse_sta_value("no totals here", "wns"), std::runtime_error);
}

TEST(StaReports, ANetsInstanceIsThePathYosysFlattenedItFrom) {
  using asic_detail::net_instance;
  EXPECT_EQ(net_instance("u_compute.u_seq.s_pos_q[33]"), "u_compute.u_seq");
  EXPECT_EQ(net_instance("$flatten\\\\u_compute.$abc$253824$new_n29582_"), "u_compute");
  EXPECT_EQ(net_instance("$flatten\\\\u_compute.\\\\u_array.\\\\u_mesh.\\\\gen_row[0].gen_col[0]."
                         "u_pe.$abc$1$auto$rtlil.cc:2560:MuxGate$2"),
            "u_compute.u_array.u_mesh.gen_row[0].gen_col[0].u_pe");
  EXPECT_EQ(net_instance("u_cmd.dma_pop_i_bF$buf11"), "u_cmd");
  EXPECT_EQ(net_instance("$abc$6584$auto$rtlil.cc:2560:MuxGate$6567"), "");
  EXPECT_EQ(net_instance("b_o[0]"), "");
}

TEST(AsicMacros, TheBankedBuffersSramsAndTheirLibertyCellsAndBlifPins) {
  // yosys' dump of the 4x4 banked array's macros (small4-banked: 8 banks of 2048 x 8 bits per
  // input and weight buffer, 2 x 8 of 128 x 32-bit words for the accumulator).
  const auto shapes = asic_detail::parse_macros(data("macros_small4_banked.il"));
  ASSERT_EQ(shapes.size(), 2u);
  std::map<std::string, const asic_detail::MacroShape*> by_cell;
  for (const auto& s : shapes) by_cell[s.macro.cell] = &s;
  ASSERT_TRUE(by_cell.count("mw_sram_2048x8"));
  ASSERT_TRUE(by_cell.count("mw_sram_128x32"));
  const auto& s = *by_cell.at("mw_sram_2048x8");
  EXPECT_EQ(s.macro.kind, "sram");
  EXPECT_EQ(s.macro.depth, 2048);
  EXPECT_EQ(s.macro.width, 8);
  SramTiming t;
  t.source = "test";
  t.clock_to_output_ns = 3.5;
  t.output_transition_ns = 0.4;
  const std::string lib = asic_detail::macros_liberty(shapes, t);
  EXPECT_NE(lib.find("cell (mw_sram_2048x8)"), std::string::npos);
  EXPECT_NE(lib.find("pin (rd_addr_i_10)"), std::string::npos);  // 11 address bits, scalar
  EXPECT_EQ(lib.find("pin (rd_addr_i_11)"), std::string::npos);
  EXPECT_NE(lib.find("pin (rd_data_o_31)"), std::string::npos);  // the 32-bit macro's
  EXPECT_NE(lib.find("timing_type : rising_edge"), std::string::npos);
  EXPECT_NE(lib.find("values (\"3.5\")"), std::string::npos);
  const std::string blif = ".model mw_accel\n.subckt NAND2X1 A=a B=b Y=y\n.subckt " + s.yosys_name +
                           " clk_i=clk rd_addr_i[3]=n1 rd_en_i=n2\n.end\n";
  const std::string out = asic_detail::rewrite_blif(blif, shapes);
  EXPECT_NE(out.find(".gate NAND2X1 A=a B=b Y=y\n"), std::string::npos);
  EXPECT_NE(out.find(".gate mw_sram_2048x8 clk_i=clk rd_addr_i_3=n1 rd_en_i=n2\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find(".subckt"), std::string::npos);
}

TEST(AsicMacros, SimulationModelsWrapTheRtlMacrosBehindTheScalarPins) {
  const auto shapes = asic_detail::parse_macros(data("macros_small4_banked.il"));
  const std::string v = asic_detail::macros_sim_verilog(shapes);
  EXPECT_NE(v.find("module mw_sram_2048x8 ("), std::string::npos);
  EXPECT_NE(v.find("mw_sram #(.Depth(2048), .Width(8)) u_macro ("), std::string::npos) << v;
  // The address bus reassembled most significant bit first.
  EXPECT_NE(v.find(".rd_addr_i({rd_addr_i_10, rd_addr_i_9, rd_addr_i_8,"), std::string::npos);
  EXPECT_NE(v.find("input rd_en_i;"), std::string::npos);
  EXPECT_NE(v.find("output rd_data_o_31;"), std::string::npos);
}
