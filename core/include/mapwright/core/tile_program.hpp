#pragma once
/// \file tile_program.hpp
/// The tile program (docs/timing.md): the one description of what the hardware does for
/// (layer, arch, mapping). The RTL driver issues exactly these operations; the surrogate
/// computes the same access counts in closed form, and tests prove both equal.
///
/// Level 2: the loops G (outermost), then N K C P Q R S in the mapping's order, each stepping
/// over tiles of the mapping's size (the last tile of a loop may be a remainder). At each step:
///  - the input tile (coordinates G N C P Q R S) is loaded if its coordinates changed; it holds
///    the *distinct in-bounds* input rows and columns the tile touches (halo included, padding
///    never loaded, rows skipped by a stride larger than the filter tile never loaded);
///  - the weight tile (G K C R S) is loaded if its coordinates changed;
///  - the output tile (G N K P Q) lives in the accumulator. When the walk moves to a different
///    output tile, the old one is stored as int8 (if its reduction over C R S is complete) or
///    spilled as int32 partial sums (if not); a tile visited again is reloaded from its spill.
///  - the compute op runs the tile's GEMM on the array, group by group, in folds.
/// Level 1: per group, the GEMM view M = n*p*q, red = c*r*s, cols = k. WS: folds of
/// (pe_rows x pe_cols) weights, streaming M input rows. OS: folds of (pe_rows outputs x
/// pe_cols channels), streaming red. The first fold that touches an output element in its
/// first visit overwrites the accumulator; every other fold reads, adds and writes.

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"

namespace mapwright::core {

/// Why a mapping is invalid (a typed result, never an exception). Descriptor: under the bursts
/// DRAM port, a DMA transfer of the mapping has no burst descriptor (core::check_valid).
enum class InvalidKind {
  None,
  InputOverflow,
  WeightOverflow,
  AccumOverflow,
  Dataflow,
  Descriptor,
  AccumBanks,
  Encoding  ///< A search encoding's point names no mapping of the array (GammaSpace).
};
const char* invalid_kind_name(InvalidKind k);
/// The kind named by invalid_kind_name; an unknown name is InvalidKind::None.
InvalidKind invalid_kind_from_name(const std::string& name);

/// Validity verdict: which buffer overflows, by how many bytes (or, for Descriptor, which
/// transfer has no burst descriptor, in `detail`).
struct Validity {
  InvalidKind kind = InvalidKind::None;  ///< None when valid.
  long long need_bytes = 0;              ///< Bytes the tile needs (including double buffering).
  long long have_bytes = 0;              ///< Bytes the buffer has.
  std::string detail;                    ///< Descriptor: the transfer and why it has none.
  bool ok() const { return kind == InvalidKind::None; }
  /// "input buffer overflows by 1234 bytes (needs 5678 with double buffering, has 4444)".
  std::string reason() const;
};

/// Per-tile worst-case footprints in bytes (one buffer half).
struct Footprint {
  long long input_bytes = 0;   ///< Largest input tile (distinct in-bounds bytes).
  long long weight_bytes = 0;  ///< Weight tile.
  long long accum_bytes = 0;   ///< Output tile as int32.
};
Footprint footprint(const Layer& layer, const Mapping& m);
Validity check_capacity(const Layer& layer, const Arch& arch, const Mapping& m);

/// On a banked architecture, why the RTL's banked accumulator cannot serve the mapping's
/// result lanes; "" when it can, and always "" without banks. WS and OS lanes are consecutive
/// words; an IS fold's lanes are its pixels, a constant stride apart (the tile's G times K
/// extent, remainder tiles included), and lanes j and j + d share one of the accumulator's
/// buffer_banks banks when d * stride is a multiple of the bank count. The RTL's accumulate-in
/// and result rows must not wait for a bank (the DMA shares the rows), so such a mapping is
/// invalid (InvalidKind::AccumBanks). Depends on the tiles, the dataflow and pe_cols only.
std::string accum_bank_problem(const Layer& layer, const Arch& arch, const Mapping& m);

/// Exact access counts of one layer under one mapping. Buffer counts are element accesses
/// (bytes for input/weight, int32 words for the accumulator).
struct AccessCounts {
  long long macs = 0;                   ///< Useful multiply-accumulates.
  long long steps = 0;                  ///< Level-2 tile steps.
  long long folds = 0;                  ///< Level-1 folds over all steps and groups.
  long long input_buf_reads = 0;        ///< Activations streamed into the array (padding included).
  long long input_buf_writes = 0;       ///< Bytes written by input loads.
  long long weight_buf_reads = 0;       ///< Weights read into the array.
  long long weight_buf_writes = 0;      ///< Bytes written by weight loads.
  long long accum_reads = 0;            ///< Words read: compute read-modify-write, stores, spills.
  long long accum_writes = 0;           ///< Words written: compute, psum reloads.
  long long dram_input_bytes = 0;       ///< Input bytes read from DRAM.
  long long dram_weight_bytes = 0;      ///< Weight bytes read from DRAM.
  long long dram_output_bytes = 0;      ///< Final int8 outputs written to DRAM.
  long long dram_psum_write_bytes = 0;  ///< int32 partial sums spilled to DRAM.
  long long dram_psum_read_bytes = 0;   ///< int32 partial sums reloaded from DRAM.
  long long input_loads = 0;            ///< DMA commands: input tile loads.
  long long weight_loads = 0;           ///< DMA commands: weight tile loads.
  long long psum_reloads = 0;           ///< DMA commands: partial-sum reloads.
  long long psum_spills = 0;            ///< DMA commands: partial-sum spills.
  long long output_stores = 0;          ///< DMA commands: final output stores.

  long long dram_bytes() const {
    return dram_input_bytes + dram_weight_bytes + dram_output_bytes + dram_psum_write_bytes +
           dram_psum_read_bytes;
  }
  bool operator==(const AccessCounts& o) const;
  /// Names and values of every field, in declaration order (for diffs and reports).
  std::array<std::pair<const char*, long long>, 19> fields() const;
};

/// A box in loop space: lower corner and extent per Dim.
struct TileBox {
  std::array<long long, kNumDims> lo{};   ///< First index per Dim.
  std::array<long long, kNumDims> ext{};  ///< Extent per Dim (>= 1).
  long long lo_of(Dim d) const { return lo[static_cast<int>(d)]; }
  long long ext_of(Dim d) const { return ext[static_cast<int>(d)]; }
};

enum class OpKind { LoadInput, LoadWeight, LoadPsum, Compute, SpillPsum, StoreOutput };
const char* op_kind_name(OpKind k);

/// One operation of the tile program, in program order.
struct TileOp {
  OpKind kind = OpKind::Compute;  ///< What to do.
  long long step = 0;             ///< Level-2 step index it belongs to.
  TileBox box;                    ///< The tile (loop-space box) it moves or computes.
  long long bytes = 0;            ///< DRAM bytes moved (0 for Compute).
  int half = 0;                   ///< Buffer half used (0 unless double-buffered).
  bool accumulate = true;         ///< Compute: false = first visit, first step overwrites.
};

/// The tile sizes of a loop of `bound` iterations tiled by `t` (t >= 1): the full tile (at most
/// `bound`) and the remainder if any, into out[0..1]; returns how many (1 or 2).
int class_sizes(long long bound, long long t, long long* out);

/// Distinct input rows touched by output rows [p0, p0+pt) and filter rows [r0, r0+rt) that lie
/// inside [0, h). (Also used for columns with q, s, w.)
long long input_extent(long long p0, long long pt, long long r0, long long rt, long long stride,
                       long long pad, long long h);
/// Distinct in-bounds input rows of output rows [p0, p0+pt) and filter rows [r0, r0+rt), in
/// ascending order, with the buffer-row formula's constants: the buffer row of (pl, rl) is
/// pl * a + rl - clip, valid iff it lies in [0, rows.size()). (Also used for columns.) The RTL's
/// input-tile layout (rtl/README.md); rows.size() equals input_extent.
struct RowMap {
  std::vector<long long> rows;  ///< Absolute input rows held, ascending (buffer row i = rows[i]).
  long long a = 1;     ///< Row step per output row: stride if rt >= stride or pt == 1, else rt.
  long long clip = 0;  ///< Positions (pl, rl) below row 0, all before the first held row.
};
RowMap input_rows(long long p0, long long pt, long long r0, long long rt, long long stride,
                  long long pad, long long h);
/// RowMap::a of pt output rows and rt filter rows: stride when their windows touch or overlap
/// (rt >= stride or pt == 1), else rt.
long long input_row_step(long long pt, long long rt, long long stride);
/// input_rows without the row list: rows.size(), a and clip, computed without allocating (the
/// bank-conflict counters call it once per compute op).
struct RowShape {
  long long held = 0;  ///< Distinct in-bounds rows (= input_extent = input_rows(...).rows.size()).
  long long a = 1;     ///< As RowMap::a.
  long long clip = 0;  ///< As RowMap::clip.
};
RowShape input_row_shape(long long p0, long long pt, long long r0, long long rt, long long stride,
                         long long pad, long long h);
/// DRAM bytes of the input tile for `box` (distinct in-bounds bytes).
long long input_tile_bytes(const Layer& layer, const TileBox& box);

/// Walks the tile program and calls `visit` for every operation in program order. The mapping
/// must have passed check_mapping (capacity is not required).
void walk_tile_program(const Layer& layer, const Arch& arch, const Mapping& m,
                       const std::function<void(const TileOp&)>& visit);

/// Access counts by walking every operation (the reference the closed form must equal).
AccessCounts count_by_walk(const Layer& layer, const Arch& arch, const Mapping& m);

/// Level-1 folds of one compute op: calls fold(group, row0, rows_used, col0, cols_used) with
/// rows in the GEMM's row space (WS, IS: reduction index; OS: output pixel index m) and cols in
/// K (WS, OS) or in the output pixels m (IS).
void for_each_fold(const Mapping& m, const TileBox& box,
                   const std::function<void(long long g, long long row0, long long ru,
                                            long long col0, long long cu)>& fold);

/// Cycles the array takes for one fold (shared by surrogate and RTL; see docs/timing.md).
/// `stream` is M (WS), the reduction length (OS) or the tile's K (IS); stream_length gives it.
long long stream_length(Dataflow df, const TileBox& box);
long long fold_cycles(Dataflow df, long long stream, long long ru, long long cu);
/// Number of rows of the GEMM a compute op folds over the array rows (WS, IS: C*R*S; OS: N*P*Q)
/// and of columns it folds over the array columns (WS, OS: K; IS: N*P*Q).
long long fold_rows(Dataflow df, const TileBox& box);
long long fold_cols(Dataflow df, const TileBox& box);
/// Cycles of one DMA transfer of `bytes` (latency + ceil(bytes / bandwidth)).
long long dma_cycles(const Arch& arch, long long bytes);
/// Cycles from the end of a DMA transfer to the start of a compute that waits for it: the
/// completion reaches the compute engine's fence through a register (docs/timing.md).
inline constexpr long long kDmaToCompute = 1;

}  // namespace mapwright::core
