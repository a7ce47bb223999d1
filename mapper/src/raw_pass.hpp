#pragma once
// The exact mapper's raw pass on banked buffers and on the burst port: what it must enumerate
// beyond the compact space, and what it need not (mapper/README.md, "Banked buffers").

#include <array>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"

namespace mapwright::mapper {

/// What the raw pass keeps of the compact space, per dataflow (index Dataflow).
struct RawPass {
  std::array<unsigned, 3> compact_dims{};    ///< Loops (bit Dim) that keep their compact sizes.
  std::array<bool, 3> compact_pe_cols{};     ///< The compact PE-column rule holds.
  std::array<bool, 3> compact_pe_rows{};     ///< The compact PE-row rule holds.
  std::array<long long, 3> k_prone_banks{};  ///< B: K widened by widen_k_sizes, else 0.
  bool compact_db = false;                   ///< The compact double-buffer choices hold.
};

/// What the raw pass must enumerate beyond the compact space, and what it need not. The bank
/// terms (model/src/bank_closed_form.cpp) see a tiling through its fold lists: under WS the
/// input list depends on the C, R, S, G tiles, the columns held (Q) and pe_rows, while N and P
/// enter only through their trip counts and K through its fold sum over pe_cols (its lanes are
/// consecutive words, which never share a bank when pe_cols <= banks); under OS the pixel list
/// depends on every loop but K and on pe_rows, K entering as under WS; under IS the weight
/// list's stalls depend on tk mod banks and the pixel list on pe_cols, so every loop and PE use
/// stays raw. The compact rules for a loop keep, per trip count, the sizes that differ in the
/// counts and cycles of the idealized model, so where the bank terms add nothing beyond the
/// trip count and fold sums the compact sizes still dominate. A burst descriptor depends on the
/// input tile only (N, G, C, P, R, Q, S), never on K or the PE use. No bank term and no
/// descriptor depends on the double buffering.
/// CompactSpace.BankedArchitecturesGetTheRawSpaceOptimum brute-forces the raw space on small layers
/// with the banks above and below the array's columns.
RawPass raw_pass_space(const core::Layer& layer, const core::Arch& arch, bool unservable);

/// The raw pass's K sizes under IS with bank count `banks` (RawPass::k_prone_banks): the compact
/// sizes, and every size of each trip count whose compact sizes include a full or last tile that
/// is a multiple of `banks`; ascending.
std::vector<long long> widen_k_sizes(std::vector<long long> compact, long long K, long long banks);

}  // namespace mapwright::mapper
