// What one RTL run allocates, in closed form from the layer, the mapping's tiles and trip
// counts and the run's access counts (estimate_run_memory): the command program with its DMA
// segment lists, the DRAM image, the operands and reference, and the tile walk's bookkeeping.
// The admission of a run (rtlpool::admit_run) holds it against SimLimits::max_memory_mb.
#include "mapwright/systemc/rtl_evaluator.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "mapwright/core/loopnest.hpp"
#include "mapwright/systemc/command_program.hpp"

namespace mapwright::systemc {

namespace {

/// Segments of one DMA command whose stream walks `dims` (innermost first; ext = tile extent,
/// full = the whole loop): consecutive segments merge while every inner dimension is whole,
/// so only the dimensions outside the first partial one multiply.
double merged_segments(std::initializer_list<std::pair<double, bool>> dims) {
  double segs = 1;
  bool partial_seen = false;
  for (const auto& [ext, full] : dims) {
    if (partial_seen) segs *= ext;
    partial_seen = partial_seen || !full;
  }
  return segs;
}

}  // namespace

RunMemoryEstimate estimate_run_memory(const core::Layer& l, const core::Arch& arch,
                                      const core::Mapping& m, const core::AccessCounts& c) {
  using core::Dim;
  const auto trips = core::trip_counts(l, m);
  auto t = [&](Dim d) { return static_cast<double>(std::min<int64_t>(m.tile_of(d), l.dim(d))); };
  auto full = [&](Dim d) { return m.tile_of(d) >= l.dim(d); };
  auto T = [&](Dim d) { return static_cast<double>(trips[static_cast<int>(d)]); };
  const double out_elems = static_cast<double>(l.output_elems());
  RunMemoryEstimate e;
  e.dram_bytes = static_cast<double>(l.input_elems() + l.weight_elems()) + 5 * out_elems;
  e.tensor_bytes = static_cast<double>(l.input_elems() + l.weight_elems()) + out_elems;

  // Command words: CONFIG (2), one COMPUTE (5) per step, 2 per DMA command.
  const double dma = static_cast<double>(c.input_loads + c.weight_loads + c.psum_reloads +
                                         c.psum_spills + c.output_stores);
  const double words = 2 + 5 * static_cast<double>(c.steps) + 2 * dma;
  // Segments per command (a tile may be a smaller remainder: these are upper bounds), capped
  // by the bytes moved (a segment holds at least one byte).
  const double rows = std::min<double>(l.h, (t(Dim::P) - 1) * l.stride + t(Dim::R));
  const double cols = std::min<double>(l.w, (t(Dim::Q) - 1) * l.stride + t(Dim::S));
  const bool cols_run = t(Dim::S) >= l.stride || t(Dim::Q) == 1;  // held columns adjacent
  // Input stream [n][hrow][wcol][g][c] (core/dram_layout.hpp): with the whole C a pixel's groups
  // are one run, with every group too a row of adjacent columns.
  const double in_per = full(Dim::C) && full(Dim::G) && cols_run ? t(Dim::N) * rows
                        : full(Dim::C)                           ? t(Dim::N) * rows * cols
                                       : t(Dim::G) * t(Dim::N) * rows * cols;
  const double wt_per = merged_segments({{t(Dim::K), full(Dim::K)},
                                         {t(Dim::C), full(Dim::C)},
                                         {t(Dim::S), full(Dim::S)},
                                         {t(Dim::R), full(Dim::R)},
                                         {t(Dim::G), full(Dim::G)}});
  const double out_per = merged_segments({{1, full(Dim::K)},
                                          {t(Dim::G), full(Dim::G)},
                                          {t(Dim::Q), full(Dim::Q)},
                                          {t(Dim::P), full(Dim::P)},
                                          {t(Dim::N), full(Dim::N)}});
  const double out_cmds = static_cast<double>(c.psum_reloads + c.psum_spills + c.output_stores);
  auto d = [](long long v) { return static_cast<double>(v); };
  const double out_bytes =
      d(c.dram_output_bytes) + d(c.dram_psum_write_bytes + c.dram_psum_read_bytes) / 4;
  const double segs = std::min(d(c.input_loads) * in_per, d(c.dram_input_bytes)) +
                      std::min(d(c.weight_loads) * wt_per, d(c.dram_weight_bytes)) +
                      std::min(out_cmds * out_per, out_bytes);
  // Vectors grown by push_back hold at most twice their size; each segment list is its own
  // heap block (header and rounding: 32 bytes).
  e.program_bytes = 2 * (words * (sizeof(uint64_t) + sizeof(uint8_t)) + dma * sizeof(DmaJob) +
                         segs * sizeof(DramSegment)) +
                    32 * dma;
  // The walk's hash map: one node (~64 bytes with its bucket) per output tile, plus the
  // row lists of one input tile.
  const double out_tiles = T(Dim::G) * T(Dim::N) * T(Dim::K) * T(Dim::P) * T(Dim::Q);
  e.walk_bytes = 64 * out_tiles + 32 * (t(Dim::P) * t(Dim::R) + t(Dim::Q) * t(Dim::S));
  return e;
}

}  // namespace mapwright::systemc
