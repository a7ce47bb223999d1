#pragma once
/// \file objective.hpp
/// What every search flow agrees on before it searches: the objective (core::Objective and its
/// parser, from core/objective.hpp), the exact mapper's settings, the searcher kinds
/// `--searcher` accepts, and how the effort per layer is said. Needs neither the model nor
/// LibTorch (the suite parsers use it as they are).

#include <cstdint>
#include <string>
#include <vector>

#include "mapwright/core/objective.hpp"

namespace mapwright::flows {

/// Settings of the exact mapper (`--searcher exact`): an anytime branch-and-bound that stops at
/// the time limit or when the proven gap is at most `gap`.
struct ExactOptions {
  double time_limit_s = 60;  ///< Wall-clock limit per layer, seconds (> 0).
  double gap = 0;            ///< Target relative gap (best - lower bound) / best, in [0, 1);
                             ///< 0: prove optimality (the default; the zoo takes seconds).
  int threads = 0;           ///< Worker threads (0 = number of cores).
  int top_k = 1;             ///< Distinct mappings to hand to `observe` (the best first).
};
/// Refuses a time limit <= 0 (or not finite) and a gap outside [0, 1), naming the flag.
void check_exact_options(const ExactOptions& e);
/// The searcher kinds `--searcher` accepts: the ask/tell searchers and "exact".
std::vector<std::string> all_searcher_kinds();
/// The search effort per layer in words, as the search and run summaries print it: for
/// "exact", "proving each optimum within at most T s per layer" (or "proven gap <= G % within
/// ..." when the target gap is not 0); for a sampling searcher, "N samples per layer".
std::string budget_phrase(const std::string& searcher, int64_t budget, const ExactOptions& exact);

/// Refuses a searcher kind that make_searcher does not know, naming `where` and the known ones.
void require_searcher_kind(const std::string& kind, const std::string& where);

}  // namespace mapwright::flows
