#pragma once
/// \file command_program.hpp
/// The driver side of the RTL accelerator (rtl/mw_accel.sv), in plain C++: turns the tile
/// program of (layer, arch, mapping) into the accelerator's command words with their fence
/// counts (the dependencies of the reference schedule, model/src/schedule.cpp, derived anew
/// from the command semantics: see command_program.cpp), the DRAM segment list of every DMA
/// command, the DRAM tensor layout, and a plain C++ reference of the layer. No SystemC or Verilator
/// types: the SystemC harness and tests both use it.
///
/// DRAM layouts and DMA segments: core/dram_layout.hpp.

#include <cstdint>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/tile_program.hpp"

namespace mapwright::systemc {

/// Opcodes of the command words (bits [3:0] of a command's first word).
enum class Opcode : uint8_t {
  Config = 1,
  LoadInput = 2,
  LoadWeight = 3,
  LoadPsum = 4,
  SpillPsum = 5,
  StoreOutput = 6,
  Compute = 7
};

/// One contiguous run of DRAM bytes (core/dram_layout.hpp).
using core::DramSegment;

/// One DMA command as the DRAM model sees it: its packed byte stream is the concatenation of
/// the segments (gather for reads, scatter for writes).
struct DmaJob {
  core::OpKind kind = core::OpKind::LoadInput;  ///< What the command does.
  bool write = false;                           ///< Spill or store (DRAM is written).
  uint64_t bytes = 0;                           ///< Sum of the segment lengths.
  std::vector<DramSegment> segments;            ///< Strided tile addresses, in stream order.
};

/// Everything the harness needs to run one layer.
struct CommandProgram {
  std::vector<uint64_t> words;     ///< Command words in push order.
  std::vector<uint8_t> last;       ///< 1 on the last word of each command.
  std::vector<DmaJob> dma;         ///< DMA commands in DMA-queue order.
  long long dma_commands = 0;      ///< Number of DMA commands.
  long long compute_commands = 0;  ///< Number of compute commands (tile steps).
  int shift = 0;                   ///< Requantizing shift of the stores.
  core::DramLayout dram;           ///< The tensors' DRAM bases and the DRAM size needed.
  bool bursts = false;             ///< Bursts DRAM port: DMA commands carry burst descriptors.
};

/// The requantizing shift used for a layer: about log2 of the typical |sum| / 64 for random
/// int8 operands, so outputs spread over int8 and some saturate.
int default_shift(const core::Layer& layer);

/// Builds the command program. Returns false and sets `error` when a field does not fit the
/// command format (tile extents < 65536, buffer bases < 2^20, fences < 2^28).
bool build_program(const core::Layer& layer, const core::Arch& arch, const core::Mapping& m,
                   int shift, CommandProgram& out, std::string& error);

/// Random int8 tensors in DRAM layout, from a seed.
std::vector<int8_t> random_tensor(uint64_t seed, uint64_t elems);

/// Plain C++ reference: int8 output [n][p][q][G*K] = saturate((sum in*w, int32 wrapping) >>>
/// shift).
std::vector<int8_t> reference_output(const core::Layer& layer, const std::vector<int8_t>& input,
                                     const std::vector<int8_t>& weights, int shift);

}  // namespace mapwright::systemc
