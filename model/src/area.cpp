// Analytical chip area. Logic: per-part linear terms fitted on yosys' synthesis of the RTL
// (scripts/calibrate-area.py; every cell priced at its NanGate45 X1 equivalent,
// flows::generic_cell_um2): PEs, array edge, compute controller, fixed control, DMA and bank logic.
// Buffers: one SRAM macro each, a fixed part plus a part per KiB; on a banked architecture
// (buffers.banks = N) the macros of rtl/mw_bank_buf.sv: N per input and weight buffer and 2N for
// the accumulator, each holding 1 / 2^floor(log2 N) of its buffer (or half).
#include "mapwright/model/area.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

namespace mapwright::model {

namespace {

constexpr double kUm2PerMm2 = 1e6;

/// Bits of a skew or deskew triangle: lane k holds k stages (skew) or lanes-1-k (deskew), so
/// both hold lanes*(lanes-1)/2 stages of `width` bits.
long long triangle_bits(long long lanes, long long width) {
  return lanes * (lanes - 1) / 2 * width;
}

/// One buffer macro of `bytes` bytes.
double buffer_um2(long long bytes, const AreaConstants& c) {
  return c.sram_buffer_fixed_um2 + c.sram_um2_per_kib * static_cast<double>(bytes) / 1024.0;
}

/// A buffer of `words` words of `word_bytes` bytes: one macro, or with `banks` > 0 the macros of
/// mw_bank_buf (`sets` sets of `banks`, the words split evenly between the sets).
double banked_buffer_um2(long long words, long long word_bytes, int banks, int sets,
                         const AreaConstants& c) {
  if (banks <= 0) return buffer_um2(words * word_bytes, c);
  const BankMacros m = bank_macros(words, banks, sets);
  return static_cast<double>(m.macros) * buffer_um2(m.words_per_macro * word_bytes, c);
}

}  // namespace

BankMacros bank_macros(long long words, int banks, int sets) {
  BankMacros m;
  if (banks <= 0 || words <= 0 || sets <= 0) return m;
  long long row_words = 1;  // 2^RowShift: the largest power of two not above `banks`
  while (row_words * 2 <= banks) row_words *= 2;
  const long long set_words = (words + sets - 1) / sets;
  m.macros = static_cast<long long>(banks) * sets;
  m.words_per_macro = (set_words + row_words - 1) / row_words;
  return m;
}

long long bank_modulo_cells(const core::Arch& arch) {
  const long long banks = arch.buffer_banks;
  if (banks <= 0 || (banks & (banks - 1)) == 0) return 0;
  const auto width = [](long long depth) {  // rtl/mw_bank_buf.sv: MW = max($clog2(Depth), 8)
    long long aw = 0;
    while ((1LL << aw) < depth) ++aw;
    return std::max<long long>(aw, 8);
  };
  long long divisor_bits = 0;
  while ((1LL << divisor_bits) <= banks) ++divisor_bits;
  const long long lanes = std::max(arch.rows, arch.cols);
  const long long beat = static_cast<long long>(arch.dram_bytes_per_cycle);
  const long long acc_words = arch.accum_buf_bytes / std::max(1, arch.acc_bits / 8);
  const long long dividend_bits = (lanes + 1) * width(arch.input_buf_bytes) +
                                  (lanes + 1) * width(arch.weight_buf_bytes) +
                                  (2 * arch.cols + beat + beat / 4) * width(acc_words) + lanes * 17;
  return dividend_bits * divisor_bits;
}

long long skew_bits(const core::Arch& arch) {
  const long long r = arch.rows, k = arch.cols, op = arch.operand_bits, acc = arch.acc_bits;
  return triangle_bits(r, op)      // mw_skew u_skew_a: activations, one lane per row
         + triangle_bits(k, op)    // mw_skew u_skew_b: OS weights, one lane per column
         + triangle_bits(k, acc);  // mw_skew (Deskew): WS partial sums, one lane per column
}

AreaBreakdown estimate_area(const core::Arch& arch, const AreaConstants& c) {
  AreaBreakdown b;
  const auto um2 = [](double v) { return v / kUm2PerMm2; };
  const double lanes = static_cast<double>(std::max(arch.rows, arch.cols));
  b.pe_array_mm2 = um2(static_cast<double>(arch.rows) * arch.cols * c.pe_um2);
  const int banks = arch.buffer_banks;
  const long long acc_word = arch.acc_bits / 8;
  b.input_buf_mm2 = um2(banked_buffer_um2(arch.input_buf_bytes, 1, banks, 1, c));
  b.weight_buf_mm2 = um2(banked_buffer_um2(arch.weight_buf_bytes, 1, banks, 1, c));
  b.accum_buf_mm2 = um2(banked_buffer_um2(arch.accum_buf_bytes / acc_word, acc_word, banks, 2, c));
  b.array_control_mm2 =
      um2(c.array_fixed_um2 + c.array_per_col_um2 * arch.cols +
          c.skew_um2_per_bit * static_cast<double>(skew_bits(arch)) + c.compute_fixed_um2 +
          c.compute_per_lane_um2 * lanes + c.control_fixed_um2);
  b.dma_mm2 = um2(c.dma_fixed_um2 + c.dma_per_beat_byte_um2 * arch.dram_bytes_per_cycle);
  b.bank_logic_mm2 = banks > 0
                         ? um2(c.bank_fixed_um2 +
                               banks * (c.bank_per_lane_um2 * lanes +
                                        c.bank_per_beat_byte_um2 * arch.dram_bytes_per_cycle +
                                        c.bank_per_col_um2 * arch.cols) +
                               c.bank_modulo_um2 * static_cast<double>(bank_modulo_cells(arch)))
                         : 0.0;
  b.control_mm2 = b.array_control_mm2 + b.dma_mm2 + b.bank_logic_mm2;
  b.total_mm2 =
      b.pe_array_mm2 + b.input_buf_mm2 + b.weight_buf_mm2 + b.accum_buf_mm2 + b.control_mm2;
  return b;
}

const std::vector<AreaConstantField>& area_constant_fields() {
  using C = AreaConstants;
  static const std::vector<AreaConstantField> fields = {
      {"pe_um2", &C::pe_um2, true},
      {"array_fixed_um2", &C::array_fixed_um2, false},
      {"array_per_col_um2", &C::array_per_col_um2, false},
      {"skew_um2_per_bit", &C::skew_um2_per_bit, false},
      {"compute_fixed_um2", &C::compute_fixed_um2, false},
      {"compute_per_lane_um2", &C::compute_per_lane_um2, false},
      {"dma_fixed_um2", &C::dma_fixed_um2, false},
      {"dma_per_beat_byte_um2", &C::dma_per_beat_byte_um2, false},
      {"control_fixed_um2", &C::control_fixed_um2, false},
      {"bank_fixed_um2", &C::bank_fixed_um2, false},
      {"bank_per_lane_um2", &C::bank_per_lane_um2, false},
      {"bank_per_beat_byte_um2", &C::bank_per_beat_byte_um2, false},
      {"bank_per_col_um2", &C::bank_per_col_um2, false},
      {"bank_modulo_um2", &C::bank_modulo_um2, false},
      {"sram_um2_per_kib", &C::sram_um2_per_kib, true},
      {"sram_buffer_fixed_um2", &C::sram_buffer_fixed_um2, false}};
  return fields;
}

AreaConstants area_constants_from_yaml(const YAML::Node& node, const std::string& where,
                                       const std::string& path) {
  AreaConstants c;
  if (!node || node.IsNull()) return c;
  std::vector<std::string> allowed{"node", "source"};
  for (const AreaConstantField& f : area_constant_fields()) allowed.push_back(f.key);
  core::check_keys(node, where, path, allowed);
  for (const AreaConstantField& f : area_constant_fields()) {
    double& v = c.*f.member;
    v = core::get_double(node, f.key, where, path, v);  // refuses text, inf, nan
    if (f.positive ? !(v > 0) : !(v >= 0))
      throw core::SpecError(
          where, core::join_key(path, f.key), core::node_text(node[f.key]),
          f.positive ? "must be a positive area in um^2" : "must be a non-negative area in um^2");
  }
  c.node = core::get_string(node, "node", where, path, c.node);
  const std::string mixed = "defaults of model/area.hpp, overridden by " + where;
  c.source = core::get_string(node, "source", where, path, node.size() > 0 ? mixed : c.source);
  return c;
}

}  // namespace mapwright::model
