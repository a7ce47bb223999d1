// The readers of yosys' reports behind `mapwright synth` (flows/synth/yosys_reports.cpp), on the
// reports of a real run: `mapwright synth --arch tests/flows/data/tiny2.yaml` (2x2 array, yosys
// 0.23) captured in tests/flows/data/synth_2x2/, and the log of yosys failing on the RTL before
// its assertions were put under `ifndef SYNTHESIS`. The expected figures were counted from the
// files independently (a script summing each module's cells times its instances).

#include "synth/yosys_reports.hpp"

#include <gtest/gtest.h>

#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "synth/tool_run.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace sd = mapwright::flows::synth_detail;
using mapwright::flows::SynthModule;
using mapwright::flows::SynthResult;

namespace {

std::string data(const std::string& name) {
  std::ifstream in(std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/synth_2x2/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

/// The captured run read as `mapwright synth` reads it.
SynthResult captured_result() {
  auto modules = sd::parse_stat_json(data("stat.json"));
  sd::add_transistors(data("stat_cmos.json"), modules);
  sd::add_memories(data("memories.il"), modules);
  for (const auto& [m, len] : sd::parse_ltp(data("ltp_modules.txt"))) modules.at(m).depth = len;
  SynthResult r;
  sd::assemble(modules, "mw_accel", sd::parse_ltp(data("ltp.txt")).at("mw_accel"), r);
  return r;
}

const SynthModule& module_named(const SynthResult& r, const std::string& name) {
  for (const auto& m : r.modules)
    if (m.name == name) return m;
  throw std::runtime_error("no module " + name);
}

}  // namespace

TEST(SynthReports, DesignFiguresSumEachModuleOverItsInstances) {
  const SynthResult r = captured_result();
  EXPECT_EQ(r.design.cells, 57666);
  EXPECT_EQ(r.design.flops, 4079);
  EXPECT_EQ(r.design.latches, 0);
  EXPECT_EQ(r.design.memories, 5);  // input, weight and accumulator buffers, two queues
  EXPECT_EQ(r.design.memory_bits, 332544);
  EXPECT_EQ(r.design.transistors, 604536);
  EXPECT_EQ(r.design.depth, 95);
  long long by_type = 0;
  for (const auto& [type, n] : r.design.cells_by_type) by_type += n;
  EXPECT_EQ(by_type, r.design.cells);
  long long cells = 0, flops = 0;
  for (const auto& m : r.modules) {
    cells += m.total.cells;
    flops += m.total.flops;
  }
  EXPECT_EQ(cells, r.design.cells);
  EXPECT_EQ(flops, r.design.flops);
}

TEST(SynthReports, ModulesAreSourceModulesWithInstancesAndVariants) {
  const SynthResult r = captured_result();
  EXPECT_EQ(r.modules.front().name, "mw_accel");  // the top first
  const SynthModule& pe = module_named(r, "mw_pe");
  EXPECT_EQ(pe.instances, 4);
  EXPECT_EQ(pe.variants, 1);
  EXPECT_EQ(pe.total.depth, 34);
  EXPECT_EQ(pe.total.flops, 192);
  const SynthModule& buf = module_named(r, "mw_buf");
  EXPECT_EQ(buf.instances, 3);  // input, weight, accumulator
  EXPECT_EQ(buf.variants, 2);   // the byte buffers share a parameterization
  EXPECT_EQ(buf.total.memories, 3);
  EXPECT_EQ(buf.total.flops, 0);  // the arrays are memories, not flip-flops
  EXPECT_EQ(module_named(r, "mw_skew").instances, 2);
  EXPECT_EQ(module_named(r, "mw_fifo").variants, 2);
}

TEST(SynthReports, TransistorEstimateReadsTheNumberBeforeThePlus) {
  std::map<std::string, sd::ModuleReport> m{{"a", {}}, {"b", {}}};
  sd::add_transistors(R"({"modules": {"a": {"estimated_num_transistors": "76990+"},
                                      "b": {"estimated_num_transistors": "84"}},})",
                      m);
  EXPECT_EQ(m["a"].transistors, 76990);
  EXPECT_EQ(m["b"].transistors, 84);
}

TEST(SynthReports, NotStatJsonThrows) {
  EXPECT_THROW(sd::parse_stat_json("Warning: something else"), std::runtime_error);
  EXPECT_THROW(sd::parse_stat_json(R"({"creator": "yosys"})"), std::runtime_error);
  SynthResult r;
  EXPECT_THROW(sd::assemble({}, "mw_accel", 0, r), std::runtime_error);
}

TEST(SynthReports, FirstErrorLineOfARealFailureNamesFileAndLine) {
  EXPECT_EQ(sd::first_error_line(data("yosys_error.log")),
            "mw_array.sv:359: ERROR: syntax error, unexpected '@'");
  EXPECT_EQ(sd::first_error_line("no problem\n"), "");
}

TEST(SynthReports, SourceModuleNames) {
  EXPECT_EQ(sd::source_module("$paramod$b2a06ead18a935c34450e0df33d1c86a0d438d9b\\mw_pe"), "mw_pe");
  // A short parameter list is spelled out in the name instead of hashed (yosys 0.23).
  EXPECT_EQ(sd::source_module("$paramod\\mw_row_fetch\\Lanes=32'00000000000000000000000000000100"),
            "mw_row_fetch");
  EXPECT_EQ(sd::source_module("mw_accel"), "mw_accel");
  EXPECT_EQ(sd::source_module("\\mw_accel"), "mw_accel");
}

TEST(SynthReports, CellClasses) {
  mapwright::flows::SynthFigures f;
  sd::classify_cells({{"$_DFFE_PN0P_", 3},
                      {"$_SDFF_PP0_", 2},
                      {"$_DFF_P_", 1},
                      {"$_DLATCH_P_", 4},
                      {"$mem_v2", 2},
                      {"$_AND_", 9}},
                     f);
  EXPECT_EQ(f.flops, 6);
  EXPECT_EQ(f.latches, 4);
  EXPECT_EQ(f.memories, 2);
}

TEST(SynthParams, TheModelsParametersOfAnArchitecture) {
  // Every parameter, by the name synth.ys passes it to mw_accel under.
  EXPECT_EQ(sd::params_text(mapwright::flows::synth_params(mapwright::core::load_arch("small4"),
                                                           "--arch small4")),
            "Rows 4, Cols 4, InBufBytes 16384, WtBufBytes 16384, AccBufWords 2048, BeatBytes 8, "
            "BufBanks 0");
}

TEST(SynthParams, AnArchitectureWithoutRtlParametersIsRefusedWithTheReason) {
  using mapwright::core::SpecError;
  const mapwright::core::Arch base = mapwright::core::load_arch("small4");
  auto why = [&](auto change) {
    mapwright::core::Arch a = base;
    change(a);
    try {
      mapwright::flows::synth_params(a, "--arch x.yaml");
    } catch (const SpecError& e) {
      EXPECT_EQ(e.where(), "--arch x.yaml");
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why([](auto& a) { a.rows = 128; }).find("array rows 128: the RTL takes 2..64"),
            std::string::npos);
  EXPECT_NE(why([](auto& a) { a.dram_bytes_per_cycle = 8.5; }).find("whole number of bytes"),
            std::string::npos);
  EXPECT_NE(why([](auto& a) { a.accum_buf_bytes = 8190; }).find("whole int32 words"),
            std::string::npos);
  EXPECT_NE(why([](auto& a) { a.operand_bits = 16; }).find("int8 x int8 -> int32 only"),
            std::string::npos);
  EXPECT_NE(why([](auto& a) { a.buffer_banks = 3; }).find("buffers.banks 3"), std::string::npos);
  EXPECT_EQ(why([](auto&) {}), "accepted");
}
