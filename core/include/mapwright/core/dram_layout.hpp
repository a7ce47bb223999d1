#pragma once
/// \file dram_layout.hpp
/// Where a layer's tensors live in DRAM and which DRAM bytes a DMA operation of the tile
/// program moves: the layout the RTL driver (systemc/command_program.hpp) loads and checks, and
/// the address runs a DMA transfer must gather or scatter.
///
/// Layouts, one after the other from address 0: input [n][h][w][G*C] int8, weights
/// [g][r][s][c][k] int8, output [n][p][q][G*K] int8, partial-sum spills [n][p][q][G*K] int32
/// (little endian).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/tile_program.hpp"

namespace mapwright::core {

/// One contiguous run of DRAM bytes.
struct DramSegment {
  uint64_t addr = 0;  ///< First byte.
  uint64_t len = 0;   ///< Bytes.
};

/// DRAM base of each tensor of a layer.
struct DramLayout {
  uint64_t input = 0;   ///< int8 input.
  uint64_t weight = 0;  ///< int8 weights.
  uint64_t output = 0;  ///< int8 output.
  uint64_t psum = 0;    ///< int32 partial-sum spill area.
  uint64_t bytes = 0;   ///< DRAM size needed.
};

DramLayout dram_layout(const Layer& layer);

/// The DRAM runs of a DMA operation (any kind but Compute) in the order of its packed byte
/// stream (the order the buffer holds them), contiguous runs merged; appended to `out`.
/// Their lengths add up to op.bytes.
void dram_segments(const Layer& layer, const DramLayout& at, const TileOp& op,
                   std::vector<DramSegment>& out);

/// The in-bounds input rows of a tile along one axis (output rows [p0, p0+pt), filter rows
/// [r0, r0+rt); also used for columns) as blocks of consecutive rows: one block when the
/// windows of consecutive output rows touch (rt >= stride or pt == 1), else one window of rt
/// rows per output row, separated by gaps, the first and the last cut by the padding.
struct RowBlocks {
  long long rows = 0;    ///< Rows held (input_extent).
  long long blocks = 0;  ///< Blocks of consecutive rows.
  long long first = 0;   ///< Length of the first block.
  long long mid = 0;     ///< Length of each block between the first and the last.
  long long last = 0;    ///< Length of the last block.
  bool lo = false;       ///< Holds row 0.
  bool hi = false;       ///< Holds the axis' last row.
  long long gap = 0;     ///< Start-to-start distance of the first two blocks (0 with one).
  bool even = true;      ///< Every block equally long and equally spaced: a nest of two loops.
  /// Every row of the axis.
  bool full() const { return blocks == 1 && lo && hi; }
  bool operator==(const RowBlocks& o) const {
    return rows == o.rows && blocks == o.blocks && first == o.first && mid == o.mid &&
           last == o.last && lo == o.lo && hi == o.hi && gap == o.gap && even == o.even;
  }
  /// Sum over the blocks of ceil(len * unit / beat).
  long long beats(long long unit, long long beat) const;
  /// Beats saved where one sweep of the axis ends in its last row and the next begins in row 0
  /// (the last block and the first are then one DRAM run); 0 unless lo, hi and two blocks.
  long long join_saving(long long unit, long long beat) const;
};
RowBlocks row_blocks(long long p0, long long pt, long long r0, long long rt, long long stride,
                     long long pad, long long h);

/// Beats of an input tile that holds whole pixels (every group and channel, `unit` bytes per
/// pixel): tn images, rows `rb` and columns `cb` of an h x w image. Runs join across rows where
/// the columns hold both edges, and across images where the rows do.
long long input_plane_beats(const RowBlocks& rb, const RowBlocks& cb, long long tn, long long unit,
                            long long w, long long h, long long beat);

/// Beats of a tensor tile of nested loops, innermost first: `ext[i]` of `size[i]` elements,
/// `unit` bytes per innermost element; the DRAM runs are the innermost loops up to the first
/// one that is not whole, repeated over the outer ones. Sum of ceil(run / beat) over the runs.
long long nested_beats(const long long* ext, const long long* size, int n, long long unit,
                       long long beat);

/// DRAM beats of a DMA operation (any kind but Compute) under DramPort::Bursts: the sum over
/// its runs (dram_segments, contiguous runs merged) of ceil(len / beat), from the tile's shape
/// without listing the runs.
long long burst_beats(const Layer& layer, const TileOp& op, long long beat);

/// Cycles of a DMA operation on the DRAM port: latency plus ceil(bytes / bytes_per_cycle)
/// (DramPort::Packed, core::dma_cycles) or plus its burst beats (DramPort::Bursts).
long long transfer_cycles(const Layer& layer, const Arch& arch, const TileOp& op);

/// A burst descriptor of the RTL DMA's bursts port (rtl/README.md): runs of `run` bytes at
/// addr + sum over k of i_k * stride[k], 0 <= i_k < count[k], loop 0 innermost, in the order of
/// the loops. A zero-byte transfer is run 0 with every count 1.
struct BurstDescriptor {
  uint64_t addr = 0;                          ///< First byte of the first run.
  uint64_t run = 0;                           ///< Bytes per run.
  std::array<uint64_t, 4> count{1, 1, 1, 1};  ///< Iterations per loop (>= 1).
  std::array<int64_t, 4> stride{};            ///< Address step per loop (bytes, may be < 0).
};

/// The one descriptor whose runs are exactly `runs`, in order (dram_segments' list: contiguous
/// runs merged), if there is one: all runs equally long, and their addresses a nest of at most
/// four loops, found loop by loop from the innermost. Otherwise nullopt, with the reason in
/// `why` (runs of two lengths, or more loops than four).
std::optional<BurstDescriptor> burst_descriptor(const std::vector<DramSegment>& runs,
                                                std::string& why);

/// burst_descriptor of a DMA operation's runs; without one, `why` names the operation's kind
/// and the reason ("a load-input has runs of 4 and 8 bytes").
std::optional<BurstDescriptor> transfer_descriptor(const TileOp& op,
                                                   const std::vector<DramSegment>& runs,
                                                   std::string& why);

/// Under DramPort::Bursts, why the RTL cannot serve the mapping: the first DMA transfer of its
/// tile program without a burst descriptor, named with its kind and burst_descriptor's reason;
/// "" when every transfer has one, and always "" under DramPort::Packed. Walks the tile program
/// (a check before a simulation, not for a search's inner loop).
std::string burst_descriptor_problem(const Layer& layer, const Arch& arch, const Mapping& m);

/// Under DramPort::Bursts, why the RTL cannot serve the mapping: burst_descriptor_problem's
/// verdict without walking the tile program, cheap enough for a search's inner loop. Weight,
/// partial-sum and output tiles always have a descriptor (runs of one length over at most four
/// loops), and so does an input tile whose rows and columns are each one block; only a stride
/// above a filter tile (rows or columns held in blocks with gaps) can leave an input tile
/// without one. Then each distinct input tile shape (per axis: the blocks of rows held, their
/// lengths and spacing, and whether they hold the axis' edges; the N, G and C tile sizes) is
/// judged from its loops in closed form: equal runs, and their starts at most four loops once
/// a loop whose step continues the inner one is counted as part of it. A shape judged without
/// one is confirmed and named through dram_segments and transfer_descriptor (the closed form
/// sees blocks as loops; a few clipped shapes are a nest in another grouping). "" when every
/// transfer has a descriptor, and always "" under DramPort::Packed; otherwise the reason,
/// naming the input tile.
std::string descriptor_problem(const Layer& layer, const Arch& arch, const Mapping& m);

/// check_capacity, then descriptor_problem, then accum_bank_problem: whether the RTL can run
/// the mapping at all. A mapping without a burst descriptor is InvalidKind::Descriptor, one
/// whose result lanes share an accumulator bank InvalidKind::AccumBanks, with the problem in
/// Validity::detail.
Validity check_valid(const Layer& layer, const Arch& arch, const Mapping& m);

/// The runs a descriptor stands for, in order (the inverse of burst_descriptor).
std::vector<DramSegment> descriptor_runs(const BurstDescriptor& d);

}  // namespace mapwright::core
