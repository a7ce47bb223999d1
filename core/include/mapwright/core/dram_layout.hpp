#pragma once
/// \file dram_layout.hpp
/// Where a layer's tensors live in DRAM and which DRAM bytes a DMA operation of the tile
/// program moves: the layout the RTL driver (systemc/command_program.hpp) loads and checks, and
/// the address runs a DMA transfer must gather or scatter.
///
/// Layouts, one after the other from address 0: input [n][h][w][G*C] int8, weights
/// [g][r][s][c][k] int8, output [n][p][q][G*K] int8, partial-sum spills [n][p][q][G*K] int32
/// (little endian).

#include <cstdint>
#include <vector>

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

}  // namespace mapwright::core
