// The analytical area model: the idealized 16x16 architecture equals a sum worked out by hand
// from the constants (their fit on synthesis: tests/flows/area_calibration_test.cpp); the PE array
// scales with Rows x Cols and the buffers with their KiB; the total is monotone in every dimension;
// YAML overrides apply and every bad value is refused with a message naming the file, the key and
// the value.
#include "mapwright/model/area.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>

#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

using namespace mapwright;
using namespace mapwright::core;
using namespace mapwright::model;

namespace {

constexpr double kTol = 1e-9;  // mm^2

Arch arch_of(int rows, int cols, long long in_kib, long long wt_kib, long long acc_kib) {
  Arch a;
  a.name = "area";
  a.rows = rows;
  a.cols = cols;
  a.input_buf_bytes = in_kib * 1024;
  a.weight_buf_bytes = wt_kib * 1024;
  a.accum_buf_bytes = acc_kib * 1024;
  return a;
}

AreaConstants from_text(const std::string& text) {
  return area_constants_from_yaml(load_yaml_text(text, "t.yaml"), "t.yaml");
}

/// Expects a SpecError whose message contains every fragment.
void expect_bad(const std::string& text, std::initializer_list<std::string> fragments) {
  try {
    from_text(text);
    ADD_FAILURE() << "expected a SpecError for: " << text;
  } catch (const SpecError& e) {
    const std::string msg = e.what();
    for (const auto& f : fragments)
      EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  }
}

}  // namespace

TEST(Area, IdealDefaultIsTheHandComputedSumOfItsParts) {
  const Arch a = load_arch("default-ideal");
  ASSERT_EQ(a.rows, 16);
  ASSERT_EQ(a.cols, 16);
  ASSERT_EQ(a.input_buf_bytes, 128 * 1024);
  ASSERT_EQ(a.weight_buf_bytes, 128 * 1024);
  ASSERT_EQ(a.accum_buf_bytes, 64 * 1024);
  ASSERT_EQ(a.dram_bytes_per_cycle, 16);
  // skew a, skew b: 8 * 16*15/2 each; deskew 32 * 16*15/2.
  EXPECT_EQ(skew_bits(a), 960 + 960 + 3840);

  const AreaConstants c;
  const AreaBreakdown b = estimate_area(a);
  EXPECT_NEAR(b.pe_array_mm2, 256 * c.pe_um2 * 1e-6, kTol);
  EXPECT_NEAR(b.input_buf_mm2, (1888 + 3081 * 128) * 1e-6, kTol);  // 396256 um^2
  EXPECT_NEAR(b.weight_buf_mm2, 396256e-6, kTol);
  EXPECT_NEAR(b.accum_buf_mm2, (1888 + 3081 * 64) * 1e-6, kTol);  // 199072 um^2
  EXPECT_NEAR(b.array_control_mm2,
              (c.array_fixed_um2 + 16 * c.array_per_col_um2 + 5760 * c.skew_um2_per_bit +
               c.compute_fixed_um2 + 16 * c.compute_per_lane_um2 + c.control_fixed_um2) *
                  1e-6,
              kTol);
  EXPECT_NEAR(b.dma_mm2, (c.dma_fixed_um2 + 16 * c.dma_per_beat_byte_um2) * 1e-6, kTol);
  EXPECT_EQ(b.bank_logic_mm2, 0);
  EXPECT_NEAR(b.control_mm2, b.array_control_mm2 + b.dma_mm2, kTol);
  EXPECT_NEAR(b.total_mm2,
              b.pe_array_mm2 + b.input_buf_mm2 + b.weight_buf_mm2 + b.accum_buf_mm2 + b.control_mm2,
              kTol);
}

TEST(Area, DefaultConstantsNameTheirSources) {
  const AreaConstants c;
  EXPECT_EQ(c.node, "45 nm");
  for (const char* s : {"yosys", "NanGate45", "CACTI", "calibrate-area"})
    EXPECT_NE(c.source.find(s), std::string::npos) << s;
  for (double v :
       {c.pe_um2, c.array_fixed_um2, c.array_per_col_um2, c.skew_um2_per_bit, c.compute_fixed_um2,
        c.compute_per_lane_um2, c.dma_fixed_um2, c.dma_per_beat_byte_um2, c.control_fixed_um2,
        c.bank_per_lane_um2, c.bank_per_beat_byte_um2, c.bank_per_col_um2, c.bank_modulo_um2})
    EXPECT_GT(v, 0);  // every fitted term is a cost (the fit gave none below zero)
}

TEST(Area, DoublingThePesDoublesThePeArray) {
  const AreaBreakdown base = estimate_area(arch_of(16, 16, 128, 128, 64));
  const AreaBreakdown wide = estimate_area(arch_of(16, 32, 128, 128, 64));
  const AreaBreakdown tall = estimate_area(arch_of(32, 16, 128, 128, 64));
  EXPECT_NEAR(wide.pe_array_mm2 / base.pe_array_mm2, 2.0, 1e-12);
  EXPECT_NEAR(tall.pe_array_mm2 / base.pe_array_mm2, 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(wide.input_buf_mm2, base.input_buf_mm2);  // buffers do not follow the array
  EXPECT_GT(wide.control_mm2, base.control_mm2);             // edges do
  EXPECT_GT(tall.control_mm2, base.control_mm2);
}

TEST(Area, BufferTermsScaleWithKiB) {
  const AreaConstants c;
  const AreaBreakdown small = estimate_area(arch_of(16, 16, 16, 32, 64));
  const AreaBreakdown big = estimate_area(arch_of(16, 16, 32, 64, 128));
  const double fixed = c.sram_buffer_fixed_um2 * 1e-6;
  for (auto [s, g] : {std::pair{small.input_buf_mm2, big.input_buf_mm2},
                      std::pair{small.weight_buf_mm2, big.weight_buf_mm2},
                      std::pair{small.accum_buf_mm2, big.accum_buf_mm2}})
    EXPECT_NEAR((g - fixed) / (s - fixed), 2.0, 1e-12);
  EXPECT_NEAR(big.input_buf_mm2 - small.input_buf_mm2, 16 * c.sram_um2_per_kib * 1e-6, kTol);
  EXPECT_DOUBLE_EQ(big.pe_array_mm2, small.pe_array_mm2);
}

TEST(Area, MonotoneInRowsColsAndEveryBuffer) {
  const Arch base = arch_of(8, 8, 64, 64, 32);
  const double t0 = estimate_area(base).total_mm2;
  for (int n = 2; n < 64; ++n) {
    const double r0 = estimate_area(arch_of(n, 8, 64, 64, 32)).total_mm2;
    EXPECT_LT(r0, estimate_area(arch_of(n + 1, 8, 64, 64, 32)).total_mm2) << "rows " << n;
    const double c0 = estimate_area(arch_of(8, n, 64, 64, 32)).total_mm2;
    EXPECT_LT(c0, estimate_area(arch_of(8, n + 1, 64, 64, 32)).total_mm2) << "cols " << n;
  }
  EXPECT_LT(t0, estimate_area(arch_of(8, 8, 65, 64, 32)).total_mm2);
  EXPECT_LT(t0, estimate_area(arch_of(8, 8, 64, 65, 32)).total_mm2);
  EXPECT_LT(t0, estimate_area(arch_of(8, 8, 64, 64, 33)).total_mm2);
  Arch wide_port = base;
  wide_port.dram_bytes_per_cycle = base.dram_bytes_per_cycle * 2;
  EXPECT_LT(t0, estimate_area(wide_port).total_mm2);
}

TEST(Area, YamlOverridesOnlyTheKeysGiven) {
  const AreaConstants d;
  const AreaConstants c = from_text("pe_um2: 1000\nsram_um2_per_kib: 5000\nnode: 22 nm\n");
  EXPECT_DOUBLE_EQ(c.pe_um2, 1000.0);
  EXPECT_DOUBLE_EQ(c.sram_um2_per_kib, 5000.0);
  EXPECT_DOUBLE_EQ(c.dma_fixed_um2, d.dma_fixed_um2);
  EXPECT_DOUBLE_EQ(c.control_fixed_um2, d.control_fixed_um2);
  EXPECT_EQ(c.node, "22 nm");
  EXPECT_NE(c.source.find("t.yaml"), std::string::npos) << c.source;
  EXPECT_EQ(from_text("source: my synthesis run\npe_um2: 300\n").source, "my synthesis run");
  EXPECT_DOUBLE_EQ(from_text("bank_fixed_um2: 0\n").bank_fixed_um2, 0.0);  // a term may be 0

  const Arch a = arch_of(16, 16, 128, 128, 64);
  EXPECT_NEAR(estimate_area(a, c).pe_array_mm2, 256 * 1000 * 1e-6, kTol);
  EXPECT_NEAR(estimate_area(a, c).input_buf_mm2, (1888 + 5000 * 128) * 1e-6, kTol);

  // An absent or null section keeps every default.
  const YAML::Node root = load_yaml_text("name: x\n", "t.yaml");
  EXPECT_DOUBLE_EQ(area_constants_from_yaml(root["area"], "t.yaml").pe_um2, d.pe_um2);
  EXPECT_EQ(from_text("~").source, d.source);
}

TEST(Area, BadYamlIsRefusedNamingFileKeyAndValue) {
  expect_bad("flop_um2: 3\n", {"t.yaml", "'area.flop_um2'", "'3'", "unknown key"});
  expect_bad("pe_um2: big\n", {"t.yaml", "'area.pe_um2'", "'big'"});
  expect_bad("pe_um2: 0\n", {"t.yaml", "'area.pe_um2'", "'0'", "positive"});
  expect_bad("sram_um2_per_kib: -5\n", {"t.yaml", "'area.sram_um2_per_kib'", "'-5'", "positive"});
  expect_bad("control_fixed_um2: .inf\n", {"t.yaml", "'area.control_fixed_um2'", "'.inf'"});
  expect_bad("dma_fixed_um2: -1\n", {"t.yaml", "'area.dma_fixed_um2'", "'-1'", "non-negative"});
  expect_bad("array_per_col_um2: [1, 2]\n", {"t.yaml", "'area.array_per_col_um2'"});
  expect_bad("sram_buffer_fixed_um2: -0.5\n", {"'area.sram_buffer_fixed_um2'", "'-0.5'"});
  expect_bad("- 1\n- 2\n", {"t.yaml", "'area'", "mapping"});
}

TEST(Area, BankMacrosHoldEveryWordOnceAtItsBankAndRow) {
  // mw_bank_buf's layout: word a of a set at bank a mod N, row a >> s (2^s <= N). The macros
  // must hold every word at a distinct (bank, row), and no fewer rows would do.
  for (int banks = 1; banks <= 40; ++banks) {
    for (const long long words : {2LL, 7LL, 64LL, 67LL, 1000LL, 4096LL}) {
      for (int sets = 1; sets <= 2; ++sets) {
        const BankMacros m = bank_macros(words, banks, sets);
        ASSERT_EQ(m.macros, static_cast<long long>(banks) * sets);
        int s = 0;
        while ((2 << s) <= banks) ++s;
        const long long set_words = (words + sets - 1) / sets;
        std::set<std::pair<long long, long long>> cells;
        long long max_row = -1;
        for (long long a = 0; a < set_words; ++a) {
          const long long row = a >> s;
          EXPECT_TRUE(cells.insert({a % banks, row}).second) << banks << " banks, word " << a;
          max_row = std::max(max_row, row);
        }
        EXPECT_EQ(m.words_per_macro, max_row + 1) << banks << " banks, " << words << " words";
      }
    }
  }
  EXPECT_EQ(bank_macros(1024, 0, 1).macros, 0);
}

TEST(Area, BankedArchIsPricedMacroByMacro) {
  const Arch m = load_arch("default-ideal");
  const Arch a = load_arch("default");
  ASSERT_EQ(a.buffer_banks, 17);
  const AreaConstants c;
  const AreaBreakdown b = estimate_area(a);
  const AreaBreakdown d = estimate_area(m);
  // 17 macros of 128 KiB / 16 = 8 KiB each; the accumulator's 2 x 17 macros of 16384 / 2 / 16 =
  // 512 words of 4 bytes (2 KiB).
  EXPECT_NEAR(b.input_buf_mm2, 17 * (1888 + 3081 * 8) * 1e-6, kTol);  // 451112 um^2
  EXPECT_NEAR(b.weight_buf_mm2, b.input_buf_mm2, kTol);
  EXPECT_NEAR(b.accum_buf_mm2, 34 * (1888 + 3081 * 2) * 1e-6, kTol);  // 273700 um^2
  // 17 banks x (16 lanes, 16 DRAM bytes per cycle, 16 columns), and 17 banks' modulos.
  EXPECT_NEAR(b.bank_logic_mm2,
              (c.bank_fixed_um2 +
               17 * 16 * (c.bank_per_lane_um2 + c.bank_per_beat_byte_um2 + c.bank_per_col_um2) +
               c.bank_modulo_um2 * 7890) *
                  1e-6,
              kTol);
  EXPECT_NEAR(b.control_mm2 - d.control_mm2, b.bank_logic_mm2, kTol);
  EXPECT_DOUBLE_EQ(b.pe_array_mm2, d.pe_array_mm2);
  EXPECT_GT(b.total_mm2, d.total_mm2);
}

// The modulos of the bank decodes, counted by hand from the RTL for the default (17 banks, 5
// divisor bits): input and weight buffers 16 read lanes + the DMA row's first word at 17 address
// bits (128 KiB), the accumulator 2 x 16 result lanes + 16 beat bytes + 4 beat words at 14 bits
// (16384 words), the compute controller 16 lanes at 17 bits: (2 x 17 x 17 + 52 x 14 + 16 x 17)
// x 5 = 7890. A power of two (a bit select) and no banks: none; a buffer address narrower than 8
// bits is still an 8-bit modulo.
TEST(Area, BankModuloCellsCountTheDecodesOfANonPowerOfTwoBankCount) {
  Arch a = load_arch("default");
  EXPECT_EQ(bank_modulo_cells(a), 7890);
  a.buffer_banks = 16;
  EXPECT_EQ(bank_modulo_cells(a), 0);
  a.buffer_banks = 0;
  EXPECT_EQ(bank_modulo_cells(a), 0);
  a.buffer_banks = 1;  // 2^0: bank 0 for every word
  EXPECT_EQ(bank_modulo_cells(a), 0);
  Arch s = arch_of(4, 4, 16, 16, 8);  // the calibration's a4x4-b8-k11: 14 and 11 address bits
  s.dram_bytes_per_cycle = 8;
  s.buffer_banks = 11;  // 4 divisor bits
  EXPECT_EQ(bank_modulo_cells(s), (5 * 14 + 5 * 14 + (8 + 8 + 2) * 11 + 4 * 17) * 4);
  Arch t = s;  // 64-byte buffers and 64 accumulator words: 6-bit addresses, 8-bit modulos
  t.input_buf_bytes = t.weight_buf_bytes = 64;
  t.accum_buf_bytes = 256;
  EXPECT_EQ(bank_modulo_cells(t), (5 * 8 + 5 * 8 + (8 + 8 + 2) * 8 + 4 * 17) * 4);
  const AreaConstants c;
  Arch p = s;
  p.buffer_banks = 8;
  const double extra = (estimate_area(s).bank_logic_mm2 - estimate_area(p).bank_logic_mm2) * 1e6;
  EXPECT_NEAR(
      extra,
      3 * (c.bank_per_lane_um2 * 4 + c.bank_per_beat_byte_um2 * 8 + c.bank_per_col_um2 * 4) +
          c.bank_modulo_um2 * bank_modulo_cells(s),
      1e-6);
}
