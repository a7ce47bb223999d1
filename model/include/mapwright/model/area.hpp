#pragma once
/// \file area.hpp
/// Analytical chip area of an architecture: the PE array, the three SRAM buffers and the control
/// logic (command decoder, queues, DMA engine, compute controller, skew/deskew registers), from
/// per-part constants at one technology node. Used to draw area-vs-latency Pareto fronts. Logic is
/// counted as standard-cell area (no placement utilization, no routing); SRAM as macro area.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"

namespace mapwright::model {

/// Area of each part in um^2 at `node`. Logic: the terms of a linear model of each part fitted
/// on yosys' synthesis of the RTL (`mapwright synth`, 11 configurations from 2x2 to 8x8, checked
/// on 5 others up to the banked 16x16: configs/synth/area-calibration.yaml,
/// scripts/calibrate-area.py,
/// docs/synthesis.md), each synthesized cell priced at its NanGate45 X1 equivalent
/// (generic_cell_um2). SRAM: a CACTI fit.
struct AreaConstants {
  std::string node = "45 nm";  ///< Technology node every constant below belongs to.
  /// One PE with its share of the mesh wiring (mw_pe + mw_mesh per PE): multiplier, adders,
  /// dataflow multiplexers, operand and accumulator registers.
  double pe_um2 = 3277.4;
  /// The array's edge (mw_array: output register, accumulate-in adders, control; mw_skew as
  /// skew and deskew): a fixed part, a part per column and a part per skew/deskew register bit.
  double array_fixed_um2 = 3645.2;
  double array_per_col_um2 = 838.6;
  double skew_um2_per_bit = 8.7;
  /// The compute controller (mw_compute with mw_fold_seq: fold sequencing, stride products,
  /// per-lane address generation): a fixed part and a part per lane (max(rows, cols)).
  double compute_fixed_um2 = 33383.7;
  double compute_per_lane_um2 = 6678.8;
  /// The DMA engine (mw_dma: address generators, burst port): a fixed part and a part per DRAM
  /// byte per cycle.
  double dma_fixed_um2 = 24161.8;
  double dma_per_beat_byte_um2 = 532.4;
  /// The rest of the control, independent of the array: command decoder, register file,
  /// counters and the buffers' port logic (mw_accel's own, mw_cmd, mw_buffers) and the command
  /// queues' control (mw_fifo).
  double control_fixed_um2 = 13200.4;
  /// What banked buffers add (mw_bank_buf's lane-to-bank crossbars and arbitration,
  /// mw_row_fetch, and the banked paths of the compute controller and the DMA): a fixed part and
  /// per bank a part per lane (max(rows, cols): the input and weight buffers' read lanes), per
  /// DRAM byte per cycle (their DMA write lanes) and per column (the accumulator's lanes).
  double bank_fixed_um2 = 13036.9;
  double bank_per_lane_um2 = 133.0;
  double bank_per_beat_byte_um2 = 356.1;
  double bank_per_col_um2 = 624.4;
  /// A bank count that is not a power of two keeps real modulos in the bank decodes (a power of
  /// two reduces them to bit selects): per cell of their restoring-divider arrays
  /// (bank_modulo_cells).
  double bank_modulo_um2 = 32.5;
  /// Single-port SRAM per KiB, periphery included: least-squares slope of CACTI 7.0 (45 nm,
  /// itrs-hp, 1 RW port, 1 bank, 64-bit words) macros of 16..512 KiB.
  double sram_um2_per_kib = 3081.0;
  /// Fixed area of each buffer macro: the intercept of the same CACTI fit.
  double sram_buffer_fixed_um2 = 1888.0;
  /// Where the numbers come from (replaced by the YAML `source` when one is given).
  std::string source =
      "logic: fitted on yosys 0.23 synthesis of rtl/ (scripts/calibrate-area.py), cells priced "
      "at NanGate45 X1 areas; SRAM: CACTI 7.0 45 nm single-port fit 3081 um^2/KiB + 1888 um^2 "
      "per macro";
};

/// Area of each part of one accelerator, in mm^2.
struct AreaBreakdown {
  double pe_array_mm2 = 0;       ///< Rows x Cols PEs with the mesh.
  double input_buf_mm2 = 0;      ///< Input (activation) buffer.
  double weight_buf_mm2 = 0;     ///< Weight buffer.
  double accum_buf_mm2 = 0;      ///< Accumulator buffer.
  double array_control_mm2 = 0;  ///< Array edge, compute controller and fixed control.
  double dma_mm2 = 0;            ///< DMA engine.
  double bank_logic_mm2 = 0;     ///< Bank crossbars and fetch logic (0 without banks).
  double control_mm2 = 0;        ///< All logic but the PE array: the three parts above.
  double total_mm2 = 0;          ///< PE array, buffers and control.
};

/// The SRAM macros of a banked buffer (rtl/mw_bank_buf.sv): `sets` x `banks` macros; word a of
/// a set lives at row a >> s of its bank, 2^s the largest power of two not above `banks`, so each
/// macro holds ceil(set words / 2^s) words (17 banks: 17/16 of the capacity). Zero banks: none.
struct BankMacros {
  long long macros = 0;           ///< Macros of the buffer.
  long long words_per_macro = 0;  ///< Words each macro holds.
};
BankMacros bank_macros(long long words, int banks, int sets);

/// The size of the bank decodes' modulos when `arch.buffer_banks` is not a power of two (0
/// otherwise, and without banks): dividend bits x divisor bits (a restoring divider's array)
/// summed over every modulo of the RTL: mw_bank_buf's per-lane decodes of the input and weight
/// buffers (max(rows, cols) read lanes and the DMA row's first word, at the buffer's address
/// width) and of the accumulator (2 x cols result lanes, the DMA's beat bytes and beat words, at
/// its address width), each at least 8 bits wide; and mw_compute's padding-lane bank per lane
/// (a 17-bit modulo, bank_floor_mod).
long long bank_modulo_cells(const core::Arch& arch);

/// Register bits of the skew and deskew triangles (rtl/mw_skew.sv: activations over rows,
/// OS weights and WS partial sums over columns).
long long skew_bits(const core::Arch& arch);
/// The area of `arch`; monotone in rows, cols, DRAM bytes per cycle and each buffer size. A
/// banked architecture's buffers are priced macro by macro (bank_macros; every macro at the
/// single-port fit, which prices a single-read, single-write macro low) and its bank logic as
/// bank_logic_mm2.
AreaBreakdown estimate_area(const core::Arch& arch, const AreaConstants& c = {});

/// One number of AreaConstants: its YAML and record key, the member, and whether it must be
/// positive (else non-negative: a fitted term may be zero).
struct AreaConstantField {
  const char* key;
  double AreaConstants::*member;
  bool positive;
};
/// Every number of AreaConstants, in the order of the struct: the one list the YAML reader and
/// the run records use.
const std::vector<AreaConstantField>& area_constant_fields();

/// Defaults overridden by the optional map `node` (null or absent: the defaults): a key per
/// number of AreaConstants (pe_um2, ..., sram_buffer_fixed_um2: non-negative; pe_um2 and
/// sram_um2_per_kib positive), node and source (text). Unknown keys, non-numbers and non-positive
/// values throw core::SpecError naming `where`, the key (as `path`.key) and the value.
AreaConstants area_constants_from_yaml(const YAML::Node& node, const std::string& where,
                                       const std::string& path = "area");

}  // namespace mapwright::model
