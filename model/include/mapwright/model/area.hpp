#pragma once
/// \file area.hpp
/// Analytical chip area of an architecture: the PE array, the three SRAM buffers and the control
/// logic (command decoder, queues, DMA engine, compute controller, skew/deskew registers), from
/// per-part constants at one technology node. Used to draw area-vs-latency Pareto fronts. Logic is
/// counted as standard-cell area (no placement utilization, no routing); SRAM as macro area.

#include <yaml-cpp/yaml.h>

#include <string>

#include "mapwright/core/arch.hpp"

namespace mapwright::model {

/// Area of each part in um^2 at `node`. Each default names its source below.
struct AreaConstants {
  std::string node = "45 nm";  ///< Technology node every constant below belongs to.
  /// 8-bit integer multiplier: Horowitz, "Computing's energy problem", ISSCC 2014, 45 nm table
  /// "8b Mult: 0.2 pJ, 282 um^2".
  double mult8_um2 = 282.0;
  /// 32-bit integer adder: Horowitz ISSCC 2014, 45 nm, "32b Add: 0.1 pJ, 137 um^2" (cross-check:
  /// 32 x FA_X1 of the Nangate 45 nm library = 136.2 um^2).
  double add32_um2 = 137.0;
  /// One register bit with enable: Nangate Open Cell Library (FreePDK45, 2011, typical) DFFR_X1
  /// 5.320 um^2 (the RTL's flops have an asynchronous reset) + MUX2_X1 1.862 um^2 (hold mux).
  double flop_um2 = 7.182;
  /// Single-port SRAM per KiB, periphery included: least-squares slope of CACTI 7.0 (45 nm,
  /// itrs-hp, 1 RW port, 1 bank, 64-bit words) macros of 16..512 KiB.
  double sram_um2_per_kib = 3081.0;
  /// Fixed area of each buffer macro: the intercept of the same CACTI fit.
  double sram_buffer_fixed_um2 = 1888.0;
  /// Control logic independent of the array size: ~5,530 flops counted in the RTL (command queues,
  /// decoder, DMA, compute controller, counters) x flop_um2, doubled for their combinational
  /// logic. The doubling is our assumption.
  double control_fixed_um2 = 79400.0;
  /// Where the numbers come from (replaced by the YAML `source` when one is given).
  std::string source =
      "Horowitz ISSCC 2014 (45 nm): 8b mult 282 um^2, 32b add 137 um^2; Nangate45 DFFR_X1 5.32 + "
      "MUX2_X1 1.862 um^2 per flop; CACTI 7.0 45 nm single-port SRAM fit 3081 um^2/KiB + 1888 "
      "um^2 per buffer; control fixed term: RTL flop count x2 (assumption)";
};

/// Area of each part of one accelerator, in mm^2.
struct AreaBreakdown {
  double pe_array_mm2 = 0;    ///< Rows x Cols PEs (multiplier, adder, registers).
  double input_buf_mm2 = 0;   ///< Input (activation) buffer.
  double weight_buf_mm2 = 0;  ///< Weight buffer.
  double accum_buf_mm2 = 0;   ///< Accumulator buffer.
  double control_mm2 = 0;     ///< Fixed control plus the array-edge registers and adders.
  double total_mm2 = 0;       ///< Sum of the parts above.
};

/// The SRAM macros of a banked buffer (rtl/mw_bank_buf.sv): `sets` x `banks` macros; word a of
/// a set lives at row a >> s of its bank, 2^s the largest power of two not above `banks`, so each
/// macro holds ceil(set words / 2^s) words (17 banks: 17/16 of the capacity). Zero banks: none.
struct BankMacros {
  long long macros = 0;           ///< Macros of the buffer.
  long long words_per_macro = 0;  ///< Words each macro holds.
};
BankMacros bank_macros(long long words, int banks, int sets);

/// Register bits a banked architecture adds (buffers.banks > 0): the read-data holding register
/// of each mw_bank_buf and the row register of each mw_row_fetch (input, weight, accumulator).
/// Their arbiters, lane masks and stall counters are not counted. Zero without banks.
long long bank_flops(const core::Arch& arch);

/// Register bits of one PE (rtl/mw_pe.sv: a_q, b_q of operand_bits, acc_q of acc_bits).
long long pe_flops(const core::Arch& arch);
/// Register bits along the array edges (rtl/mw_skew.sv as skew and deskew, mw_array.sv output
/// register, mw_compute.sv per-lane address registers); grows with Rows^2 and Cols^2.
long long edge_flops(const core::Arch& arch);

/// The area of `arch`; monotone in rows, cols and each buffer size. A banked architecture's
/// buffers are priced macro by macro (bank_macros; every macro at the single-port fit, which
/// prices a single-read, single-write macro low), its extra registers (bank_flops) as control.
AreaBreakdown estimate_area(const core::Arch& arch, const AreaConstants& c = {});

/// Defaults overridden by the optional map `node` (null or absent: the defaults): keys
/// mult8_um2, add32_um2, flop_um2, sram_um2_per_kib, sram_buffer_fixed_um2, control_fixed_um2
/// (positive numbers), node and source (text). Unknown keys, non-numbers and non-positive values
/// throw core::SpecError naming `where`, the key (as `path`.key) and the value.
AreaConstants area_constants_from_yaml(const YAML::Node& node, const std::string& where,
                                       const std::string& path = "area");

}  // namespace mapwright::model
