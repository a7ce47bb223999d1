#pragma once
/// \file seeds.hpp
/// The seeds search, run and fidelity derive from the user's `--seed` (a study's per-run seed,
/// which mixes in a hash of the searcher kind, is study_run_seed in flows/study/study_exec.hpp).
/// The derived seeds are recorded (results.json) so that a result can be re-run; changing a rule
/// here changes results.

#include <cstddef>
#include <cstdint>

namespace mapwright::flows {

/// Search seed of layer `li` (0-based, in network order) of a search or run seeded `seed`:
/// seed * 1000003 + li. `mapwright search` and `mapwright run` give a layer the same seed.
constexpr uint64_t layer_seed(uint64_t seed, size_t li) {
  return seed * 1000003ULL + li;
}

/// Seed of the RTL operands of candidate `rank` of layer `li` in a run seeded `seed` (its RTL
/// verification): seed * 7919 + 101 li + rank.
constexpr uint64_t rtl_seed(uint64_t seed, size_t li, int rank) {
  return seed * 7919ULL + li * 101ULL + static_cast<uint64_t>(rank);
}

/// Seed of the RTL operands of sample `sample` (0-based) of a search seeded `seed` under the RTL
/// reward: seed * 7919 + sample + 1. The rule in words is kRtlOperandSeedRule.
constexpr uint64_t rtl_operand_seed(uint64_t seed, int64_t sample) {
  return seed * 7919ULL + static_cast<uint64_t>(sample) + 1;
}
/// rtl_operand_seed's rule as the RTL reward's record states it.
inline constexpr const char* kRtlOperandSeedRule = "search seed * 7919 + sample + 1";

/// Seed of the RTL operands of sample `sample` of layer `li` in `mapwright fidelity` seeded
/// `seed`: seed * 7919 + 1000 li + sample.
constexpr uint64_t fidelity_seed(uint64_t seed, size_t li, int sample) {
  return seed * 7919ULL + li * 1000ULL + static_cast<uint64_t>(sample);
}

}  // namespace mapwright::flows
