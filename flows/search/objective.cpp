// What the search flows agree on besides the objective (core/objective.hpp): the searcher kinds
// `--searcher` accepts, the exact mapper's option checks and the effort per layer in words.
#include "mapwright/flows/objective.hpp"

#include <algorithm>
#include <cmath>

#include "common/text.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/search/options.hpp"

using mapwright::core::SpecError;

namespace mapwright::flows {

std::vector<std::string> all_searcher_kinds() {
  std::vector<std::string> kinds{"exact"};
  for (const auto& k : search::searcher_kinds()) kinds.push_back(k);
  return kinds;
}

void check_exact_options(const ExactOptions& e) {
  if (!std::isfinite(e.time_limit_s) || e.time_limit_s <= 0 || e.time_limit_s > 1e7)
    throw SpecError("--time-limit", "time-limit", fmt_g(e.time_limit_s),
                    "must be a number of seconds > 0 (and at most 1e7)");
  if (!std::isfinite(e.gap) || e.gap < 0 || e.gap >= 1)
    throw SpecError("--gap", "gap", fmt_g(e.gap),
                    "must be a relative gap in [0, 1), e.g. 0.001 for 0.1 %");
  if (e.threads < 0 || e.threads > 1024)
    throw SpecError("--threads", "threads", std::to_string(e.threads),
                    "must be between 0 (all cores) and 1024");
}

void require_searcher_kind(const std::string& kind, const std::string& where) {
  const auto kinds = all_searcher_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return;
  std::string known;
  for (const auto& k : kinds) known += (known.empty() ? "" : ", ") + k;
  throw SpecError(where, "searcher", kind, "unknown searcher (known: " + known + ")");
}

std::string budget_phrase(const std::string& searcher, int64_t budget, const ExactOptions& exact) {
  if (searcher == "exact")
    return (exact.gap == 0 ? std::string("proving each optimum")
                           : "proven gap <= " + fmt_g(100 * exact.gap) + " %") +
           " within at most " + fmt_g(exact.time_limit_s) + " s per layer";
  return std::to_string(budget) + " samples per layer";
}

}  // namespace mapwright::flows
