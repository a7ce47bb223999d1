#pragma once
/// \file mapper.hpp
/// The exact mapper: branch-and-bound over the compact map space (mapspace/compact_space.hpp)
/// with admissible lower bounds (bounds.hpp), scored by the analytical surrogate. It returns
/// the best mapping, a proven lower bound on the objective and the relative gap between them;
/// the answer is deterministic for a given input whatever the thread count (the search runs
/// in fixed waves of subtrees, ties are broken by a canonical key), unless a time limit stops
/// it. On an architecture with banked buffers the compact space is followed by the raw space
/// (mapper/README.md, Limits), so the bound and gap hold over every mapping there too.

#include <string>
#include <utility>
#include <vector>

#include "mapwright/core/metrics.hpp"
#include "mapwright/core/objective.hpp"

namespace mapwright::mapper {

/// Why the search stopped. Infeasible: the whole space was searched and no mapping fits.
enum class StopReason { ProvedOptimal, GapReached, TimeLimit, Infeasible };
const char* stop_reason_name(StopReason r);

/// Options of one solve.
struct Options {
  core::Objective objective;  ///< What to minimize (EDP by default).
  double time_limit_s = 0;    ///< Wall-clock limit in seconds (0 = none); anytime.
  double target_gap = 1e-3;   ///< Stop proving once (best - bound) / best <= this.
  int threads = 0;            ///< Worker threads (0 = hardware concurrency).
  int wave = 8;               ///< Subtrees per wave; the answer depends on it, not on threads.
  /// Search the compact space (default). False: every tile size of every loop, every PE use
  /// and every double-buffer choice (orders still by reuse class, which is exact); much
  /// slower, used to validate the compact space on real layers.
  bool compact = true;
  /// Distinct mappings to return in Result::top (the best first): the best others among the
  /// mappings the search evaluated (candidates for RTL verification; only the first is proven).
  int keep = 1;
};

/// The effort of a search: what the branch and bound computed and cut.
struct Effort {
  long long nodes = 0;             ///< Branch-and-bound nodes whose bounds were computed.
  long long evaluations = 0;       ///< Full surrogate evaluations (counts and cycles).
  long long pruned_bound = 0;      ///< Nodes cut because their bound reached the incumbent.
  long long pruned_capacity = 0;   ///< Nodes cut because their tiles cannot fit.
  long long pruned_dominance = 0;  ///< Nodes cut because a smaller PE use does the same.
};

/// The answer and how it was obtained (the effort counters from Effort).
struct Result : Effort {
  bool found = false;      ///< False only if no mapping fits (or the limit hit first).
  core::Mapping best;      ///< Best mapping found.
  core::Metrics metrics;   ///< Its surrogate metrics (model::Surrogate).
  double best_cost = 0;    ///< Objective of `best`.
  double lower_bound = 0;  ///< Proven lower bound on the optimum of the raw space.
  double gap = 0;          ///< (best_cost - lower_bound) / best_cost.
  bool optimal = false;    ///< The whole space was covered with no gap pruning.
  double seconds = 0;      ///< Wall time.
  StopReason stop = StopReason::ProvedOptimal;  ///< Why it stopped.
  /// Up to Options::keep distinct mappings with their surrogate metrics, by (cost, canonical
  /// key); top[0] is `best`. Deterministic like `best`.
  std::vector<std::pair<core::Mapping, core::Metrics>> top;
};

/// Solves one layer on one architecture.
Result solve(const core::Layer& layer, const core::Arch& arch, const Options& options = {});

}  // namespace mapwright::mapper
